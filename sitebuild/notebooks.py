"""Each course page as a Jupyter notebook and as a plain Python script, made from the blocks it shows.

A learner who would rather not paste a page's blocks one by one downloads them: the blocks whose
source the page shows (show="all", the ones a reader can copy), in page order, with the code as the
page shows it (lines marked `# markdown-exec: hide` left out). A python block becomes a code cell, a
bash block a `%%script bash -e -o pipefail` cell (IPython's %%bash with the page's shell options; from the
notebook's folder);
each cell carries the page's approved output (data/) as its output, so the notebook opens showing what
the page shows. A markdown cell before a block names the heading or box it sits under. The script
holds the same blocks in the same order: python as it is, bash through `bash()`, each followed by its
output as comments. Both say to run them from the `evidencedesk-kit` folder of the kit download.

gen_notebooks.py puts them on the site (download_paths); tests/test_kit_replay.py runs every notebook
with nbclient in a fresh install of the kit download and holds each cell's output against the page.

Left out: blocks a page runs without showing their source (hidden checks): a learner cannot copy them.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path

from sitebuild.approved import clean, parse
from sitebuild.blocks import Block, front_matter_lines, page_blocks

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


def shown_blocks(markdown: str, approved_text: str, name: str, line_offset: int = 0) -> list[ShownBlock]:
    """A page's blocks whose source it shows, in page order, each with its approved output.

    Args:
        markdown: the page's Markdown after its front matter; line_offset: the front matter's lines.
        approved_text: the page's approved file (data/<page>.txt), "" when it has none; name: its name, for errors.

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
        for block in page_blocks(markdown, line_offset=line_offset)
        if block.show == "all"
    ]


def read_page(root: Path, src_uri: str) -> list[ShownBlock]:
    """The shown blocks of docs/<src_uri> with their approved outputs from data/ (see shown_blocks)."""
    source = (root / "docs" / src_uri).read_text(encoding="utf-8")
    from mkdocs.utils.meta import get_data

    markdown, _ = get_data(source)
    approved_file = (root / "data" / src_uri).with_suffix(".txt")
    approved_text = approved_file.read_text(encoding="utf-8") if approved_file.is_file() else ""
    return shown_blocks(markdown, approved_text, approved_file.name, front_matter_lines(source, markdown))


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


def notebook(title: str, where: str, blocks: list[ShownBlock]) -> str:
    """The page's notebook as nbformat 4 JSON: an introduction, then per block a markdown cell naming its
    section (when it changes) and a code cell with the approved output. Cell ids are numbered, so the
    file is the same on every build.

    Args:
        title: the page's title; where: its place, e.g. "Beginner course, page 2 of 8"; blocks: shown_blocks.
    """
    import nbformat
    from nbformat import v4

    intro = (f"# {title}\n\n{where}. Every block this page of the EvidenceDesk course shows, in page order, "
             "with the output the page shows.\n\nOpen it in the `evidencedesk-kit` folder of the kit download, "
             'with the kit installed (`pip install -e ".[test]"`) and a Jupyter kernel (`pip install ipykernel`), '
             "and run the cells in order: the Python cells share one session, and the Bash cells (`%%script bash -e -o "
             "pipefail`) run from "
             "that folder.")
    cells, section = [v4.new_markdown_cell(intro)], ""
    for count, shown in enumerate(blocks, start=1):
        if shown.section and shown.section != section:
            section = shown.section
            cells.append(v4.new_markdown_cell(f"## {section}"))
        outputs = [v4.new_output("stream", name="stdout", text=shown.output)] if shown.output else []
        cells.append(v4.new_code_cell(cell_source(shown.block), outputs=outputs, execution_count=count))
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
        f"course. Run it from the {KIT_FOLDER} folder of the kit download, with the kit installed\n"
        '(pip install -e ".[test]"): python this_file.py. The Python blocks share this one session; each Bash\n'
        'block runs in bash, as on the page. Under each block, the output the page shows.\n"""\n\n'
        "import subprocess\nimport sys\n\n\n"
        "def bash(commands: str, returncode: int = 0) -> None:\n"
        '    """Run a Bash block of the page in the current folder, as the site runs it (set -e -o pipefail)."""\n'
        "    sys.stdout.flush()\n"
        '    done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", commands], check=False)\n'
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
