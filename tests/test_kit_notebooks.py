"""Each page's notebook carries the page (sitebuild/publish/notebooks.py, page_prose.py), and the learner's steps work
on a stock Debian or Ubuntu, which has `python3` but no `python` until a venv is active.

Nothing here installs or runs anything: the notebooks are built as the site publishes them (page_notebook) and
read; the page's own headings come from Python-Markdown's table of contents of the page, not from the code under
test. test_kit_replay.py runs the same notebooks in a fresh install of the kit download.
"""

from __future__ import annotations

import functools
import json
import re

import pytest

from sitebuild.course.coursenav import course_pages
from sitebuild.find.blocks import page_blocks
from sitebuild.find.fences import DEFAULT_EXTENSIONS, site_markdown
from sitebuild.publish import notebooks
from sitebuild.publish.gen_downloads import kit_readme
from sitebuild.publish.page_prose import link_target, pieces
from tests.learner import CONFIG, PAGES_WITH_BLOCKS, ROOT

PAGES = {p.src_uri: p for p in course_pages(CONFIG["nav"])}
SITE_MARKDOWN = site_markdown([*DEFAULT_EXTENSIONS, "tables", "toc"])  # the site's reading of a page, with its headings


def headings(text: str) -> list[tuple[int, str]]:
    """(level, name) of every heading Python-Markdown finds in text, in order (inside boxes too)."""
    md = SITE_MARKDOWN()
    md.convert(text)
    found = []

    def walk(tokens: list[dict]) -> None:
        for token in tokens:
            found.append((token["level"], token["name"]))
            walk(token["children"])

    walk(md.toc_tokens)
    return found


@functools.cache
def notebook_text(src_uri: str) -> str:
    """The page's notebook as the site publishes it (without its place in the course), built once per process."""
    return notebooks.page_notebook(ROOT, src_uri, PAGES[src_uri].title, "")[0]


def book_of(src_uri: str) -> dict:
    return json.loads(notebook_text(src_uri))


def markdown_cells(book: dict) -> list[str]:
    return ["".join(c["source"]) for c in book["cells"] if c["cell_type"] == "markdown"]


@pytest.mark.parametrize("src_uri", PAGES_WITH_BLOCKS)
def test_the_notebook_holds_the_pages_section_headings_in_order(src_uri):
    page_text = (ROOT / "docs" / src_uri).read_text(encoding="utf-8")
    wanted = [h for h in headings(page_text) if h[0] >= 2]
    got = [h for h in headings("\n\n".join(markdown_cells(book_of(src_uri)))) if h[0] >= 2]
    assert wanted and len(wanted) >= 4, f"{src_uri}: too few headings read from the page: {wanted}"
    assert got == wanted


@pytest.mark.parametrize("src_uri", PAGES_WITH_BLOCKS)
def test_the_notebook_holds_the_pages_prose_and_no_mkdocs_syntax(src_uri):
    text = "\n".join(markdown_cells(book_of(src_uri)))
    page_text = (ROOT / "docs" / src_uri).read_text(encoding="utf-8")
    first = next(p for p in page_text.split("\n\n")[1:] if p.strip() and not p.startswith(("#", "!!!", "```")))
    no_targets = re.compile(r"\]\([^)]*\)")
    assert no_targets.sub("]", first.strip()) in no_targets.sub("]", text)  # the opening paragraph, word for word
    outside_fences = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    assert not re.findall(r"^\s*(?:!!!|\?\?\?|===)\s", outside_fences, flags=re.M)  # admonition markers
    assert not re.findall(r"\{:?\s*[#.][\w-]+[^}]*\}", outside_fences)  # attribute lists
    assert not re.findall(r"\]\((?![a-z]+:)[^)]*\.md(?:#[^)]*)?\)", outside_fences)  # links to page sources


@pytest.mark.parametrize("src_uri", [s for s in PAGES_WITH_BLOCKS
                                     if '??? success "Answer' in (ROOT / "docs" / s).read_text(encoding="utf-8")])
