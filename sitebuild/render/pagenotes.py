"""What serve shows on a page besides its blocks: MkDocs' own warnings about it, and its failures at the top.

Helpers of hook.py (MkDocs-specific): in `make serve`, a broken link or anchor (MkDocs' own warning) is put
on the page it is about, and a page with a failing block starts with a box that lists each failure and
links to its block (the block's own red box carries the id block_anchor gives it), so a failure far down a long
page is seen at once; the red box at the block stays. A --dirty build's INFO line is written here too.
"""

from __future__ import annotations

import html
import logging
import re
from pathlib import Path

from sitebuild.render import render


def _link(anchor: str, text: str) -> str:
    return f'<a href="#{html.escape(anchor)}">{html.escape(text)}</a>' if anchor else html.escape(text)


def block_anchor(key: str) -> str:
    """The id of a block's place on its page, for the failures box's links.

    Example: block_anchor("python-1a2b3c4d") == "block-python-1a2b3c4d"
    """
    return f"block-{key}"


FIRST_TAG = re.compile(r"^(\s*<[a-zA-Z][\w-]*)(?P<rest>[^>]*)>")
ID = re.compile(r"""\sid=(["'])(?P<id>[^"']*)\1""")


def anchored(block_html: str, anchor: str) -> tuple[str, str]:
    """HTML (a failing block's red box) with an id on its first element, no element added (a collapsed box's first
    child stays its own), and the id a link to it uses: anchor, or the id that element already has.

    Example: anchored('<div class="box">', "block-x") == ('<div class="box" id="block-x">', "block-x")
    """
    first = FIRST_TAG.match(block_html)
    if first is None:
        return block_html, ""
    if found := ID.search(first["rest"]):
        return block_html, found["id"]
    return f'{first[1]}{first["rest"]} id="{anchor}"{block_html[first.end("rest"):]}', anchor


def failures_box(report) -> str:
    """The box at the top of a page with failing blocks: one line per failure, linked to its block; "" when none.

    Args:
        report: the page's verify.PageReport after rendering (each outcome's problem, "" when it passed).

    Returns:
        HTML of a red admonition, escaped, or "" when every block passed.

    Example: failures_box(report)  # '<div class="admonition failure" id="sitebuild-failures">...'
    """
    failing = [o for o in report.outcomes if o.problem]
    if not failing:
        return ""
    items = "".join(f"<li>{_link(block_anchor(o.block.key), o.block.label)}: {html.escape(o.problem)}</li>"
                    for o in failing)
    return (f'<div class="admonition failure" id="sitebuild-failures"><p class="admonition-title">'
            f"{len(failing)} block(s) of this page failed; each link leads to its block</p><ul>{items}</ul></div>\n")


class _WarningList(logging.Handler):
    """Keeps the text of MkDocs' own warnings (not this hook's) during one serve rebuild."""

    def __init__(self, messages: list[str]) -> None:
        super().__init__(logging.WARNING)
        self.messages = messages

    def emit(self, record: logging.LogRecord) -> None:
        if not record.name.startswith("mkdocs.plugins.verified-blocks"):
            self.messages.append(record.getMessage())


def watch_mkdocs_warnings() -> list[str]:
    """Keep MkDocs' own warnings of this rebuild (not the hook's) in the list returned, as they are logged.

    Example: warnings = watch_mkdocs_warnings()  # filled while the build runs
    """
    mkdocs_log = logging.getLogger("mkdocs")
    for old in [h for h in mkdocs_log.handlers if type(h).__name__ == "_WarningList"]:  # from the last rebuild
        mkdocs_log.removeHandler(old)
    messages: list[str] = []
    mkdocs_log.addHandler(_WarningList(messages))
    return messages


def show_link_warnings(site) -> None:
    """Serve mode: put MkDocs' warnings about a page (broken links and anchors) on the page itself.

    Args:
        site: the hook's SiteState (its warnings, reports and each page's built HTML file).

    Example: show_link_warnings(site)  # each page a warning names gets a red box at the top of its article
    """
    for src_uri in site.reports:
        found = [m for m in site.warnings if m.startswith(f"Doc file '{src_uri}'")]
        page_file = Path(site.destinations[src_uri])
        if not found or not page_file.is_file():
            continue
        text = page_file.read_text(encoding="utf-8")
        start = text.find(">", text.find("<article")) + 1
        if start:
            boxes = "".join(render.failure_box("This page has a broken link", m) for m in found)
            page_file.write_text(text[:start] + boxes + text[start:], encoding="utf-8")


def log_dirty(site, log) -> None:
    """The INFO line of a --dirty build: which pages were verified, and how many were not.

    Args:
        site: the hook's SiteState; log: the hook's logger.

    Example: log_dirty(site, log)  # "--dirty: ran and verified only the 1 page(s) MkDocs rebuilt (docs/a.md); ..."
    """
    rebuilt = sorted(site.rel(site.docs_dir / src) for src in site.reports)
    names = ", ".join(rebuilt[:5]) + (f" and {len(rebuilt) - 5} more" if len(rebuilt) > 5 else "")
    others = len(site.pages - set(site.reports))
    log.info(f"--dirty: ran and verified only the {len(rebuilt)} page(s) MkDocs rebuilt ({names or 'none'}); "
             f"the other {others} page(s) were not run or checked against data/. `make site` verifies every page.")
