"""What a reader gets besides the pages: kit excerpts as Python, the syllabus, each page as a notebook and a script."""

from __future__ import annotations

import json
from pathlib import Path

import markdown
import pytest

from sitebuild.course.chrome import Chrome, course_chrome
from sitebuild.course.coursenav import course_pages
from sitebuild.course.syllabus import courses, leads
from sitebuild.find.blocks import Block, page_blocks
from sitebuild.publish import notebooks
from sitebuild.publish.page_prose import pieces
from sitebuild.render import render
from sitebuild.render.excerpts import Excerpt, excerpt_paths, kit_excerpts

NAV = [
    {"Home": "index.md"},
    {"Beginner": [{"Chapter 1": [{"A": "b/a.md"}, {"B": "b/b.md"}]}, {"Chapter 2": [{"C": "b/c.md"}]}]},
    {"Advanced": [{"Chapter 3": [{"D": "a/d.md"}]}]},
]
MINUTES = {"b/a.md": 5, "b/b.md": 7, "b/c.md": 3, "a/d.md": 20}
KIT = "\n".join(["import math", "", "def first():", "    return 1", "", "", "def second():", "    return 2", ""])


def site_markdown() -> markdown.Markdown:
    md = markdown.Markdown(extensions=["pymdownx.superfences", "pymdownx.highlight"],
                           extension_configs={"pymdownx.highlight": {"pygments_lang_class": True}})
    md.convert("```text\nx\n```")  # superfences sets its highlighter up on a first conversion
    return md


# Kit excerpts ---------------------------------------------------------------------------------------------


def test_only_a_block_of_sed_excerpts_of_kit_files_counts_as_an_excerpt():
    assert excerpt_paths("sed -n '/^def a/,/^$/p' kit/evidencedesk/llm.py") == ["kit/evidencedesk/llm.py"]
    two = "sed -n '/a/p' kit/evidencedesk/llm.py\nsed -n \"/b/p\" kit/evidencedesk/providers.py"
    assert excerpt_paths(two) == ["kit/evidencedesk/llm.py", "kit/evidencedesk/providers.py"]
    assert excerpt_paths("sed -n '/a/p' kit/evidencedesk/llm.py | head") is None
    assert excerpt_paths("sed -n '/a/p' docs/index.md") is None
    assert excerpt_paths("python -m pytest kit/tests | tail -n 1") is None


def test_an_excerpt_knows_its_files_line_numbers_and_gaps(tmp_path: Path):
    (tmp_path / "kit").mkdir()
    (tmp_path / "kit" / "m.py").write_text(KIT, encoding="utf-8")
    output = "def first():\n    return 1\n\ndef second():\n    return 2\n"
    [found] = kit_excerpts("sed -n '/^def first/,/^$/p;/^def second/,$p' kit/m.py", output, tmp_path)
    assert found.path == "kit/m.py"
    assert [n for n, _ in found.lines] == [3, 4, 5, 7, 8]  # the blank line belongs to the run above the gap
    assert found.gaps() == {3: 1}
    assert "\n".join(text for _, text in found.lines) + "\n" == output


def test_lines_not_in_the_file_in_order_are_shown_without_numbers(tmp_path: Path):
    (tmp_path / "kit").mkdir()
    (tmp_path / "kit" / "m.py").write_text(KIT, encoding="utf-8")
    [found] = kit_excerpts("sed -n '/second/p;/first/p' kit/m.py", "def second():\ndef first():\n", tmp_path)
    assert not found.numbered and found.gaps() == {}
    assert kit_excerpts("sed -n '1p' kit/gone.py", "x\n", tmp_path) is None


def test_an_excerpt_renders_as_python_titled_with_its_file_keeping_its_text():
    excerpt = Excerpt("kit/m.py", ((3, "def first():"), (4, "    return '<b>'"), (9, "x = 1")))
    html = render.excerpt_box(site_markdown(), excerpt)
    assert 'class="language-python highlight kit-excerpt' in html
    assert '<span class="filename">kit/m.py</span>' in html
    assert 'data-linenos="3 "' in html and 'data-linenos="9 "' in html
    assert html.count("kit-excerpt__gap") == 1 and 'data-gap="4 lines of the file not shown"' in html
    assert "<b>" not in html and "&lt;b&gt;" in html
    assert '<span class="k">def</span>' in html  # highlighted as Python


def test_a_sed_block_of_the_real_kit_shows_its_output_as_python_and_other_blocks_as_text():
    root = Path(__file__).resolve().parents[1]
    md = site_markdown()
    code = "sed -n '/^def estimate_tokens/,/^    return/p' kit/evidencedesk/llm.py"
    source = (root / "kit/evidencedesk/llm.py").read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(source) if line.startswith("def estimate_tokens"))
    end = next(i for i in range(start, len(source)) if source[i].startswith("    return"))
    output = "\n".join(source[start:end + 1]) + "\n"
    shown = render.output_html(Block(1, 1, "bash", code), output, md, root=root)
    assert 'kit/evidencedesk/llm.py</span>' in shown and f'data-linenos="{start + 1} "' in shown
    plain = render.output_html(Block(1, 1, "bash", "echo hi"), "hi\n", md, root=root)
    assert '<span class="filename">Output</span>' in plain and "kit-excerpt" not in plain


