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

An output is approved as a terminal shows it (clean): a lone carriage return goes back to the
start of its line and what follows overwrites it, so a progress line "10%\r100%" is approved as
"100%". A diff makes what a reader cannot see visible in the lines it changes (show): trailing
spaces, tabs, no-break and other invisible spaces, and, for two lines that would still look the
same, every character beyond ASCII by its code point; a note under the diff says how.

Left out: anything that is not plain text. Outputs are text by construction. Overwriting counts
characters, not terminal columns: a wide (East Asian) character counts as one, a tab as one.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from pathlib import Path

HEADER = re.compile(r"^--- (?P<key>\S+) \((?P<count>\d+) lines?\)$")
SPACE_MARK, TAB_MARK = "\u2420", "\u2409"  # ␠ a trailing space, ␉ a tab, in a diff's changed lines
CODE_MARK = "\u27e8U+{:04X}\u27e9"  # ⟨U+00A0⟩: a character shown by its code point
# Shown by code point in a changed line: spaces other than U+0020, invisible format characters (Cf),
# line and paragraph separators, and the marks themselves, so that a printed "␠" cannot pass for a space.
INVISIBLE = re.compile("[\u00a0\u1680\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\ufeff\u00ad\u034f"
                       "\u180e\ufe00-\ufe0f\u2409\u2420\u27e8\u27e9]")


class ApprovedFileError(ValueError):
    """An approved-outputs file that is not in the format above; the message names file and line."""


def approved_path(data_dir: Path, page: str) -> Path:
    """Where a page's approved outputs live: data_dir / the page's path with .txt for .md.

    Example: approved_path(Path("data"), "advanced/agent.md") == Path("data/advanced/agent.txt")
    """
    return data_dir / Path(page).with_suffix(".txt")


def clean(output: str) -> str:
    """An output as it is approved and compared: as a terminal shows it, without the trailing newlines prints add.

    \r\n is a line end; a lone \r returns to the start of the line, and what follows overwrites what
    was there, character by character (a terminal's carriage return).

    Args:
        output: a block's output, plain text.

    Returns:
        The output with "\n" line ends only and no trailing ones.

    Example: clean("10%\\r20%\\r100%\\n") == "100%" and clean("abcdef\\rxy") == "xycdef"
    """
    lines = output.replace("\r\n", "\n").split("\n")
    return "\n".join(_overwrite(line) if "\r" in line else line for line in lines).rstrip("\n")


def _overwrite(line: str) -> str:
    """One line as a terminal leaves it: each \r-separated part written over the start of the line."""
    shown = ""
    for part in line.split("\r"):
        shown = part + shown[len(part):]
    return shown


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


def read(path: Path, name: str) -> tuple[dict[str, str], str]:
    """A page's approved outputs ({} when it has none yet), and "" or why the file cannot be read (name: its path
    as messages show it)."""
    if not path.exists():
        return {}, ""
    try:
        return parse(path.read_text(encoding="utf-8"), name), ""
    except ApprovedFileError as error:  # names the file and the line
        return {}, f"{error}; fix or delete the file, then run `make accept`"
    except (UnicodeDecodeError, OSError) as error:
        return {}, f"{name} cannot be read ({error.__class__.__name__}); delete it, then run `make accept`"