def test_each_exercise_prompt_comes_before_its_answer_and_the_answer_is_collapsed(src_uri):
    page_text = (ROOT / "docs" / src_uri).read_text(encoding="utf-8")
    cells = book_of(src_uri)["cells"]
    sources = ["".join(c["source"]) for c in cells]
    starts = [i for i, s in enumerate(sources) if cells[i]["cell_type"] == "markdown" and s.startswith("**Answer: ")]
    assert len(starts) == page_text.count('??? success "Answer'), src_uri
    for number, start in enumerate(starts):
        level = re.match(r"\*\*Answer: ([^*]+)\*\*", sources[start]).group(1)
        prompt = next(i for i, s in enumerate(sources) if f"**{level}.**" in s)
        assert prompt < start, f"{src_uri}: the answer {level!r} comes before its prompt"
        assert "answer" not in cells[prompt]["metadata"].get("tags", []) and not cells[start]["metadata"]
        end = starts[number + 1] if number + 1 < len(starts) else len(cells)
        answer = [c for c in cells[start + 1:end] if "answer" in c["metadata"].get("tags", [])]
        assert answer == cells[start + 1:start + 1 + len(answer)], "an answer's cells follow its title"
        assert any(c["cell_type"] == "code" for c in answer), f"{src_uri}: the answer {level!r} has no code cell"
        for cell in answer:
            assert cell["metadata"]["jupyter"]["source_hidden"] is True


@pytest.mark.parametrize("src_uri", PAGES_WITH_BLOCKS)
def test_the_pages_test_count_stays_in_its_notebook_and_its_hidden_checks_stay_out(src_uri):
    code = "\n".join("".join(c["source"]) for c in book_of(src_uri)["cells"] if c["cell_type"] == "code")
    page_text = (ROOT / "docs" / src_uri).read_text(encoding="utf-8")
    for block in page_blocks(page_text):
        if block.show == "all":
            assert block.shown_code in code
        elif block.show == "none" and len(block.code) > 40:
            assert block.code not in code, f"{src_uri}: {block.label}, a hidden check, is in the notebook"


PROSE = '''# T

Intro with [a page](other.md#part), [an anchor](#here), [far](../advanced/x.md) and [out](https://x.org/a.md).
`[kept](code.md)` stays code.

## Section { #sec .wide }

!!! warning "Careful"

    Boxed text.

```python exec="on" show="output" output="markdown"
print("| a |")
```

```python exec="on" show="none"
assert True
```

- **Easy.** Do it.

??? success "Answer: Easy"

    Because.

    ```python exec="on"
    print(1)
    ```

After.
'''


def test_pieces_turn_mkdocs_syntax_into_plain_markdown_and_mark_the_answer():
    blocks = page_blocks(PROSE)
    outputs = {blocks[0].key: "| a | b |\n|---|---|\n| [p](other.md) | 1 |\n"}
    found = pieces(PROSE, blocks, outputs, "beginner/t.md", "", "downloads/pages/beginner")
    prose = found[0].text
    assert "# T" not in prose  # the notebook's own first cell names the page
    assert "[a page](../../../beginner/other/#part)" in prose and "[an anchor](../../../beginner/t/#here)" in prose
    assert "[far](../../../advanced/x/)" in prose and "[out](https://x.org/a.md)" in prose
    assert "`[kept](code.md)`" in prose
    assert "## Section\n" in prose and "**Careful**\n\nBoxed text." in prose
    assert "| [p](../../../beginner/other/) | 1 |" in prose and "assert True" not in prose
    assert [(p.answer, p.answer_start, bool(p.block)) for p in found[1:]] == [
        ("Answer: Easy", True, False), ("Answer: Easy", False, False), ("Answer: Easy", False, True),
        ("", False, False)]
    assert found[2].text == "Because." and found[-1].text == "After."


def test_with_a_site_url_links_go_to_the_published_pages():
    assert link_target("b.md#x", "advanced/a.md", "https://course.example.org/", "downloads/pages/advanced") == (
        "https://course.example.org/advanced/b/#x")
    assert link_target("#x", "advanced/a.md", "https://course.example.org", "") == (
        "https://course.example.org/advanced/a/#x")
    assert link_target("../index.md", "advanced/a.md", "", "downloads/pages/advanced") == "../../../"


