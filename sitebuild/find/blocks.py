"""A page's executed code blocks, as Markdown reads them, in page order, each with a stable key.

Markdown is the single source of truth: fences.discover() converts the page with the site's own
Markdown extensions (pymdownx.superfences) and records each fence that asks to run, with its line,
and its code and options exactly as the renderer sees them (tabs expanded, nesting removed), and
whether it reaches the page. So the blocks that run are the blocks the reader sees, with the code
they see. A fence that asks to run but that Markdown shows as text, hides, or gives to no runner
fails the build, naming its line, instead of passing silently.

Each block's key names its entry in the page's approved outputs: the block's `id` option if it
has one, else its language and a hash of its code. A key does not depend on the block's position,
so inserting a block changes only its own entry.

Left out: parsing Markdown ourselves; Markdown decides.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from sitebuild.find import fences as fence_reader
from sitebuild.find.fences import FALSE, is_executed, parse_info  # noqa: F401 - part of this module's API

LANGUAGES = {"python": "python", "py": "python", "bash": "bash", "sh": "bash"}
# markdown-exec fences that render without running code at build time: left to markdown-exec.
NOT_RUN = set(fence_reader.NOT_RUN)
SOURCE_LAYOUTS = ("above", "below", "block", "material-block", "tabbed-left", "tabbed-right", "console")
# Options a block may carry, and what each accepts. Everything else is refused with a reason.
OPTIONS = {
    "exec": "on (or yes, true, 1)",
    "id": "a short name: lowercase letters, digits and dashes",
    "show": "all (source and output, the default), output (output only) or none (a hidden check)",
    "output": "text (shown verbatim, the default) or markdown (rendered, e.g. a Mermaid diagram)",
    "timeout": "seconds, a whole number from 1 to 3600",
    "title": "the title above the source (default Python or Bash)",
    "hl_lines": 'source lines to highlight, counted from 1, e.g. "2" or "1 3-4"',
    "linenums": 'the number of the first source line, e.g. "1", to number the lines',
    "source": "where the source goes: " + ", ".join(SOURCE_LAYOUTS) + " (markdown-exec's layouts)",
    "tabs": 'the two tab titles of a tabbed layout, neither empty, e.g. "Source|Result"',
    "result": "a language to highlight the output with, e.g. json; it stays escaped text",
    "returncode": "the exit code a bash block must end with, a whole number from 0 to 255 (default 0)",
    "workdir": "a folder to run in, relative to the site root and inside it",
    "width": "the terminal width in columns (COLUMNS), a whole number from 20 to 500 (default 100)",
    "updatetoc": "yes or no: whether headings in a Markdown output join the table of contents",
    "idprefix": "a prefix for the HTML ids of headings in a Markdown output",
    "html": "off: the output is never put on the page as raw HTML",
}
REFUSED = {  # markdown-exec options this site cannot honour, and why
    "html": 'html="on" would put the output on the page as live HTML, and this site shows every output as '
    'escaped text; to render generated Markdown (a Mermaid diagram, a table) use output="markdown"',
    "session": "a page's python blocks always share one session, in page order, and each page starts a fresh "
    "one; remove the session option",
    "isolate": "every page already runs in a fresh interpreter of its own; remove the isolate option",
}
SHOW = ("all", "output", "none")
OUTPUT = ("text", "markdown")
ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,59}$")
HL_LINES = re.compile(r"^\d+(?:-\d+)?(?:[ \t]+\d+(?:-\d+)?)*$")
ANNOTATION = re.compile(r"#\s*\(\d+\)!?\s*$")  # Material's code annotation marker, e.g. `# (1)!`
HIDE = "markdown-exec: hide"  # a line ending with this comment runs but is not shown
BIDI = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")  # can make shown code read unlike the run


class BlockError(ValueError):
    """A block an author wrote that the site cannot run as written; the message names the block and line."""


@dataclass(frozen=True)
class Block:
    """One executed code block of a page.

    Attributes:
        index: position among the page's executed blocks, from 1.
        line: line of the opening fence in the page's file (front matter counted), from 1; 0 if unknown.
        language: "python" or "bash".
        code: the block's code as it runs (Markdown's reading: nesting removed, tabs expanded).
        options: the fence's options, as written.
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
        return f"block {self.index} ({self.language}, line {self.line or '?'})"

    @property
    def show(self) -> str:
        """all, output or none: what of the block the page shows."""
        return self.options.get("show", "all")

    @property
    def output_format(self) -> str:
        return self.options.get("output", "text")

    @property
    def layout(self) -> str:
        """Where the source goes relative to the output: one of SOURCE_LAYOUTS (default above)."""
        return self.options.get("source", "above")

    @property
    def shown_code(self) -> str:
        """The code as the page shows it: lines ending in `# markdown-exec: hide` left out."""
        return "\n".join(line for line in self.code.split("\n") if not line.rstrip().endswith(HIDE))

    @property
    def returncode(self) -> int:
        return int(self.options.get("returncode", "0"))

    @property
    def workdir(self) -> str:
        return self.options.get("workdir", "")

    @property
    def width(self) -> int:
        return int(self.options.get("width", "100"))

    def timeout(self, default: float) -> float:
        """Seconds this block may run: its own timeout option, else the site default."""
        return float(self.options.get("timeout", default))

    def run_signature(self, default_timeout: float) -> tuple:
        """Everything about the block that can change what it prints: what a cached run is keyed on.

        Display options (title, hl_lines, show, source, ...) are left out on purpose.
        """
        return (self.language, self.code, self.timeout(default_timeout), self.workdir, self.width)


