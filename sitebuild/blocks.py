"""Find the executed code blocks of a page, in page order, and give each a stable key.

A page's Markdown is scanned for markdown-exec fences (```` ```python exec="on" ```` and
```` ```bash exec="on" ````), including fences nested in admonitions or tabs. Fences that do not
execute, and anything inside them, are skipped, so a page can show an exec fence as an example.

Each block's key names its entry in the page's approved outputs: the block's `id` option if it
has one, else its language and a hash of its code. A key does not depend on the block's position,
so inserting a block changes only its own entry.

Left out: parsing Markdown in full. The scanner knows fences, which is all a block needs.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

LANGUAGES = {"python": "python", "py": "python", "bash": "bash", "sh": "bash"}
# markdown-exec fences that render without running code at build time: left to markdown-exec.
NOT_RUN = {"md", "markdown", "tree", "pyodide"}
# Options a block may carry, and what each accepts. Everything else is an author's typo.
OPTIONS = {
    "exec": "on",
    "id": "a short name: lowercase letters, digits and dashes",
    "show": "all (source and output, the default), output (output only) or none (a hidden check)",
    "output": "text (shown verbatim, the default) or markdown (rendered, e.g. a Mermaid diagram)",
    "timeout": "seconds, a whole number from 1 to 3600",
    "title": "the title above the source (default Python or Bash)",
}
SHOW = ("all", "output", "none")
OUTPUT = ("text", "markdown")
ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,59}$")
FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`]*?)[ \t]*$")
OPTION = re.compile(r"""([A-Za-z_][\w-]*)=(?:"([^"]*)"|'([^']*)'|(\S+))""")
FALSE = {"", "no", "off", "false", "0"}


class BlockError(ValueError):
    """A block an author wrote that the site cannot run: an unknown option or a bad value."""


@dataclass(frozen=True)
class Block:
    """One executed code block of a page.

    Attributes:
        index: position among the page's executed blocks, from 1.
        line: line of the opening fence in the page, from 1.
        language: "python" or "bash".
        code: the block's code, with the fence's indentation removed.
        options: the fence's options, as written (exec, id, show, output, timeout, title).
        key: the block's entry in the approved outputs (see module docstring).
    """

    index: int
    line: int
    language: str
    code: str
    options: dict[str, str] = field(default_factory=dict)
    key: str = ""

    @property
    def label(self) -> str:
        """How messages name the block, e.g. "block 3 (python, line 120)"."""
        return f"block {self.index} ({self.language}, line {self.line})"

    @property
    def show(self) -> str:
        return self.options.get("show", "all")

    @property
    def output_format(self) -> str:
        return self.options.get("output", "text")

    def timeout(self, default: float) -> float:
        """Seconds this block may run: its own timeout option, else the site default."""
        return float(self.options.get("timeout", default))


def normalize(code: str) -> str:
    """Code as compared between the scanner and the formatter: no blank edges, no trailing spaces."""
    return "\n".join(line.rstrip() for line in code.strip("\n").splitlines())


def parse_info(info: str) -> tuple[str, dict[str, str]]:
    """Split a fence's info string into its language and options.

    Args:
        info: the text after the opening backticks, e.g. `python exec="on" id="plan"`.

    Returns:
        (language as written, {option: value}); language is "" when there is none.

    Example: parse_info('bash exec="on"') == ("bash", {"exec": "on"})
    """
    info = info.strip()
    if info.startswith("{") and info.endswith("}"):  # the attribute-list form: {.python exec="on"}
        info = info[1:-1].strip()
    language, _, rest = info.partition(" ")
    language = language.lstrip(".")
    if "=" in language:  # no language, only options
        language, rest = "", info
    options = {m.group(1): next(g for g in m.groups()[1:] if g is not None) for m in OPTION.finditer(rest)}
    return language.lower(), options


def is_executed(options: dict[str, str]) -> bool:
    """True when a fence asks to run (markdown-exec's reading of the exec option)."""
    return options.get("exec", "no").strip().lower() not in FALSE


def check_options(options: dict[str, str]) -> None:
    """Raise BlockError naming the first unknown option or bad value; return None when all are fine."""
    for name, value in options.items():
        if name not in OPTIONS:
            known = ", ".join(OPTIONS)
            raise BlockError(f"unknown option {name}={value!r}; this site's blocks accept: {known}")
    checks = {
        "id": lambda v: bool(ID.match(v)),
        "show": lambda v: v in SHOW,
        "output": lambda v: v in OUTPUT,
        "timeout": lambda v: re.fullmatch(r"[0-9]{1,4}", v) is not None and 1 <= int(v) <= 3600,
    }
    for name, ok in checks.items():
        if name in options and not ok(options[name]):
            raise BlockError(f"option {name}={options[name]!r} is not valid: expected {OPTIONS[name]}")


def _closes(line: str, fence: str) -> bool:
    stripped = line.strip()
    return len(stripped) >= len(fence) and set(stripped) == {fence[0]}


def _dedent(lines: list[str], indent: str) -> str:
    return "\n".join(line[len(indent):] if line.startswith(indent) else line.lstrip() for line in lines)


def scan(markdown: str) -> list[tuple[int, str, str, dict[str, str]]]:
    """Find the executed fences of a page.

    Args:
        markdown: the page's Markdown source.

    Returns:
        One (line, language as written, code, options) per executed fence, in page order.
        An unclosed executed fence runs to the end of the page, as in Markdown.

    Example: scan('```bash exec="on"\\necho hi\\n```') == [(1, "bash", "echo hi", {"exec": "on"})]
    """
    lines = markdown.splitlines()
    found, i = [], 0
    while i < len(lines):
        opening = FENCE_OPEN.match(lines[i])
        if not opening:
            i += 1
            continue
        fence, indent = opening.group("fence"), opening.group("indent")
        language, options = parse_info(opening.group("info"))
        end = i + 1
        while end < len(lines) and not _closes(lines[end], fence):
            end += 1
        if is_executed(options):
            found.append((i + 1, language, _dedent(lines[i + 1 : end], indent), options))
        i = end + 1
    return found


def page_blocks(markdown: str) -> list[Block]:
    """The executed blocks of a page, keyed, in page order.

    Args:
        markdown: the page's Markdown source.

    Returns:
        A list of Block. Keys are unique within the page: a repeated block gets "-2", "-3", ...

    Raises:
        BlockError: a block runs a language other than python or bash (console, pycon), an unknown option,
            a bad option value, or an id another block already uses. The message names the line.

    Example: page_blocks('```python exec="on"\\nprint(1)\\n```')[0].key == "python-" + 8 hex digits
    """
    blocks: list[Block] = []
    used: set[str] = set()
    runnable = [fence for fence in scan(markdown) if fence[1] not in NOT_RUN]
    for index, (line, language, code, options) in enumerate(runnable, start=1):
        where = f"block {index} (line {line})"
        if language not in LANGUAGES:
            raise BlockError(f"{where}: exec is on for language {language!r}; this site runs python and bash blocks")
        try:
            check_options(options)
        except BlockError as error:
            raise BlockError(f"{where}: {error}") from None
        lang = LANGUAGES[language]
        if "id" in options:
            key = options["id"]
            if key in used:
                raise BlockError(f"{where}: id {key!r} is already used by another block of this page")
        else:
            base = f"{lang}-{hashlib.sha256(normalize(code).encode()).hexdigest()[:8]}"
            key, n = base, 1
            while key in used:
                n += 1
                key = f"{base}-{n}"
        used.add(key)
        blocks.append(Block(index, line, lang, code, options, key))
    return blocks
