"""The site's pymdownx.superfences entries for executed fences, and the discovery pass built on them.

markdown-exec registers a superfences "custom fence" per language; for the languages this site
runs (python, py, bash, sh) and refuses (pycon, console), install() swaps in this module's
validator and formatter. The validator keeps every option as written and never raises (so a bad
value cannot make superfences silently fall back to showing the fence as plain code); the
formatter hands each fence to whoever handles fences right now:

- discover() converts a page once before any block runs and records each executed fence with the
  code and options Markdown read, and whether its HTML reached the page;
- the hook, while MkDocs renders the page, turns each fence into its source and output boxes.

Left out: running anything. This module only reads fences.
"""

from __future__ import annotations

import contextlib
import html
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

import markdown as markdown_lib

RUN = ("python", "py", "bash", "sh")
REFUSE = ("pycon", "console")  # markdown-exec would run these itself; the site refuses them with a message
NOT_RUN = ("md", "markdown", "tree", "pyodide")  # markdown-exec's fences that run no code at build time
FALSE = {"", "no", "off", "false", "0"}
DEFAULT_EXTENSIONS = [
    "admonition", "attr_list", "md_in_html", "pymdownx.details", "pymdownx.highlight", "pymdownx.superfences",
    "pymdownx.tabbed",
]


@dataclass(frozen=True)
class Fence:
    """An executed fence as Markdown read it.

    Attributes:
        language: as written after the backticks (python, py, bash, ...).
        code: the code Markdown passes to the renderer.
        options: every option of the fence, as written (exec included).
        shown: True when the fence's HTML reaches the page (not inside an indented code block or a comment).
        line: the line of the page it opens on, from 1 (0 when unknown).
    """

    language: str
    code: str
    options: dict[str, str] = field(default_factory=dict)
    shown: bool = True
    line: int = 0


Handler = Callable[[Fence, markdown_lib.Markdown], str]
_handler: Handler | None = None


def validator(language: str, inputs: dict, options: dict, attrs: dict, md: markdown_lib.Markdown) -> bool:
    """superfences validator: accept a fence whose exec option is on, keeping all its options as written."""
    raw = {str(k): str(v) for k, v in inputs.items()}
    if raw.get("exec", "no").strip().lower() in FALSE:
        return False
    options["raw"] = raw
    inputs.clear()
    return True


def formatter(src: str, language: str, class_name: str, options: dict, md: markdown_lib.Markdown,
              id_value: str = "", **kwargs) -> str:
    """superfences formatter: pass the fence to the current handler and return its HTML."""
    raw = dict(options.get("raw", {}))
    if id_value and "id" not in raw:  # the attribute-list form {.python exec="on" id="x"} passes id apart
        raw["id"] = id_value
    fence = Fence(language, src, raw)
    if _handler is None:  # a conversion outside the site's build (another plugin converting Markdown)
        return ('<div class="admonition failure"><p class="admonition-title">This block was not run</p>'
                "<p>It was rendered outside the site's build.</p></div>")
    return _handler(fence, md)


def set_handler(handler: Handler | None) -> None:
    """Make handler receive every executed fence converted from now on (None: no one)."""
    global _handler
    _handler = handler


@contextlib.contextmanager
def handling(handler: Handler) -> Iterator[None]:
    """Make handler receive every executed fence converted inside the with-block."""
    global _handler
    previous, _handler = _handler, handler
    try:
        yield
    finally:
        _handler = previous


def install(mdx_configs: dict) -> None:
    """Point superfences' custom fences for the site's languages at this module (in place).

    Args:
        mdx_configs: MkDocs' config.mdx_configs, after markdown-exec's on_config added its fences.
    """
    superfences = mdx_configs.setdefault("pymdownx.superfences", {})
    fences = superfences.setdefault("custom_fences", [])
    for language in RUN + REFUSE:
        entries = [f for f in fences if f.get("name") == language]
        if not entries:
            entries = [{"name": language, "class": language}]
            fences.append(entries[0])
        for entry in entries:
            entry["validator"] = validator
            entry["format"] = formatter


def site_markdown(extensions: list | None = None, configs: dict | None = None) -> Callable[[], markdown_lib.Markdown]:
    """A factory of Markdown instances configured like the site's pages, with this module's fences installed.

    Args:
        extensions: MkDocs' config.markdown_extensions (None: DEFAULT_EXTENSIONS).
        configs: MkDocs' config.mdx_configs (None: none).

    Example: site_markdown()().convert("# Hi")
    """
    if configs is None:  # outside MkDocs: markdown-exec's other fences, drawn as plain text, so they parse alike
        configs = {"pymdownx.superfences": {"custom_fences": [stand_in(name) for name in NOT_RUN]}}
    configs = dict(configs)
    install(configs)
    chosen = list(extensions or DEFAULT_EXTENSIONS)
    if "pymdownx.superfences" not in chosen:
        chosen.append("pymdownx.superfences")
    if configs.get("pymdownx.tabbed") is None and extensions is None:
        configs["pymdownx.tabbed"] = {"alternate_style": True}
    return lambda: markdown_lib.Markdown(extensions=chosen, extension_configs=configs)


def stand_in(language: str) -> dict:
    """A superfences entry for one of markdown-exec's fences outside MkDocs: read as a fence, drawn as plain text,
    so a page parses alike (markdown-exec's own would import MkDocs).

    Example: stand_in("tree")["name"] == "tree"
    """
    return {"name": language, "class": language, "validator": validator, "format": _plain}


def _plain(src: str, language: str, class_name: str, options: dict, md: markdown_lib.Markdown, **kwargs) -> str:
    return f"<pre><code>{html.escape(src)}</code></pre>"