def normalize(code: str) -> str:
    """Code as compared between two readings: no blank edges, no trailing spaces."""
    return "\n".join(line.rstrip() for line in code.strip("\n").splitlines())


def _whole(text: str, low: int, high: int) -> bool:
    return re.fullmatch(r"[0-9]{1,4}", text) is not None and low <= int(text) <= high


def check_options(language: str, options: dict[str, str], code: str = "") -> None:
    """Raise BlockError naming the first option the site cannot honour, and why; return None when all are fine.

    Args:
        language: "python" or "bash"; options: the fence's options as written; code: the block's code.

    Example: check_options("python", {"exec": "on", "colour": "red"})  # raises BlockError: unknown option ...
    """
    for name, value in options.items():
        if name in REFUSED and not (name == "html" and value.strip().lower() in FALSE):
            raise BlockError(f"option {name}={value!r} is refused: {REFUSED[name]}")
        if name not in OPTIONS:
            bare = " (a word without a value: option names hold letters, digits and underscores, so hl-lines reads " \
                   "as hl and lines; write hl_lines)" if value == name else ""
            accepted = ", ".join(n for n in OPTIONS if n not in REFUSED)
            raise BlockError(f"unknown option {name}={value!r}{bare}; this site's blocks accept: {accepted}")
    checks: dict[str, Callable[[str], bool]] = {
        "id": lambda v: bool(ID.match(v)),
        "show": lambda v: v in SHOW,
        "output": lambda v: v in OUTPUT,
        "timeout": lambda v: _whole(v, 1, 3600),
        "hl_lines": lambda v: bool(HL_LINES.match(v.strip())) and all(int(n) >= 1 for n in re.findall(r"\d+", v)),
        "linenums": lambda v: _whole(v, 1, 9999),
        "source": lambda v: v in SOURCE_LAYOUTS,
        "tabs": lambda v: len(parts := re.split(r"(?<!\\)\|", v)) == 2 and all(p.strip() for p in parts),
        "result": lambda v: re.fullmatch(r"[\w#+.-]{1,30}", v) is not None,
        "returncode": lambda v: _whole(v, 0, 255),
        "workdir": lambda v: v != "" and not v.startswith(("/", "~")) and ".." not in re.split(r"[\\/]", v),
        "width": lambda v: _whole(v, 20, 500),
        "updatetoc": lambda v: v.lower() in {"yes", "no", "on", "off", "true", "false", "1", "0"},
        "idprefix": lambda v: re.fullmatch(r"[A-Za-z0-9_-]{0,30}", v) is not None,
    }
    for name, ok in checks.items():
        if name in options and not ok(options[name]):
            raise BlockError(f"option {name}={options[name]!r} is not valid: expected {OPTIONS[name]}")
    if "show" in options and "source" in options:
        raise BlockError('options show and source both say what to show; keep one (source="above" is show="all")')
    if options.get("output") == "markdown" and ("result" in options or options.get("source") == "console"):
        raise BlockError('output="markdown" renders the output, so it cannot also be highlighted (result) or '
                         'joined to the source (source="console")')
    if language == "python" and options.get("returncode", "0") != "0":
        raise BlockError("returncode applies to bash blocks; a python block that shows an error should catch it "
                         "and print it")
    if "\x00" in code:
        raise BlockError("its code holds a NUL character, which no shell or interpreter takes; remove it")
    for number, line in enumerate(code.split("\n"), start=1):
        if bidi := BIDI.search(line):
            raise BlockError(f"code line {number} holds a bidirectional control character (U+{ord(bidi.group()):04X}), "
                             "which makes the code shown read differently from the code run; remove it")
        if ANNOTATION.search(line):
            raise BlockError(f"code line {number} holds a code annotation marker ({line.strip()!r}); annotations "
                             "are not supported on executed blocks, whose output box would sit between the code and "
                             "its list: annotate a plain fence of the same code instead")


