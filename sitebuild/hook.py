"""MkDocs hook: run every python and bash block through the site's runner, verify, and render.

markdown-exec stays the authoring syntax; this hook swaps its python and bash formatters (the
public `markdown_exec.formatters` mapping) for ours. For each page, on_page_markdown runs all the
page's blocks in page order, one fresh interpreter per page, and checks them against the approved
outputs in data/; the formatters then render each block from those results: the source titled
"Python" or "Bash", then the output verbatim, titled "Output".

Modes, from the SITEBUILD_MODE environment variable:
- build (default, `make site`): every failure is logged with page, block and reason; the build fails.
- serve (`make serve`, set by on_startup): failures are shown on the page itself and logged; serving goes on.
- accept (`make accept`): new and changed outputs are approved, stale ones dropped, and each change printed.

Left out: running blocks in the MkDocs process, which would keep kit modules cached between rebuilds.
"""

from __future__ import annotations

import html
import logging
import os
import re
import sys
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

# A rebuild in `make serve` loads this hook anew; drop the machinery's cached modules so edits show.
for _name in [m for m in sys.modules if m == "sitebuild" or m.startswith("sitebuild.")]:
    del sys.modules[_name]
_MACHINERY_PARENT = str(Path(__file__).resolve().parents[1])
if _MACHINERY_PARENT not in sys.path:
    sys.path.insert(0, _MACHINERY_PARENT)

import markdown_exec  # noqa: E402
from markdown_exec import MarkdownConverter, code_block  # noqa: E402
from mkdocs.exceptions import PluginError  # noqa: E402
from mkdocs.plugins import get_plugin_logger  # noqa: E402

from sitebuild import approved, crosslinks  # noqa: E402
from sitebuild.blocks import BlockError, normalize, page_blocks  # noqa: E402
from sitebuild.verify import PageReport, accept, refuse_unstable, run_blocks, verify  # noqa: E402

log = get_plugin_logger("verified-blocks")
MODE_ENV = "SITEBUILD_MODE"
MODES = ("build", "serve", "accept")
TITLES = {"python": "Python", "bash": "Bash"}
MARKER = re.compile(r"<!-- sitebuild block \S+ -->")


@dataclass
class SiteState:
    """What one build knows: its mode, where things are, and each page's report."""

    mode: str
    root: Path
    docs_dir: Path
    data_dir: Path
    timeout: float
    reports: dict[str, PageReport] = field(default_factory=dict)
    current: PageReport | None = None
    problems: list[str] = field(default_factory=list)
    warnings: list[str] | None = None  # in serve mode: MkDocs' own warnings (links, anchors), to show on pages
    destinations: dict[str, str] = field(default_factory=dict)  # page src_uri -> its built HTML file

    def rel(self, path: Path) -> str:
        return path.resolve().relative_to(self.root).as_posix()


_site: SiteState | None = None


def on_startup(command: str, dirty: bool) -> None:
    if command == "serve":
        os.environ[MODE_ENV] = "serve"  # survives the hook's reload on every rebuild


def on_config(config):
    global _site
    mode = os.environ.get(MODE_ENV, "build")
    if mode not in MODES:
        raise PluginError(f"{MODE_ENV}={mode!r} is not a mode; expected one of {', '.join(MODES)}")
    root = Path(config.config_file_path).resolve().parent
    timeout = config.extra.get("block_timeout", 60)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout <= 3600:
        raise PluginError(f"mkdocs.yml extra.block_timeout={timeout!r}: expected a number of seconds from 1 to 3600")
    _site = SiteState(mode, root, Path(config.docs_dir).resolve(), root / "data", float(timeout))
    if mode == "serve":
        config.strict = False  # serving goes on through failures; they show on the page instead
        _site.warnings = _watch_mkdocs_warnings()
    for language in ("python", "py"):
        markdown_exec.formatters[language] = partial(format_block, language="python")
    for language in ("bash", "sh"):
        markdown_exec.formatters[language] = partial(format_block, language="bash")
    for language in ("pycon", "console"):  # markdown-exec would run these itself, pycon inside this process
        markdown_exec.formatters[language] = partial(refuse_block, language=language)
    return config


