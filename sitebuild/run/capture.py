"""A block's output as text: what it wrote, decoded, made plain, relative to the repo root, secrets removed.

An output is plain text: terminal escape sequences (colours) are removed, other control characters are written
as \\xNN, bidirectional controls as \\uNNNN. It never holds the build machine's paths: the repo root becomes
relative. The builder's secrets are removed from it as it is read (leaks.redact), from what was printed and from
the text as a terminal shows it (approved.clean).

Left out: checking the output for machine-specific values (verify/outputs.py, with leaks.py).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from sitebuild.run.leaks import redact
from sitebuild.verify import approved

# Terminal escape sequences: CSI (colours, cursor moves), OSC (titles, hyperlinks), and two-byte ones.
ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves
    r"|\x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)?"  # OSC: window titles, hyperlinks (an unended one stops at the line end)
    r"|\x1b[ -/]+[0-~]"  # nF: character set choices such as ESC ( B
    r"|\x1b[0-~]"  # two-byte escapes
    r"|\x9b[0-?]*[ -/]*[@-~]"  # CSI as one byte
)
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")  # what is left: shown as \\xNN
BIDI = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")  # reorder text on screen: shown as \\uNNNN
CAPTURE_LIMIT = 1_000_000  # bytes of a block's output read back; more is refused unread (see read_capture)


def plain_text(output: str) -> str:
    """An output as a reader should see it: escape sequences removed, other control characters as \\xNN,
    bidirectional controls (which could make text read unlike what was printed) as \\uNNNN.

    Example: plain_text("\x1b[32mgreen\x1b[0m plain\x07") == "green plain\\x07"
    """
    output = ESCAPES.sub("", output)
    output = BIDI.sub(lambda m: f"\\u{ord(m.group(0)):04x}", output)
    return CONTROL.sub(lambda m: f"\\x{ord(m.group(0)):02x}", output)


def relative(output: str, root: Path) -> str:
    """Replace the repo root's absolute path with a relative one: "/x/repo/kit/a.py" -> "kit/a.py"."""
    for base in {str(root), str(root.resolve())}:
        output = output.replace(base + os.sep, "")
        output = re.sub(re.escape(base) + r"(?![\w-]|\.[\w-])", ".", output)  # the root, not /x/repo2 or /x/repo.bak
    return output


def read_capture(capture) -> tuple[bytes, str]:
    """A capture file's bytes, and "" or the problem when it holds more than CAPTURE_LIMIT (then left unread)."""
    size = capture.seek(0, os.SEEK_END)
    capture.seek(0)
    if size > CAPTURE_LIMIT:
        head = capture.read(2000)
        return head, f"printed {size} bytes, more than a page can show; print a summary instead"
    return capture.read(), ""


def captured(raw: bytes, root: Path) -> str:
    """Bytes a block wrote, as the output the site shows and compares: decoded, plain text, root relative, and
    the builder's secrets removed (leaks.redact), before anything compares, shows or stores it: from what was
    printed, and from the text as shown (approved.clean: a "\r" can join two harmless pieces into a secret).

    A byte that is not part of valid UTF-8 shows as \\xNN (never U+FFFD); undecodable() names the first.
    """
    text = redact(relative(plain_text(raw.decode("utf-8", "backslashreplace")), root))
    shown = approved.clean(text)  # the text as a terminal shows it: "\r" joins what was printed apart
    return redact(shown) if redact(shown) != shown else text  # a secret only the shown text holds: that text


def undecodable(raw: bytes) -> str:
    """"" when bytes a block wrote are valid UTF-8; else a problem naming where the first invalid byte is.

    Args:
        raw: everything the block wrote to stdout and stderr.

    Returns:
        "" or a one-line problem: the invalid bytes as \\xNN, their line, and their byte in that line and in the output.

    Example: undecodable(b"ok\\ncaf\\xe9\\n").startswith("printed bytes that are not valid UTF-8: \\\\xe9 on line 2")
    """
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        column = error.start - raw.rfind(b"\n", 0, error.start)
        bad = "".join(f"\\x{byte:02x}" for byte in raw[error.start:error.end])
        return (f"printed bytes that are not valid UTF-8: {bad} on line {line}, byte {column} of the line "
                f"(byte {error.start + 1} of the output, shown as \\xNN); print text: decode the bytes, or print "
                "their repr()")
    return ""
