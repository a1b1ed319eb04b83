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
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

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
        shown: True when the fence's HTML reaches the page (not inside an indented code block).
    """

    language: str
    code: str
    options: dict[str, str] = field(default_factory=dict)
    shown: bool = True


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
        configs = {"pymdownx.superfences": {"custom_fences": [
            {"name": name, "class": name, "validator": validator, "format": _plain} for name in NOT_RUN]}}
    configs = dict(configs)
    install(configs)
    chosen = list(extensions or DEFAULT_EXTENSIONS)
    if "pymdownx.superfences" not in chosen:
        chosen.append("pymdownx.superfences")
    if configs.get("pymdownx.tabbed") is None and extensions is None:
        configs["pymdownx.tabbed"] = {"alternate_style": True}
    return lambda: markdown_lib.Markdown(extensions=chosen, extension_configs=configs)


def _plain(src: str, language: str, class_name: str, options: dict, md: markdown_lib.Markdown, **kwargs) -> str:
    return f"<pre><code>{html.escape(src)}</code></pre>"


def _marker(n: int) -> str:
    return f"<!-- sitebuild fence {n} -->"


def discover(markdown: str, make_markdown: Callable[[], markdown_lib.Markdown] | None = None) -> list[Fence]:
    """The executed fences of a page, in the order Markdown renders them, each marked shown or not.

    Args:
        markdown: the page's Markdown (after front matter).
        make_markdown: a factory from site_markdown(); None for the default extensions.

    Example: discover('```bash exec="on"\\necho hi\\n```')[0].code == "echo hi"
    """
    found: list[Fence] = []

    def record(fence: Fence, md: markdown_lib.Markdown) -> str:
        found.append(fence)
        return _marker(len(found))

    with handling(record):
        html = (make_markdown or site_markdown())().convert(markdown)
    return [Fence(f.language, f.code, f.options, _marker(n) in html) for n, f in enumerate(found, start=1)]
