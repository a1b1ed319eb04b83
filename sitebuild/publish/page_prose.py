"""A page's Markdown cut into the pieces of its notebook: prose as plain Markdown, and where each shown block goes.

The notebook carries the page (notebooks.py): its prose, in page order, between the code cells of the blocks
whose source the page shows. The page's Markdown is written for MkDocs, so this turns what only MkDocs reads
into Markdown any notebook renders:
- an admonition or collapsible box (`!!! note "Title"`, `??? success "Answer: Easy"`) or a content tab
  (`=== "Title"`) becomes its title in bold and its content, unindented;
- an attribute list (`{ #id .class }`, `{: ...}`) is dropped;
- a link to another page (`../beginner/llm.md#usage`) or to an anchor of this one (`#usage`) goes to the
  published page: absolute under the site's address when mkdocs.yml sets site_url, else relative to the
  notebook's place on the site (downloads/pages/...); links to other sites stay as they are;
- a block that shows only its output (show="output") becomes that output: Markdown as it is (a table, a
  checklist, a Mermaid diagram), text as a fenced `text` block; a block that shows nothing (a hidden check)
  is left out, as on the page.
A box whose title starts with "Answer" is an exercise's answer: its pieces carry the title (Piece.answer), so
the notebook can mark and collapse them; the page puts its exercise prompts before their answers, and the
pieces keep page order.

Where the blocks are comes from blocks.page_blocks (the site's own Markdown reading), so the code cells are
exactly the blocks the build runs. Left out: a Markdown parser of our own. Everything outside the blocks is
read line by line for the few MkDocs-only constructs above; fenced code in prose is copied untouched.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

from sitebuild.course.coursenav import page_url
from sitebuild.find.blocks import Block

BOX = re.compile(r'^(\s*)(?:(?:!!!|\?\?\?\+?)\s+([\w-]+)(?:\s+[\w-]+)*(?:\s+"([^"]*)")?|===\+?\s+"([^"]*)")\s*$')
FENCE = re.compile(r"^(\s*)(```+|~~~+)")
ATTR_LIST = re.compile(r"\s*\{:?\s*[#.][^}\n]*\}|\s*\{:\s*[^}\n]*\}")
CODE_SPAN = re.compile(r"(`+)(?:.+?)\1")
LINK = re.compile(r"(\]\()([^)\s]+)((?:\s+\"[^\"]*\")?\))")
REFERENCE = re.compile(r"^(\s*\[[^\]]+\]:\s*)(\S+)(.*)$")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


@dataclass(frozen=True)
class Piece:
    """One piece of a page's notebook, in page order.

    Attributes:
        text: Markdown for a prose piece; "" for a block.
        block: the shown block whose code cell goes here; None for prose.
        answer: the title of the answer box the piece sits in ("Answer: Easy"); "" outside answers.
        answer_start: True for the piece that opens an answer box (its title line).
    """

    text: str = ""
    block: Block | None = None
    answer: str = ""
    answer_start: bool = False


def link_target(target: str, src_uri: str, site_url: str, notebook_dir: str) -> str:
    """Where a link of the page src_uri goes from its notebook (see the module docstring).

    Args:
        target: the link as the page writes it; src_uri: the page, e.g. "beginner/llm.md"; site_url: the
        site's address ("" when mkdocs.yml sets none); notebook_dir: the notebook's folder on the site.

    Example: link_target("b.md#x", "beginner/a.md", "", "downloads/pages/beginner") == "../../../beginner/b/#x"
    """
    if SCHEME.match(target) or target.startswith("/"):
        return target
    path, _, anchor = target.partition("#")
    if path:
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(src_uri), path))
        url = page_url(resolved) if resolved.endswith(".md") else resolved
    else:
        url = page_url(src_uri)
    if site_url:
        address = f"{site_url.rstrip('/')}/{url}"
    else:
        address = posixpath.relpath(url or ".", notebook_dir) + ("/" if url.endswith("/") or not url else "")
    return address + (f"#{anchor}" if anchor else "")


def _prose_line(line: str, fix_link) -> str:
    """A prose line with attribute lists dropped and links rewritten, code spans untouched."""
    parts, last = [], 0
    for span in CODE_SPAN.finditer(line):
        parts.append(("text", line[last:span.start()]))
        parts.append(("code", span.group(0)))
        last = span.end()
    parts.append(("text", line[last:]))
    out = []
    for kind, text in parts:
        if kind == "text":
            text = ATTR_LIST.sub("", text)
            text = LINK.sub(lambda m: m.group(1) + fix_link(m.group(2)) + m.group(3), text)
        out.append(text)
    joined = "".join(out)
    if reference := REFERENCE.match(joined):
        joined = reference.group(1) + fix_link(reference.group(2)) + reference.group(3)
    return joined


def _closing(lines: list[str], start: int) -> int:
    """The index of the line closing the fence opened at lines[start] (the last line when none closes it)."""
    opened = FENCE.match(lines[start])
    marker = opened.group(2)
    for index in range(start + 1, len(lines)):
        closing = FENCE.match(lines[index])
        if closing and closing.group(2)[0] == marker[0] and len(closing.group(2)) >= len(marker) \
                and not lines[index][closing.end():].strip():
            return index
    return len(lines) - 1


def _dedent(line: str, width: int) -> str:
    return line[min(width, len(line) - len(line.lstrip(" "))):]


def _output_markdown(block: Block, output: str) -> str:
    """What a block that shows only its output puts on the page, as Markdown."""
    if block.output_format == "markdown":
        return output.strip("\n")
    return "```text\n" + output.rstrip("\n") + "\n```" if output.strip() else ""


def pieces(markdown: str, blocks: list[Block], outputs: dict[str, str], src_uri: str, site_url: str,
           notebook_dir: str, line_offset: int = 0) -> list[Piece]:
    """The page's notebook pieces, in page order (see the module docstring).

    Args:
        markdown: the page's Markdown after its front matter; line_offset: the front matter's lines.
        blocks: every executed block of the page (blocks.page_blocks), their lines counted with line_offset.
        outputs: each block's approved output by its key ("" or missing when it has none).
        src_uri: the page under docs/; site_url: mkdocs.yml's site_url or ""; notebook_dir: the notebook's folder.

    Returns:
        Prose pieces (Markdown, never empty) and one piece per block with show="all", in page order. The
        page's first level-1 heading is left out: the notebook's own first cell names the page.

    Raises:
        ValueError: a block's line is not the opening of a fence in markdown, naming the page and block.

    Example: pieces("# T\n\nHi [b](b.md).\n", [], {}, "a/t.md", "", "downloads/pages/a")[0].text == \
        "Hi [b](../../../a/b/)."
    """
    lines = markdown.splitlines()
    at = {block.line - line_offset - 1: block for block in blocks}
    for index, block in at.items():
        if not (0 <= index < len(lines) and FENCE.match(lines[index])):
            raise ValueError(f"docs/{src_uri}: {block.label} does not open a fence at that line of the page")
    found: list[Piece] = []
    buffer: list[str] = []
    boxes: list[tuple[int, str]] = []  # (the content's indentation, the title if an answer box else "")
    titled = False

    def fix_link(target: str) -> str:
        return link_target(target, src_uri, site_url, notebook_dir)

    def answer() -> str:
        return next((title for _, title in reversed(boxes) if title), "")

    def flush() -> None:
        text = "\n".join(buffer).strip("\n")
        buffer.clear()
        if text.strip():
            found.append(Piece(text=text, answer=answer()))

    def indent() -> int:
        return boxes[-1][0] if boxes else 0

    index = 0
    while index < len(lines):
        line = lines[index]
        if line.strip():
            width = len(line) - len(line.lstrip(" "))
            while boxes and width < boxes[-1][0]:
                if boxes[-1][1]:
                    flush()  # an answer's pieces end with its box
                boxes.pop()
        if index in at:
            block, end = at[index], _closing(lines, index)
            if block.show == "all":
                flush()
                found.append(Piece(block=block, answer=answer()))
            elif block.show == "output":
                shown = _output_markdown(block, outputs.get(block.key, "")).splitlines()
                fenced = False
                for text in shown:  # links in a generated table or checklist go to the published pages too
                    fenced = fenced != bool(FENCE.match(text))
                    buffer.append(text if fenced or FENCE.match(text) else _prose_line(text, fix_link))
                buffer.extend([""] if shown else [])
            index = end + 1
            continue
        if FENCE.match(line):
            end = _closing(lines, index)
            buffer.extend(_dedent(text, indent()) for text in lines[index:end + 1])
            index = end + 1
            continue
        if box := BOX.match(line):
            width, kind, title, tab = len(box.group(1)), box.group(2), box.group(3), box.group(4)
            heading = tab if tab is not None else (title if title is not None else (kind or "").capitalize())
            is_answer = tab is None and (title or "").startswith("Answer")
            if is_answer:
                flush()
                boxes.append((width + 4, heading))
                found.append(Piece(text=f"**{heading}**", answer=heading, answer_start=True))
            else:
                if heading:
                    followed = index + 1 < len(lines) and lines[index + 1].strip()  # else the page's blank line
                    buffer.extend([f"**{heading}**", ""] if followed else [f"**{heading}**"])
                boxes.append((width + 4, ""))
            index += 1
            continue
        text = _dedent(line, indent())
        if not titled and re.match(r"^#\s", text):
            titled = True
            index += 1
            continue
        buffer.append(_prose_line(text, fix_link))
        index += 1
    flush()
    return found