def test_a_block_line_that_opens_no_fence_is_refused_naming_the_page():
    blocks = page_blocks(PROSE)
    with pytest.raises(ValueError, match=r"docs/beginner/t.md: block 1 \(python, line 12\) does not open a fence"):
        pieces("\n" + PROSE, blocks, {}, "beginner/t.md", "", "")


# The learner's steps: python3 where no venv is active ---------------------------------------------------------

BARE = re.compile(r"(?:^|[\s;&|(])python\s")  # `python ...` as a command: not python3, not .venv/bin/python


def bare_python(text: str, plain: bool = False) -> list[str]:
    """The commands of text that call bare `python` where no venv is active.

    The commands are the lines of each fenced block and the code spans of each paragraph (with plain, every
    line of text too); in each fence or paragraph, a command after one that runs `activate` may say `python`.
    """
    found = []
    groups = [chunk.splitlines()[1:-1] for chunk in re.findall(r"^ *```.*?^ *```", text, flags=re.M | re.S)]
    prose = re.sub(r"^ *```.*?^ *```", "", text, flags=re.M | re.S)
    groups += [re.findall(r"`([^`\n]+)`", chunk) for chunk in re.split(r"\n\s*\n", prose)]
    groups += [prose.splitlines()] if plain else []
    for commands in groups:
        active = False
        for command in commands:
            if BARE.search(command) and not active:
                found.append(command.strip())
            active = active or "activate" in command
    return found


def learner_texts() -> dict[str, str]:
    """Every text that tells a learner what to type, by name."""
    pages = course_pages(CONFIG["nav"])
    sources = {p.src_uri: (ROOT / "docs" / p.src_uri).read_text(encoding="utf-8") for p in pages}
    home = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    src = PAGES_WITH_BLOCKS[0]
    return {
        # its steps; the module table below them quotes each module's docstring, for a reader with the venv active
        "the kit's README": kit_readme(ROOT, pages, sources, "").split("## What each module teaches")[0],
        "the kit box": re.sub(r"<[^>]+>", "", (ROOT / "overrides/partials/get-the-kit.html")
                              .read_text(encoding="utf-8")).replace("&amp;", "&"),
        "the home page's kit section": home[home.index("## Run the kit yourself"):home.index("## How to run")],
        "a notebook's first cell": markdown_cells(book_of(src))[0],
        "a script's docstring": notebooks.script("T", "W", notebooks.read_page(ROOT, src)).split('"""')[1],
    }


PLAIN = {"a script's docstring", "the kit box"}  # not Markdown: every line is read as a step


def test_bare_python_is_found_where_no_venv_is_active():
    assert bare_python("```bash\npython -m venv .venv\n```") == ["python -m venv .venv"]
    assert bare_python("Run `python -m pytest kit/tests`.") == ["python -m pytest kit/tests"]
    assert bare_python("```bash\npython3 -m venv .venv && . .venv/bin/activate\npython -m pytest\n```") == []
    assert bare_python("`.venv/bin/python -m pytest` or `python3 x.py`; type `python` once it is active") == []
    assert bare_python("Then python this_file.py, or .venv/bin/python x.py", plain=True) == [
        "Then python this_file.py, or .venv/bin/python x.py"]


@pytest.mark.parametrize("name", ["the kit's README", "the kit box", "the home page's kit section",
                                  "a notebook's first cell", "a script's docstring"])
def test_no_step_says_bare_python_where_a_stock_debian_has_only_python3(name):
    text = learner_texts()[name]
    assert "python3 -m venv .venv" in text or name == "a script's docstring" and "python3 -m venv" in text
    assert bare_python(text, plain=name in PLAIN) == [], f"{name}: say python3, .venv/bin/python, or activate first"


def test_the_kit_readme_says_how_to_install_the_pins_and_a_notebook_kernel():
    readme = learner_texts()["the kit's README"]
    assert '.venv/bin/python -m pip install -r requirements.txt -e ".[test]"' in readme
    assert '.venv/bin/python -m pip install -r requirements-notebooks.txt -e ".[test]"' in readme
    assert "ipykernel install --user --name evidencedesk-kit" in readme


def test_contributing_names_no_bare_python_for_the_kit_download():
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    kit_part = text[text.index("The kit is also on the site as a download"):]
    assert bare_python(kit_part.split("\n\n")[0]) == []