def on_page_markdown(markdown: str, page, config, files) -> str:
    site = _site
    page_path = site.rel(site.docs_dir / page.file.src_uri)
    approved_file = approved.approved_path(site.data_dir, page.file.src_uri)
    report = PageReport(page_path, site.rel(approved_file))
    site.reports[page.file.src_uri] = report
    site.destinations[page.file.src_uri] = page.file.abs_dest_path
    site.current = report
    try:
        blocks, scanned = page_blocks(markdown), True
    except BlockError as error:
        report.problems.append(str(error))
        blocks, scanned = [], False
    approved_outputs, file_problem = _read_approved(approved_file, report.approved_file)
    if file_problem:
        report.problems.append(file_problem)
    results = run_blocks(blocks, site.root, page_path, site.timeout)
    verify(report, blocks, results, approved_outputs)
    if site.mode == "accept" and not file_problem and scanned:  # never approve what could not be read
        refuse_unstable(report, run_blocks(blocks, site.root, page_path, site.timeout))
        accept(report, approved_outputs, approved_file)
    if report.page_problems:
        boxes = "".join(_failure_box("This page failed verification", p) for p in report.page_problems)
        markdown = boxes + "\n\n" + markdown
    return markdown


def _read_approved(path: Path, name: str) -> tuple[dict[str, str], str]:
    """A page's approved outputs ({} when it has none yet), and "" or why the file cannot be read."""
    if not path.exists():
        return {}, ""
    try:
        return approved.parse(path.read_text(encoding="utf-8"), name), ""
    except approved.ApprovedFileError as error:  # names the file and the line
        return {}, f"{error}; fix or delete the file, then run `make accept`"
    except (UnicodeDecodeError, OSError) as error:
        return {}, f"{name} cannot be read ({error.__class__.__name__}); delete it, then run `make accept`"


def on_page_content(html_text: str, page, config, files) -> str:
    """After rendering: every block that ran must be on the page; then log the page's failures."""
    report = _site.reports[page.file.src_uri]
    # Markdown may call a formatter and still drop its HTML (a fence inside an indented code block),
    # so a block counts as shown only when its marker reached the page.
    hidden = [o.block for o in report.outcomes if _marker(o.block.key) not in html_text]
    html_text = MARKER.sub("", html_text)
    unseen = [
        f"{block.label} ran, but the page does not show it as a block (an indented code block, "
        "or a fence Markdown reads as text?); fix its fence"
        for block in hidden
    ]
    unseen += crosslinks.check_page(page.file.src_uri, page.file.content_string, config.nav)  # unlinked course pages
    report.problems.extend(unseen)
    for message in report.failures():
        (log.warning if _site.mode == "serve" else log.error)(message)
    return "".join(_failure_box("This page failed verification", p) for p in unseen) + html_text


def format_block(*, code: str, md, language: str, **options) -> str:
    """markdown-exec's formatter for python and bash blocks: render the block from this build's results."""
    report = _site.current
    outcome = next(
        (
            o
            for o in report.outcomes
            if not o.rendered and o.block.language == language and normalize(o.block.code) == normalize(code)
        ),
        None,
    )
    if outcome is None:
        reason = "; ".join(report.problems) or "the site's block scanner did not find it"
        if not report.problems:
            report.problems.append(f"a {language} block was rendered but not run: {reason}")
        return _failure_box("This block was not run", reason)
    outcome.rendered = True
    title = options.get("extra", {}).get("title", TITLES[language])
    parts = []
    if outcome.block.show == "all":
        parts.append(code_block(language, code, title=title))
    if outcome.block.show != "none" and outcome.output:
        if outcome.block.output_format == "markdown":
            parts.append(outcome.output)
        else:
            parts.append(code_block("text", outcome.output, title="Output"))
    # str(): convert() returns markupsafe.Markup, and str + Markup would escape the failure box into text
    rendered = str(MarkdownConverter(md).convert("\n\n".join(parts))) if parts else ""
    if outcome.problem:
        rendered = _failure_box(f"{outcome.block.label}: {outcome.problem}", outcome.detail, md) + rendered
    return _marker(outcome.block.key) + rendered