# The syllabus ---------------------------------------------------------------------------------------------


def test_each_course_lists_its_chapters_pages_count_and_minutes_from_the_nav():
    beginner, advanced = courses(course_pages(NAV), MINUTES, {"Beginner": "Foundations"})
    assert (beginner.name, beginner.count, beginner.minutes) == ("Foundations", 3, 15)
    assert [(c.name, c.minutes, [p.title for p in c.pages]) for c in beginner.chapters] == [
        ("Chapter 1", 12, ["A", "B"]), ("Chapter 2", 3, ["C"])]
    assert [p.url for p in beginner.pages] == ["b/a/", "b/b/", "b/c/"]
    assert (advanced.name, advanced.count, advanced.minutes) == ("Advanced", 1, 20)


def test_a_course_page_leads_to_its_kit_box_and_its_last_page_to_the_next_course_or_home():
    found = leads(courses(course_pages(NAV), MINUTES, {"Advanced": "AI Engineering"}))
    assert found["b/b.md"].kit_url == "b/a/" and not found["b/b.md"].first and not found["b/b.md"].last
    assert found["b/a.md"].first and found["b/c.md"].last
    assert (found["b/c.md"].next_course, found["b/c.md"].next_title, found["b/c.md"].next_url) == (
        "AI Engineering", "D", "a/d/")
    assert found["a/d.md"].first and found["a/d.md"].last and found["a/d.md"].next_url == ""


def test_progress_counts_the_pages_before_this_one_as_done():
    chrome = course_chrome(course_pages(NAV), MINUTES, {})
    assert [(chrome[p].done, chrome[p].percent) for p in ("b/a.md", "b/b.md", "b/c.md")] == [(0, 0), (1, 33), (2, 67)]
    assert Chrome("C", "", 2, 2, 1, 1).percent == 50


# Each page as a notebook and a script -----------------------------------------------------------------------

PAGE = '''# A page

## Counting

```python exec="on"
x = 2  # markdown-exec: hide
print("two")
```

```python exec="on" show="none"
print("checked: hidden")
```

??? success "Answer: Easy"

    ```bash exec="on"
    echo 'it''s'
    ```
'''
APPROVED = "--- python-a\ntwo\n\n--- bash-b\nits\n"


def shown(monkeypatch) -> list[notebooks.ShownBlock]:
    blocks = notebooks.shown_blocks(PAGE, "", "page.txt")
    keys = [s.block.key for s in blocks]
    outputs = {keys[0]: "two\n", keys[1]: "its\n"}
    return [notebooks.ShownBlock(s.block, outputs[s.block.key], s.section) for s in blocks]


def test_a_notebook_holds_the_shown_blocks_in_order_with_the_pages_outputs(monkeypatch):
    blocks = shown(monkeypatch)
    assert [s.section for s in blocks] == ["Counting", "Answer: Easy"]
    prose = pieces(PAGE, page_blocks(PAGE), {}, "beginner/a.md", "", "downloads/pages/beginner")
    book = json.loads(notebooks.notebook("A page", "Beginner, page 1 of 1", blocks, prose))
    code = [c for c in book["cells"] if c["cell_type"] == "code"]
    # the hidden line is out
    assert ["".join(c["source"]) for c in code] == ['print("two")', "%%script bash -e -o pipefail\necho 'it''s'"]
    assert ["".join(c["outputs"][0]["text"]) for c in code] == ["two\n", "its\n"]
    assert [c["id"] for c in book["cells"]] == [f"cell-{n}" for n in range(1, len(book["cells"]) + 1)]
    assert book["nbformat"] == 4 and book["metadata"]["kernelspec"]["language"] == "python"
    markdown = ["".join(c["source"]) for c in book["cells"] if c["cell_type"] == "markdown"]
    assert markdown[0].startswith("# A page") and "evidencedesk-kit" in markdown[0]
    assert markdown[1] == "## Counting" and markdown[2].startswith("**Answer: Easy**")
    assert "checked: hidden" not in json.dumps(book)  # a hidden check stays out
    assert code[0]["metadata"] == {} and code[1]["metadata"]["jupyter"] == {"source_hidden": True,
                                                                          "outputs_hidden": True}


def test_a_notebook_refuses_pieces_of_another_page(monkeypatch):
    with pytest.raises(ValueError, match="other blocks"):
        notebooks.notebook("A page", "", shown(monkeypatch), [])


def test_a_script_holds_the_same_blocks_runs_bash_through_bash_and_compiles(monkeypatch, tmp_path: Path):
    text = notebooks.script("A page", "Beginner, page 1 of 1", shown(monkeypatch))
    compile(text, "page.py", "exec")
    assert 'print("two")\n# Output:\n# two\n' in text
    assert text.index('print("two")') < text.index("echo 'it''s'")
    path = tmp_path / "page.py"
    path.write_text(text, encoding="utf-8")
    import subprocess
    import sys

    ran = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, cwd=tmp_path, check=False)
    assert (ran.returncode, ran.stdout) == (0, "two\nits\n"), ran.stderr
    expected = ("downloads/pages/beginner/a.ipynb", "downloads/pages/beginner/a.py")
    assert notebooks.download_paths("beginner/a.md") == expected