def front_matter_lines(source: str, markdown: str) -> int:
    """How many lines of a page file's source come before its Markdown (the front matter MkDocs strips).

    Args: source: the whole file's text; markdown: its text after front matter. Returns 0 when source does
    not end with markdown. Example: front_matter_lines("---\ntitle: A\n---\n# A\n", "# A\n") == 3
    """
    return source[: len(source) - len(markdown)].count("\n") if source.endswith(markdown) else 0


def page_blocks(markdown: str, make_markdown: Callable | None = None, line_offset: int = 0) -> list[Block]:
    """The executed blocks of a page, keyed, in page order, as Markdown reads them.

    Args:
        markdown: the page's Markdown source, after its front matter.
        make_markdown: a factory of markdown.Markdown configured like the site (fences.site_markdown);
            None for the site's default extensions.
        line_offset: lines before `markdown` in the file (its front matter), so lines count as an editor shows them.

    Returns:
        A list of Block. Keys are unique within the page: a repeated block gets "-2", "-3", ...

    Raises:
        BlockError: a block runs a language other than python or bash (console, pycon), carries an option
            the site cannot honour or a bad value, reuses an id, or a fence asks to run but Markdown reads
            it as text. The message names the block and its line.

    Example: page_blocks('```python exec="on"\\nprint(1)\\n```')[0].key == "python-" + 8 hex digits
    """
    reading = fence_reader.discover(markdown, make_markdown)
    unknown = [(line, lang) for line, lang in reading.as_text if lang not in LANGUAGES and lang not in NOT_RUN]
    for line, language in sorted(unknown + [(line, lang) for line, lang in reading.unrun if lang not in NOT_RUN]):
        raise BlockError(f"line {line + line_offset}: exec is on for language {language!r}, which no runner of this "
                         "site takes: it runs python and bash blocks (written in lower case: python, py, bash, sh)")
    for line, _ in reading.as_text:
        raise BlockError(f"line {line + line_offset}: this fence asks to run, but Markdown reads it as text, so it "
                         "would show as a paragraph and never run; check the fence line (an option Markdown cannot "
                         "parse, a backtick or an unclosed quote in it) and the lines above it (an unclosed fence, "
                         "an indented code block)")
    blocks: list[Block] = []
    used: set[str] = set()
    for index, fence in enumerate(reading.fences, start=1):
        line = fence.line + line_offset if fence.line else 0
        where = f"block {index} ({LANGUAGES.get(fence.language, fence.language)}, line {line or '?'})"
        if fence.language not in LANGUAGES:
            raise BlockError(f"{where}: exec is on for language {fence.language!r}; this site runs python and bash "
                             "blocks")
        if not fence.shown:
            raise BlockError(f"{where}: Markdown shows this fence as text (inside an indented code block?) or hides "
                             "it in an HTML comment, so the page would never show it as a block; fix its indentation, "
                             "or delete the block instead of commenting it out")
        language = LANGUAGES[fence.language]
        try:
            check_options(language, fence.options, fence.code)
        except BlockError as error:
            raise BlockError(f"{where}: {error}") from None
        if "id" in fence.options:
            key = fence.options["id"]
            if key in used:
                raise BlockError(f"{where}: id {key!r} is already used by another block of this page")
        else:
            base = f"{language}-{hashlib.sha256(normalize(fence.code).encode()).hexdigest()[:8]}"
            key, n = base, 1
            while key in used:
                n += 1
                key = f"{base}-{n}"
        used.add(key)
        blocks.append(Block(index, line, language, fence.code, dict(fence.options), key))
    return blocks