def _marker(key: str) -> str:
    return f"<!-- sitebuild block {key} -->"


def refuse_block(*, code: str, md, language: str, **options) -> str:
    """markdown-exec's formatter for pycon and console blocks: never run them (blocks.py refuses them)."""
    report = _site.current
    if not report.problems:
        report.problems.append(f"exec is on for a {language} block; this site runs python and bash blocks")
    return _failure_box("This block was not run", "; ".join(report.problems))


def _failure_box(title: str, detail: str, md=None) -> str:
    """A red admonition naming the failure, with the diff (highlighted as one) or the output below it."""
    body = f"<pre><code>{html.escape(detail)}</code></pre>" if detail else ""
    if detail and md is not None:
        language = "diff" if detail.startswith("--- approved") else "text"
        body = str(MarkdownConverter(md).convert(code_block(language, detail)))
    return (
        f'<div class="admonition failure"><p class="admonition-title">{html.escape(title)}</p>{body}</div>\n'
    )


class _WarningList(logging.Handler):
    """Keeps the text of MkDocs' own warnings (not this hook's) during one serve rebuild."""

    def __init__(self, messages: list[str]) -> None:
        super().__init__(logging.WARNING)
        self.messages = messages

    def emit(self, record: logging.LogRecord) -> None:
        if not record.name.startswith(log.name):
            self.messages.append(record.getMessage())


def _watch_mkdocs_warnings() -> list[str]:
    mkdocs_log = logging.getLogger("mkdocs")
    for old in [h for h in mkdocs_log.handlers if type(h).__name__ == "_WarningList"]:  # from the last rebuild
        mkdocs_log.removeHandler(old)
    messages: list[str] = []
    mkdocs_log.addHandler(_WarningList(messages))
    return messages


def _show_link_warnings(site: SiteState) -> None:
    """Serve mode: put MkDocs' warnings about a page (broken links and anchors) on the page itself."""
    for src_uri in site.reports:
        found = [m for m in site.warnings if m.startswith(f"Doc file '{src_uri}'")]
        page_file = Path(site.destinations[src_uri])
        if not found or not page_file.is_file():
            continue
        text = page_file.read_text(encoding="utf-8")
        start = text.find(">", text.find("<article")) + 1
        if start:
            boxes = "".join(_failure_box("This page has a broken link", m) for m in found)
            page_file.write_text(text[:start] + boxes + text[start:], encoding="utf-8")


def on_post_build(config) -> None:
    site = _site
    if site.warnings is not None:
        _show_link_warnings(site)
    expected = {approved.approved_path(site.data_dir, src).resolve() for src in site.reports}
    changes = [c for r in site.reports.values() for c in r.changes]
    for path in sorted(site.data_dir.rglob("*.txt")) if site.data_dir.is_dir() else []:
        if path.resolve() in expected:
            continue
        if site.mode == "accept":
            path.unlink()
            changes.append(f"{site.rel(path)}: removed (its page is gone)")
        else:
            site.problems.append(
                f"{site.rel(path)} holds approved outputs of a page that does not exist; "
                "run `make accept` to remove it"
            )
    failures = [m for r in site.reports.values() for m in r.failures()] + site.problems
    for problem in site.problems:
        log.error(problem)
    if site.mode == "accept":
        for change in changes:
            print(f"accepted: {change}")
        if failures:
            print(f"accept: {len(failures)} failure(s) remain, logged above; those blocks' outputs were not approved")
        elif not changes:
            print("accept: nothing to rewrite, every approved output is current")
    if failures and site.mode != "serve":
        pages = len({m.split(",")[0].split(":")[0] for m in failures})
        raise PluginError(
            f"{len(failures)} verification failure(s) on {pages} page(s); each is logged above with page, "
            "block and reason. Fix the page or the kit; if an output change is intended, run `make accept`."
        )