def _marker_text(n: int) -> str:
    return f"sitebuild fence {n}"


def _marker(n: int) -> str:
    return f"<!-- {_marker_text(n)} -->"


OPENER = re.compile(r"^(?P<prefix>[ \t>]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
OPTION = re.compile(r"""([A-Za-z_][\w-]*)(?:=(?:"([^"]*)"|'([^']*)'|(\S+)))?""")
LINE_MARK = re.compile(r" ?sitebuild_line_(\d+)\b")


def parse_info(info: str) -> tuple[str, dict[str, str]]:
    """Split a fence's info string into its language and options, as superfences reads them.

    Args:
        info: the text after the opening backticks, e.g. `python exec="on" id="plan"`.

    Returns:
        (language as written, lowercased; {option: value}); a bare word is an option whose value is itself.

    Example: parse_info('bash exec="on"') == ("bash", {"exec": "on"})
    """
    info = info.strip()
    if info.startswith("{") and info.endswith("}"):  # the attribute-list form: {.python exec="on"}
        info = info[1:-1].strip()
    language, _, rest = info.partition(" ")
    language = language.lstrip(".")
    if "=" in language:  # no language, only options
        language, rest = "", info
    options = {m.group(1): next((g for g in m.groups()[1:] if g is not None), m.group(1))
               for m in OPTION.finditer(rest)}
    return language.lower(), options


def is_executed(options: dict[str, str]) -> bool:
    """True when a fence asks to run (markdown-exec's reading of the exec option)."""
    return options.get("exec", "no").strip().lower() not in FALSE


@dataclass(frozen=True)
class Reading:
    """What Markdown made of a page's fences that ask to run.

    Attributes:
        fences: the executed fences it handed to the site, in render order, each with its line.
        unrun: (line, language) of fences that ask to run but reached no runner: the fence was read
            as a code block of a language nobody runs here (ruby, PY, ...).
        as_text: (line, language) of fences that ask to run but that Markdown shows as plain text,
            outside any code block (an option it cannot parse, odd indentation, a stray fence above).
    """

    fences: list[Fence]
    unrun: list[tuple[int, str]]
    as_text: list[tuple[int, str]]


def _mark_lines(markdown: str) -> tuple[str, dict[int, str]]:
    """The page with a marker option on every line that opens a fence asking to run; {line: language as written}."""
    lines, candidates = markdown.split("\n"), {}
    for number, line in enumerate(lines, start=1):
        opening = OPENER.match(line)
        if not opening:
            continue
        _, options = parse_info(opening.group("info"))
        if not is_executed(options):
            continue
        written = opening.group("info").strip().lstrip("{").strip().split(" ", 1)[0].lstrip(".")
        candidates[number] = "" if "=" in written else written  # as written: PY is not py to superfences
        text = line.rstrip()
        mark = f"sitebuild_line_{number}"
        lines[number - 1] = f"{text[:-1].rstrip()} {mark}}}" if text.endswith("}") else f"{text} {mark}"
    return "\n".join(lines), candidates


def _context(html_text: str, position: int) -> str:
    """Where a position of the HTML sits: "comment", "code" (inside a code block) or "text"."""
    before = html_text[:position]
    if before.rfind("<!--") > before.rfind("-->"):
        return "comment"
    return "code" if before.rfind("<pre") > before.rfind("</pre>") else "text"  # inline code is text


def discover(markdown: str, make_markdown: Callable[[], markdown_lib.Markdown] | None = None) -> Reading:
    """Read a page's executed fences as Markdown renders them, each with the line it opens on.

    Every line that opens a fence asking to run gets a marker option (`sitebuild_line_N`) for this
    reading only, so each fence Markdown hands over says its line; a marker that shows up elsewhere
    in the HTML says where Markdown put a fence it did not run.

    Args:
        markdown: the page's Markdown (after front matter).
        make_markdown: a factory from site_markdown(); None for the default extensions.

    Example: discover('```bash exec="on"\\necho hi\\n```').fences[0].code == "echo hi"
    """
    marked, candidates = _mark_lines(markdown)
    found: list[Fence] = []
    inside: set[int] = set()  # marked lines that sit inside another fence's code

    def unmark(code: str) -> str:
        inside.update(int(n) for n in LINE_MARK.findall(code) if int(n) in candidates)
        return LINE_MARK.sub(lambda m: "" if int(m.group(1)) in candidates else m.group(0), code)

    def record(fence: Fence, md: markdown_lib.Markdown) -> str:
        options = {k: v for k, v in fence.options.items() if not LINE_MARK.fullmatch(" " + k)}
        line = next((int(k.rsplit("_", 1)[1]) for k in fence.options if LINE_MARK.fullmatch(" " + k)), 0)
        found.append(Fence(fence.language, unmark(fence.code), options, True, line))
        return _marker(len(found))

    with handling(record):
        html_text = (make_markdown or site_markdown())().convert(marked)
    comments = {c.strip() for c in re.findall(r"<!--(.*?)-->", html_text, re.S)}
    fences = [replace(f, shown=_marker_text(n) in comments) for n, f in enumerate(found, start=1)]
    read = {f.line for f in fences} | inside
    unrun, as_text = [], []
    for line, language in candidates.items():
        if line in read:
            continue
        places = {_context(html_text, m.start()) for m in re.finditer(rf"sitebuild_line_{line}\b", html_text)}
        if "text" in places:
            as_text.append((line, language))
        elif not places:
            unrun.append((line, language))
    return Reading(fences, unrun, as_text)
