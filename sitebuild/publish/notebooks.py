"""Each course page as a Jupyter notebook and as a plain Python script, made from its prose and the blocks it shows.

A learner who would rather not paste a page's blocks one by one downloads them. The notebook carries the
page: its prose as Markdown cells, in page order (page_prose.py turns MkDocs-only syntax into plain
Markdown, links to the published pages), between the code cells of the blocks whose source the page shows
(show="all", the ones a reader can copy), with the code as the page shows it (lines marked
`# markdown-exec: hide` left out). A python block becomes a code cell, a bash block a `%%script bash -e -o pipefail`
cell (IPython's %%bash with the page's shell options, from the notebook's folder); each cell carries the page's
approved output (data/) as its output, so the notebook opens showing what the page shows. An exercise's
answer comes after its prompt, as on the page, under a Markdown cell naming it ("Answer: Easy"), and its
cells are collapsed (cell metadata jupyter.source_hidden and outputs_hidden, tag "answer"). The script holds
the same blocks in the same order: python as it is, bash through `bash()`, each followed by its output as
comments. Both say to run them from the `evidencedesk-kit` folder of the kit download.

gen_notebooks.py puts them on the site (download_paths); tests/test_kit_replay.py runs every notebook
with nbclient in a fresh install of the kit download and holds each cell's output against the page.

Left out: blocks a page runs without showing their source (hidden checks): a learner cannot copy them; a
block that shows only its output is in the notebook as that output, in a Markdown cell. The script has no prose.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path

from sitebuild.find.blocks import Block, front_matter_lines, page_blocks
from sitebuild.publish.page_prose import Piece, pieces
from sitebuild.verify.approved import clean, parse

DOWNLOADS = "downloads/pages"
KIT_FOLDER = "evidencedesk-kit"
HEADING = re.compile(r"^(#{2,4})\s+(.+?)\s*#*\s*$")
BOX = re.compile(r'^\s*(?:\?\?\?\+?|!!!)\s+\w+(?:\s+[\w-]+)*\s+"([^"]+)"')
FENCE = re.compile(r"^\s*(```+|~~~+)")


def download_paths(src_uri: str) -> tuple[str, str]:
    """Where the site publishes a page's notebook and script, under the site root.

    Example: download_paths("beginner/llm.md")[0] == "downloads/pages/beginner/llm.ipynb"
    """
    stem = f"{DOWNLOADS}/{src_uri.removesuffix('.md')}"
    return f"{stem}.ipynb", f"{stem}.py"


@dataclass(frozen=True)
class ShownBlock:
    """A block as a learner copies it: the block (its code as shown), its approved output, what it sits under."""

    block: Block
    output: str
    section: str


def _sections(markdown: str) -> dict[int, str]:
    """{line: the nearest heading or box title above it} for every line of a page's Markdown, from 1."""
    found, current, fence = {}, "", ""
    for number, line in enumerate(markdown.splitlines(), start=1):
        opened = FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
        elif opened:
            fence = opened.group(1)
        elif heading := HEADING.match(line):
            current = heading.group(2)
        elif box := BOX.match(line):
            current = box.group(1)
        found[number] = current
    return found


def shown_blocks(markdown: str, approved_text: str, name: str, line_offset: int = 0,
                 blocks: list[Block] | None = None) -> list[ShownBlock]:
    """A page's blocks whose source it shows, in page order, each with its approved output.

    Args:
        markdown: the page's Markdown after its front matter; line_offset: the front matter's lines.
        approved_text: the page's approved file (data/<page>.txt), "" when it has none; name: its name, for errors.
        blocks: the page's blocks when already read (blocks.page_blocks), None to read them here.

    Returns:
        One ShownBlock per block with show="all"; a block without an approved output gets "".

    Raises:
        BlockError: the page's blocks cannot be read (as the build would fail); ApprovedFileError: nor its data.
    """
    approved = parse(approved_text, name) if approved_text else {}
    sections = _sections(markdown)
    return [
        ShownBlock(dataclasses.replace(block, code=block.shown_code), clean(approved.get(block.key, "")),
                   sections.get(block.line - line_offset, ""))
        for block in (page_blocks(markdown, line_offset=line_offset) if blocks is None else blocks)
        if block.show == "all"
    ]