def rewritten(data_dir: Path, before: dict[str, tuple[dict[str, str], str]], rel) -> list[str]:
    """The approved files whose content differs from what was read before any block ran: a block rewrote it
    (its mtime and size may be put back; its content cannot be).

    Args:
        data_dir: the approved outputs' folder; before: {page src_uri: read() of its file, before the runs};
        rel: names a path as messages do (from the site root).

    Returns:
        One problem per rewritten file, sorted by page; [] when none changed.

    Example: rewritten(Path("data"), {"index.md": read(Path("data/index.txt"), "data/index.txt")}, str) == []
    """
    problems = []
    for src_uri, read_before in sorted(before.items()):
        path = approved_path(data_dir, src_uri)
        if read(path, rel(path)) != read_before:
            problems.append(f"{rel(path)} changed while the blocks ran (by content, whatever its time and size "
                            "say): a block wrote into it. Approved outputs change only through `make accept`; "
                            "`git diff data/` shows what was written")
    return problems


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

    Lines are split at "\\n" only, as the approved file splits them. In the lines it changes, what a
    reader cannot see is made visible (see show), with a note under the diff saying how.

    Args:
        approved, actual: the two outputs.
        name: the approved file's path, for the "---" label.
        labels: other ("---", "+++") labels, when the diff compares two runs instead.

    Returns:
        The diff's lines joined by "\\n", the note last when something was marked.

    Example: diff("a", "b", "x.txt").splitlines()[2:] == ["@@ -1 +1 @@", "-a", "+b"]
    """
    before, after = labels or (f"approved ({name})", "this build")
    lines = difflib.unified_diff(clean(approved).split("\n"), clean(actual).split("\n"), before, after, lineterm="")
    return "\n".join(show(list(lines)))


def show(lines: list[str]) -> list[str]:
    """A unified diff's lines with the whitespace and invisible characters of its changed lines made visible.

    In each "-" and "+" line (not the two header lines, not context): a trailing space becomes ␠, a
    tab ␉, and a no-break space, zero-width or other invisible character ⟨U+XXXX⟩ (so do the marks
    themselves, when an output prints them). A removed and an added line of one change that still
    may look the same (_alike: a composed é against e and a combining accent, a Cyrillic а against a Latin a)
    show every character beyond printable ASCII as ⟨U+XXXX⟩. A note line, last, says what was marked.

    Args:
        lines: difflib.unified_diff's lines, without line ends.

    Returns:
        The lines, marked, plus the note when anything was marked.

    Example: show(["--- a", "+++ b", "@@ -1 +1 @@", "-x ", "+x"])[3:5] == ["-x␠", "+x"]
    """
    out, used, i = lines[:2], set(), 2
    while i < len(lines):
        if lines[i][:1] not in "-+":
            out.append(lines[i])
            i += 1
            continue
        removed, added = [], []
        while i < len(lines) and lines[i].startswith("-"):
            removed.append(lines[i][1:])
            i += 1
        while i < len(lines) and lines[i].startswith("+"):
            added.append(lines[i][1:])
            i += 1
        alike = {k for k, (a, b) in enumerate(zip(removed, added, strict=False)) if _alike(a, b)}
        for sign, group in (("-", removed), ("+", added)):
            out += [sign + _visible(line, used, k in alike) for k, line in enumerate(group)]
    if used:
        out.append(_note(used))
    return out


def _alike(removed: str, added: str) -> bool:
    """Whether two lines may look the same: equal once normalised (NFKC), or differing only where one is not ASCII."""
    a, b = unicodedata.normalize("NFKC", removed), unicodedata.normalize("NFKC", added)
    if a == b:
        return True
    return len(a) == len(b) and all(x == y or not (x.isascii() and y.isascii()) for x, y in zip(a, b, strict=True))


def _visible(line: str, used: set, everything: bool = False) -> str:
    """line with its trailing spaces, tabs and invisible characters marked (everything: all but printable ASCII)."""
    body = line.rstrip(" \t")
    marked = []
    for char in body:
        if char == "\t":
            marked.append(TAB_MARK)
        elif INVISIBLE.match(char) or (everything and not " " <= char <= "~"):
            marked.append(CODE_MARK.format(ord(char)))
        else:
            marked.append(char)
            continue
        used.add(char)
    for char in line[len(body):]:
        marked.append(SPACE_MARK if char == " " else TAB_MARK)
        used.add(char)
    return "".join(marked)


def _note(used: set) -> str:
    """The line under a diff that says how its changed lines show what cannot be seen."""
    parts = [f"{SPACE_MARK} a trailing space"] if " " in used else []
    if "\t" in used:
        parts.append(f"{TAB_MARK} a tab")
    codes = sorted(ord(c) for c in used if c not in " \t")
    if codes:
        names = ", ".join(f"U+{code:04X} {unicodedata.name(chr(code), 'unnamed').lower()}" for code in codes[:8])
        more = f" and {len(codes) - 8} more" if len(codes) > 8 else ""
        parts.append(f"\u27e8U+XXXX\u27e9 a character by its code point: {names}{more}")
    return f"(shown in the - and + lines so that they differ visibly: {'; '.join(parts)})"


def marked(output: str, mark: str) -> str:
    """An output as the lines a diff adds ("+") or removes ("-"): what `make accept` shows of a new or dropped one.

    Example: marked("a\\nb", "+") == "+a\\n+b"
    """
    return "\n".join(f"{mark}{line}" for line in output.split("\n"))


def indented(diff: str) -> str:
    """A change's diff as the lines under its message, each indented by four spaces; "" for no diff.

    Example: indented("-a\\n+b") == "\\n    -a\\n    +b"
    """
    return "".join(f"\n    {line}" for line in diff.split("\n")) if diff else ""
