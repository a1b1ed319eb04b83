"""The repo's own docs: README.md stays a quick start that leads to CONTRIBUTING.md, and no link in either is broken.

A relative link must reach a file of the repo, and an anchor (#...) a heading of the file it names, with the id
GitHub gives a heading: lowercase, spaces to hyphens, punctuation dropped, "-1", "-2" on repeats.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ("README.md", "CONTRIBUTING.md")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)((?:(?!\n[ \t]*\n).)+?)(?<!`)\1(?!`)", re.DOTALL)  # not across a blank line
LINK = re.compile(r"(?<!!)\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^()\s<>]*)>?(?:\s+\"[^\"]*\")?\s*\)")


def unfenced(text: str) -> str:
    """text with each line of a fenced code block blanked: a link or a `# comment` shown there is no link or heading."""
    kept, fence = [], None
    for line in text.split("\n"):
        match = FENCE.match(line)
        if fence is None:
            fence = match.group(1) if match else None
            kept.append("" if match else line)
        else:
            closes = match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence)
            fence = None if closes and not match.group(2).strip() else fence
            kept.append("")
    return "\n".join(kept)


def prose(text: str) -> str:
    """text without its fenced code blocks and code spans, where a link is only shown, not made."""
    return CODE_SPAN.sub(lambda m: " " * len(m.group(0)), unfenced(text))


def slug(heading: str) -> str:
    """GitHub's id for a heading: its text lowercased, punctuation dropped, each space a hyphen."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading counts by its text
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """The ids of every heading of a Markdown file, as GitHub makes them (a repeat gets -1, -2, ...)."""
    text = unfenced(path.read_text(encoding="utf-8"))
    seen: dict[str, int] = {}
    ids = set()
    for heading in re.findall(r"^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$", text, re.MULTILINE):
        base = slug(heading)
        count = seen.get(base, 0)
        ids.add(base if count == 0 else f"{base}-{count}")
        seen[base] = count + 1
    return ids


def relative_links(name: str) -> list[str]:
    """The targets of the Markdown links of ROOT/name that lead into the repo (no scheme, no //host)."""
    targets = LINK.findall(prose((ROOT / name).read_text(encoding="utf-8")))
    return [t for t in targets if t and not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^//", t)]


def test_readme_is_a_quick_start_that_links_to_contributing():
    text = (ROOT / "README.md").read_text(encoding="utf-8")

    assert len(text.splitlines()) <= 150, f"README.md has {len(text.splitlines())} lines; keep it a quick start"
    assert "CONTRIBUTING.md" in {t.split("#")[0] for t in relative_links("README.md")}, \
        "README.md does not link to CONTRIBUTING.md"
    assert (ROOT / "CONTRIBUTING.md").is_file()


@pytest.mark.parametrize("name", DOCS)
def test_every_relative_link_resolves(name):
    source = ROOT / name
    links = relative_links(name)
    assert links, f"{name} has no relative link: the link check read nothing"
    broken = []
    for target in dict.fromkeys(links):
        path, _, anchor = target.partition("#")
        file = (source.parent / unquote(path)).resolve() if path else source
        if not file.exists() or ROOT not in (file, *file.parents):
            broken.append(f"{target}: no file {path} in the repo")
        elif anchor and file.suffix == ".md" and unquote(anchor) not in anchors(file):
            broken.append(f"{target}: {file.relative_to(ROOT)} has no heading with the id {anchor!r}")
    assert broken == [], f"{name}: broken links:\n" + "\n".join(broken)


@pytest.mark.parametrize(("heading", "expected"), [
    ("Running a page's code yourself", "running-a-pages-code-yourself"),
    ("CPU time and the benchmark", "cpu-time-and-the-benchmark"),
    ("What `make test` costs: 2.4x, (at most)", "what-make-test-costs-24x-at-most"),
    ("The kit_pins module", "the-kit_pins-module"),
])
def test_anchors_are_made_as_github_makes_them(heading, expected):
    assert slug(heading) == expected


def test_prose_leaves_out_what_is_only_shown_as_code(tmp_path):
    text = "A [real](a.md) link.\n\n````markdown\n```python\n[shown](b.md)\n```\n[still shown](c.md)\n````\n" \
           "and `[in a span](d.md)` and ``[a `longer` span](e.md)``; [after](f.md#x)\n"

    assert LINK.findall(prose(text)) == ["a.md", "f.md#x"]