def _read(root: Path, src_uri: str) -> tuple[str, int, str, str]:
    """docs/<src_uri>'s Markdown after its front matter, the front matter's lines, its approved text and file name."""
    source = (root / "docs" / src_uri).read_text(encoding="utf-8")
    from mkdocs.utils.meta import get_data

    markdown, _ = get_data(source)
    approved_file = (root / "data" / src_uri).with_suffix(".txt")
    approved_text = approved_file.read_text(encoding="utf-8") if approved_file.is_file() else ""
    return markdown, front_matter_lines(source, markdown), approved_text, approved_file.name


def read_page(root: Path, src_uri: str) -> list[ShownBlock]:
    """The shown blocks of docs/<src_uri> with their approved outputs from data/ (see shown_blocks)."""
    markdown, offset, approved_text, name = _read(root, src_uri)
    return shown_blocks(markdown, approved_text, name, offset)


def page_notebook(root: Path, src_uri: str, title: str, where: str, site_url: str = "") -> tuple[str, list[ShownBlock]]:
    """The notebook of docs/<src_uri> as the site publishes it, and its shown blocks (one per code cell, in order).

    Args:
        root: the repo root; src_uri: the page under docs/; title, where: as for notebook();
        site_url: mkdocs.yml's site_url, "" when it sets none (links then go relative to the notebook's place).

    Raises:
        BlockError, ApprovedFileError: as read_page; ValueError: the page's prose cannot be cut at a block.

    Example: page_notebook(ROOT, "beginner/cost-and-latency.md", "Cost and Latency", "")[0].startswith("{")
    """
    markdown, offset, approved_text, name = _read(root, src_uri)
    blocks = page_blocks(markdown, line_offset=offset)
    shown = shown_blocks(markdown, approved_text, name, offset, blocks)
    outputs = {key: clean(text) for key, text in (parse(approved_text, name) if approved_text else {}).items()}
    folder = download_paths(src_uri)[0].rsplit("/", 1)[0]
    prose = pieces(markdown, blocks, outputs, src_uri, site_url, folder, offset)
    return notebook(title, where, shown, prose), shown


def cell_source(block: Block) -> str:
    """A block's code as a notebook cell: python as it is, bash under `%%script bash -e -o pipefail` (IPython's
    %%bash with the page's shell options, so a cell stops where the page's block stops; tolerating a failure
    when the block is meant to fail, returncode other than 0).

    Example: cell_source(Block(1, 1, "bash", "ls")) == "%%script bash -e -o pipefail\\nls"
    """
    if block.language == "python":
        return block.code
    magic = f"%%script {'--no-raise-error ' if block.returncode else ''}bash -e -o pipefail"
    return f"{magic}\n{block.code}"


INTRO = ("{where}The EvidenceDesk course's page as a notebook: its text, and each example as a cell that already shows "
         "the output the page shows.\n\n"
         "Run it from the `evidencedesk-kit` folder of the kit download, installed as its README says: "
         "`python3 -m venv .venv`, then `.venv/bin/python -m pip install -r requirements-notebooks.txt -e \".[test]\"` "
         "(the exact versions the page's outputs were made with) and "
         "`.venv/bin/python -m ipykernel install --user --name evidencedesk-kit --env PATH \"$PWD/.venv/bin:$PATH\"`; "
         "pick the `evidencedesk-kit` kernel and run the cells in order: the Python cells share one session, and "
         "the Bash cells (`%%script bash -e -o pipefail`) run from that folder. The answers to the exercises "
         "are collapsed under their exercises: try each one first.")
ANSWER_NOTE = ("The answer to the exercise above: its cells are collapsed (the bar at their left, or the "
               "\u201cexpand\u201d control of your notebook, opens them). Try the exercise first.")
ANSWER_METADATA = {"tags": ["answer"], "jupyter": {"source_hidden": True, "outputs_hidden": True}}


