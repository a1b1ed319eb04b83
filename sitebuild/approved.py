"""The approved outputs: one plain-text file per page in data/, and the comparison against them.

A page docs/advanced/agent.md has its approved outputs in data/advanced/agent.txt:

    # Approved outputs of docs/advanced/agent.md, in page order.
    # Written by `make accept`: change the page or the kit, never this file.

    --- python-1a2b3c4d (2 lines)
    first line of output
    second line

    --- bash-9f8e7d6c (1 line)
    69 passed

Each entry is a header naming the block's key and the number of lines, then the output verbatim.
The line count makes the file unambiguous whatever an output holds, and the key (not the
position) makes inserting a block change only its own entry. A diff of this file is a review of
what changed on the page.

Left out: anything that is not plain text. Outputs are text by construction.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

HEADER = re.compile(r"^--- (?P<key>\S+) \((?P<count>\d+) lines?\)$")


class ApprovedFileError(ValueError):
    """An approved-outputs file that is not in the format above; the message names file and line."""


def approved_path(data_dir: Path, page: str) -> Path:
    """Where a page's approved outputs live: data_dir / the page's path with .txt for .md.

    Example: approved_path(Path("data"), "advanced/agent.md") == Path("data/advanced/agent.txt")
    """
    return data_dir / Path(page).with_suffix(".txt")


def clean(output: str) -> str:
    """An output as it is approved and compared: newlines only (no \\r), without the trailing ones every print adds."""
    return output.replace("\r\n", "\n").replace("\r", "\n").rstrip("\n")


def parse(text: str, name: str) -> dict[str, str]:
    """Read an approved-outputs file.

    Args:
        text: the file's content.
        name: the file's path, for messages.

    Returns:
        {key: output} in file order.

    Raises:
        ApprovedFileError: a line that should be a header is not one, an entry is cut short,
            or a key appears twice. The message names the file and the line.

    Example: parse("--- a (1 line)\\nhi\\n", "x.txt") == {"a": "hi"}
    """
    lines = text.split("\n")  # not splitlines(): an output may hold \f, \x1d, \u2028, which are not line ends here
    entries: dict[str, str] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip() or line.startswith("#"):
            i += 1
            continue
        header = HEADER.match(line)
        if not header:
            expected = "a header like '--- <key> (<n> lines)'"
            raise ApprovedFileError(f"{name} line {i + 1}: expected {expected}, got {line!r}")
        key, count = header["key"], int(header["count"])
        if key in entries:
            raise ApprovedFileError(f"{name} line {i + 1}: the key {key!r} appears twice")
        body = lines[i + 1 : i + 1 + count]
        if len(body) < count:
            raise ApprovedFileError(f"{name} line {i + 1}: entry {key!r} promises {count} lines, the file ends first")
        entries[key] = "\n".join(body)
        i += 1 + count
    return entries


def render(page: str, entries: list[tuple[str, str]]) -> str:
    """Write approved outputs in the file format above.

    Args:
        page: the page's path as the header comment names it, e.g. "docs/advanced/agent.md".
        entries: (key, output) pairs in page order.

    Returns:
        The file's text.

    Example: parse(render("docs/a.md", [("k", "hi")]), "a.txt") == {"k": "hi"}
    """
    parts = [
        f"# Approved outputs of {page}, in page order.\n"
        "# Written by `make accept`: change the page or the kit, never this file.\n"
    ]
    for key, output in entries:
        body = clean(output)
        count = body.count("\n") + 1
        parts.append(f"--- {key} ({count} {'line' if count == 1 else 'lines'})\n{body}\n")
    return "\n".join(parts)


def diff(approved: str, actual: str, name: str, labels: tuple[str, str] | None = None) -> str:
    """A unified diff from the approved output to this build's output (difflib), "" when equal.

    Args:
        approved, actual: the two outputs.
        name: the approved file's path, for the "---" label.
        labels: other ("---", "+++") labels, when the diff compares two runs instead.

    Example: diff("a", "b", "x.txt").splitlines()[2:] == ["@@ -1 +1 @@", "-a", "+b"]
    """
    before, after = labels or (f"approved ({name})", "this build")
    lines = difflib.unified_diff(clean(approved).splitlines(), clean(actual).splitlines(), before, after, lineterm="")
    return "\n".join(lines)