def notebook(title: str, where: str, blocks: list[ShownBlock], prose: list[Piece]) -> str:
    """The page's notebook as nbformat 4 JSON: an introduction, then the page's pieces in order, prose as
    Markdown cells and each shown block as a code cell with its approved output; an answer's cells collapsed.
    Cell ids are numbered, so the file is the same on every build.

    Args:
        title: the page's title; where: its place, e.g. "Beginner course, page 2 of 8" ("" to leave it out);
        blocks: shown_blocks; prose: page_prose.pieces of the same page (each block piece one of blocks).

    Raises:
        ValueError: the pieces' blocks are not blocks, in the same order.

    Example: json.loads(notebook("A", "", [], []))["cells"][0]["source"].startswith("# A")
    """
    import nbformat
    from nbformat import v4

    if [p.block.key for p in prose if p.block] != [s.block.key for s in blocks]:
        raise ValueError(f"{title}: the notebook's pieces hold other blocks than the page's shown blocks")
    shown = iter(blocks)
    cells = [v4.new_markdown_cell(f"# {title}\n\n" + INTRO.format(where=f"{where}. " if where else ""))]
    count = 0
    for piece in prose:
        hidden = bool(piece.answer) and not piece.answer_start
        if piece.block is None:
            text = f"{piece.text}\n\n*{ANSWER_NOTE}*" if piece.answer_start else piece.text
            cell = v4.new_markdown_cell(text)
        else:
            block, count = next(shown), count + 1
            outputs = [v4.new_output("stream", name="stdout", text=block.output)] if block.output else []
            cell = v4.new_code_cell(cell_source(block.block), outputs=outputs, execution_count=count)
        if hidden:
            cell["metadata"].update(ANSWER_METADATA)
        cells.append(cell)
    for number, cell in enumerate(cells, start=1):
        cell["id"] = f"cell-{number}"
    book = v4.new_notebook(cells=cells, metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"},
    })
    nbformat.validate(book)
    return nbformat.writes(book) + "\n"


def _string(code: str) -> str:
    """Code as a Python string literal: raw triple-quoted where that holds it exactly, else repr()."""
    if "'''" not in code and not code.endswith(("\\", "'")):
        return f"r'''{code}'''"
    return repr(code)


def script(title: str, where: str, blocks: list[ShownBlock]) -> str:
    """The page's blocks as one plain Python script (see the module docstring), each output as comments."""
    parts = [
        f'"""{title}: every block the page shows, in order, as one script.\n\n{where}, from the EvidenceDesk '
        f"course. Run it from the {KIT_FOLDER} folder of the kit download, with the kit installed as its\n"
        'README says (python3 -m venv .venv, then .venv/bin/python -m pip install -r requirements.txt -e ".[test]"),\n'
        "then .venv/bin/python this_file.py. The Python blocks share this one session; each Bash block runs in\n"
        "bash, as on the page, with this Python's folder first on its PATH (its `python` is the venv's). Under\n"
        'each block, the output the page shows.\n"""\n\n'
        "import os\nimport subprocess\nimport sys\n\n\n"
        "def bash(commands: str, returncode: int = 0) -> None:\n"
        '    """Run a Bash block of the page in the current folder, as the site runs it (set -e -o pipefail)."""\n'
        "    sys.stdout.flush()\n"
        '    path = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")\n'
        '    done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", commands], check=False,\n'
        '                          env={**os.environ, "PATH": path})\n'
        "    if done.returncode != returncode:\n"
        '        sys.exit(f"a Bash block exited with code {done.returncode}, not {returncode}")\n'
    ]
    for number, shown in enumerate(blocks, start=1):
        block = shown.block
        head = f"# Block {number} ({block.language.capitalize()}" + (f", {shown.section}" if shown.section else "")
        code = block.code if block.language == "python" else (
            f"bash({_string(block.code)}" + (f", returncode={block.returncode})" if block.returncode else ")"))
        output = "".join(f"# {line}".rstrip() + "\n" for line in shown.output.splitlines())
        parts.append(f"\n\n{head})\n{code.rstrip()}\n" + (f"# Output:\n{output}" if output else ""))
    return "".join(parts)
