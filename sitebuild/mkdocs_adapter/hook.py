"""The MkDocs side of a build, called by the site's plugin (plugin.py): run every python and bash block through
the site's runner (or read its results from a check's results folder, results.py), verify, and render.

markdown-exec fences stay the authoring syntax; fences.install() points superfences' fences for
python and bash at this machinery. A build goes:

1. on_files: with the plugin's `downloads: true`, the kit download and each course page's notebook and script
   are added to the build's files (gen_downloads.py, gen_notebooks.py). Each page is read as MkDocs will read
   it, and Markdown finds its executed blocks (blocks.page_blocks); each page's blocks are queued to run in a
   pool of `block_jobs` workers (default: one per CPU), one fresh interpreter per page. With `results:`, no
   block runs: each page's results are read from the check's folder, refused when stale (stale.current).
   In `make serve`, a page whose run would be the same as last time reuses its cached results instead
   (cache.py); every build stores the runs that passed, with what each read (audit.py), so the first serve
   after `make site` is warm.
2. on_page_markdown: waits for the page's results and holds them against its approved outputs.
3. While MkDocs renders the page, each fence is drawn from those results (render.py): the source
   titled "Python" or "Bash", then the output, escaped, titled "Output"; a block that passed carries its mark
   (marks.py), which `make site` checks after the build.
4. on_page_content: puts the page's failures on it and logs them, in page order.
5. SIGINT or SIGTERM while pages run kills every running block at once, says so, exits 128 + N (_interrupt).

Modes, from the SITEBUILD_MODE environment variable:
- build (default, `make site`): every failure is logged with page, block and reason; the build fails.
- serve (`make serve`, set by on_startup): failures are shown on the page itself and logged; serving goes on.
- accept (`make accept`): new and changed outputs are approved, stale ones dropped, and each change printed.

`mkdocs build --dirty` (or `serve --dirty`; on_startup keeps it in SITEBUILD_DIRTY, which outlives the
machinery's reload in serve, plugin.py): only the pages MkDocs rebuilds (their source is newer than their built
HTML) are run and verified, and one INFO line says so. An approved file counts as stale only when its page is gone.

Left out: running blocks in the MkDocs process, which would keep kit modules cached between rebuilds.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import signal
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import get_plugin_logger
from mkdocs.structure.files import File
from mkdocs.utils.meta import get_data

from sitebuild.course import chrome, crosslinks, nextlink  # noqa: F401 - chrome: plugin.py calls it through here
from sitebuild.find import fences, siteconfig
from sitebuild.find.inputs import Inputs
from sitebuild.logs import uncounted
from sitebuild.mkdocs_adapter.sitefolder import DIRTY_ENV, site_entries, strays
from sitebuild.mkdocs_adapter.state import WRITES_FILE, SiteState, diagram_files, keep_writing_pages
from sitebuild.publish import diagrams, gen_downloads, gen_notebooks
from sitebuild.render import mdoutput, pagelinks, pagenotes, render
from sitebuild.run import audit, cache, reads, sandbox
from sitebuild.run.guard import WROTE, site_guard
from sitebuild.run.launchers import PagePool
from sitebuild.verify import approved, marks, results, stale
from sitebuild.verify.outputs import PageReport, accept, refuse_unstable, verify

log = get_plugin_logger("verified-blocks")
record_log = uncounted("sitebuild.marks")  # a record that cannot be written never fails the build itself (logs.py)
MODE_ENV = "SITEBUILD_MODE"
MODES = ("build", "serve", "accept")
MARKER = re.compile(r"<!-- sitebuild block \S+ -->")


def _approved_changed(site: SiteState) -> list[str]:
    """An approved file whose content differs from what the build read before any block ran (approved.rewritten)."""
    return approved.rewritten(site.data_dir, site.approved, site.rel)


_site: SiteState | None = None


def on_startup(command: str, dirty: bool) -> None:
    if command == "serve":
        os.environ[MODE_ENV] = "serve"  # survives the machinery's reload in serve (plugin.py)
    if dirty:
        os.environ[DIRTY_ENV] = "1"
    else:
        os.environ.pop(DIRTY_ENV, None)  # a build in the same process after a dirty one is not dirty


def on_config(config, options) -> object:
    """Set up the build from MkDocs' config and the plugin's options (plugin.VerifiedBlocksConfig, already checked)."""
    global _site
    mode = os.environ.get(MODE_ENV, "build")
    if mode not in MODES:
        raise PluginError(f"{MODE_ENV}={mode!r} is not a mode; expected one of {', '.join(MODES)}")
    root = Path(config.config_file_path).resolve().parent
    try:
        settings = siteconfig.block_settings({name: options.get(name) for name in siteconfig.OPTIONS})
    except siteconfig.SettingError as error:
        raise PluginError(str(error)) from None
    _site = SiteState(mode, root, Path(config.docs_dir).resolve(), root / "data", settings.timeout, settings.jobs,
                      settings.inputs, dirty=os.environ.get(DIRTY_ENV) == "1", site_dir=Path(config.site_dir),
                      memory=settings.memory, downloads=bool(options.get("downloads")),
                      results_dir=(root / settings.results) if settings.results and mode != "accept" else None)
    if settings.results and mode == "accept":
        log.info(f"results: {settings.results} is not read: `make accept` runs every block, twice")
    if mode == "build":  # a build that does not end well leaves no record of verifying anything (marks.py)
        marks.forget(root, Path(config.site_dir))
    if mode == "serve":
        config.strict = False  # serving goes on through failures; they show on the page instead
        _site.warnings = pagenotes.watch_mkdocs_warnings()
    return config


def _downloads(files, config) -> None:
    """The kit download and each course page's notebook and script, added to the build's files (gen_downloads.py,
    gen_notebooks.py), before any page is read."""
    archive = gen_downloads.kit_download(gen_downloads.ROOT, config.nav, Path(config.docs_dir), config.site_url or "")
    files.append(File.generated(config, gen_downloads.DOWNLOAD, content=archive))
    made: dict[str, io.StringIO] = {}

    def open_file(path: str, mode: str):
        made[path] = io.StringIO()
        return contextlib.nullcontext(made[path])

    gen_notebooks.write_all(_site.root, config.nav, config.extra.get("courses") or {}, open_file,
                            config.site_url or "")
    for path, text in made.items():
        files.append(File.generated(config, path, content=text.getvalue().encode("utf-8")))


def on_files(files, config):
    """Read every page as MkDocs will, find its blocks, and queue their runs before the first page renders."""
    site = _site
    if site.downloads:
        _downloads(files, config)
    fences.install(config.mdx_configs)  # after every plugin's on_config, markdown-exec's included
    site.make_markdown = fences.site_markdown(config.markdown_extensions, config.mdx_configs)
    if site.results_dir is not None:
        pass  # no block runs: nothing to say about where they would
    elif line := sandbox.announce() if site.mode == "serve" else sandbox.status()[1]:  # serve: its first build only
        log.info(line)
    site.pool = PagePool(site.jobs, on_interrupt=_interrupt)  # SIGINT, SIGTERM: _interrupt, until every page ran
    site.cache = cache.OutputCache(site.root / cache.FOLDER, [Path(config.site_dir)], [site.docs_dir])  # warm serve
    site.environment = cache.environment_digest(site.root, site.inputs, site.timeout)
    site.snapshot = Inputs(site.root, site.inputs)
    if site.snapshot.skipped:
        log.info(f"block inputs: listed, not read: {', '.join(site.snapshot.skipped)}")
    if site.results_dir is not None:  # render from a check's results, refused when they are stale (stale.py)
        try:
            site.stored = stale.current(site.results_dir, Path(config.config_file_path), site.docs_dir, site.snapshot,
                                        site.timeout, site.memory, [f.src_uri for f in files.documentation_pages()],
                                        Path(config.site_dir))
        except results.ResultsError as error:
            raise PluginError(str(error)) from None
    # Every run but accept's records what it read (audit.py; SITEBUILD_TRACE=strace: strace, reads.py; 0: off).
    trace = os.environ.get(reads.TRACE_ENV, audit.AUDIT)
    site.tracer = (None if site.mode == "accept" or trace == "0"
                   else reads.tracer() if trace == "strace" else audit.AUDIT)
    site.reuse = site.mode == "serve" or os.environ.get(cache.REUSE_ENV) == "1"
    site.guard = site_guard(site.root, Path(config.docs_dir), site.data_dir, Path(config.config_file_path),
                            [Path(p) for p in config.watch or []], site.inputs)
    site.files = files
    site.before = set(site_entries(Path(config.site_dir).resolve()))  # what MkDocs' clean left, if anything
    todo = []
    for file in files.documentation_pages():
        site.pages.add(file.src_uri)
        approved_file = approved.approved_path(site.data_dir, file.src_uri)  # read before any block runs: what
        site.approved[file.src_uri] = approved.read(approved_file, site.rel(approved_file))  # a block writes there
        if site.dirty and not file.is_modified():
            continue  # MkDocs does not rebuild it (see _populate_page), so it is neither run nor verified
        try:
            source = file.content_string
        except (OSError, UnicodeDecodeError):
            continue  # MkDocs reports an unreadable page itself
        markdown, _ = get_data(source)
        todo.append((file.src_uri, markdown, site.blocks(markdown, source)))
    # The page with the most blocks first (longest processing time first, a proxy for each page's run time):
    # a long page queued last would run alone at the end while the other workers wait. Pages run at the same
    # time whatever the order, so a page must not depend on another's run (a file one writes and the other
    # reads outside the guarded folders is not detected); they render in nav order.
    for src_uri, markdown, found in sorted(todo, key=lambda page: -len(page[2][0])):
        site.plans[src_uri] = site.plan(src_uri, markdown, found)
    return files


def on_page_markdown(markdown: str, page, config, files) -> str:
    site = _site
    src_uri = page.file.src_uri
    page_path = site.rel(site.docs_dir / src_uri)
    plan = site.plans.get(src_uri)
    if plan is None or plan.markdown != markdown:  # another plugin changed the page: read it again
        plan = site.plans[src_uri] = site.plan(src_uri, markdown, site.blocks(markdown, page.file.content_string))
    approved_file = approved.approved_path(site.data_dir, src_uri)
    report = PageReport(page_path, site.rel(approved_file))
    site.reports[src_uri] = report
    site.destinations[src_uri] = page.file.abs_dest_path
    site.current, site.rendered, site.printed_ids = report, 0, []
    report.problems.extend(plan.problems)
    approved_outputs, file_problem = site.approved.get(src_uri) or approved.read(approved_file, report.approved_file)
    if file_problem:
        report.problems.append(file_problem)
    results, second = plan.results()
    # A page whose blocks could not be read keeps its approved outputs untouched: none of them is stale.
    verify(report, plan.blocks, results, {} if plan.problems else approved_outputs, site.root)
    if site.mode == "accept" and not file_problem and not plan.problems:  # never approve what could not be read
        refuse_unstable(report, second)
        written = Path(report.approved_file)  # the build's own write (and the folders it makes), not a block's
        site.guard.own.update(p.as_posix() for p in (written, *written.parents) if p != Path("."))
        accept(report, approved_outputs, approved_file)
    if site.mode != "accept" and not plan.reused and plan.blocks and all(o.run_ok for o in report.outcomes):
        site.cache.put(page_path, plan.cache_key, results, site.snapshot, plan.read())
        if plan.unknown():
            site.unknown_reads.append(f"{page_path} ({plan.unknown()})")
    if not plan.reused and any(r.problem.startswith(WROTE) for r in results):
        site.wrote.append(page_path)
    fences.set_handler(_render_fence)
    return markdown


def _render_fence(fence: fences.Fence, md) -> str:
    """Draw the next executed fence of the page MkDocs is rendering from this build's results."""
    site, report = _site, _site.current
    index, site.rendered = site.rendered, site.rendered + 1
    if not report.outcomes:
        reason = "; ".join(report.problems) or "the site did not find this block before the page rendered"
        return render.failure_box("This block was not run", reason)
    outcome = report.outcomes[index] if index < len(report.outcomes) else None
    if outcome is None or outcome.block.code != fence.code:
        problem = (f"Markdown rendered a {fence.language} block the build did not run in this place "
                   "(a plugin changed the page between reading and rendering?)")
        report.problems.append(problem)
        return render.failure_box("This block was not run", problem)
    outcome.rendered = True
    sink = mdoutput.Sink(pagelinks.page_filter(md))  # a Markdown output's links and ids, as MkDocs treats the page's
    html = render.block_html(outcome.block, outcome.output, md, sink, site.root)
    if outcome.problem:  # its red box is what the failures box at the top links to
        box = render.failure_box(f"{outcome.block.label}: {outcome.problem}", outcome.detail, md)
        html = pagenotes.anchored(box, pagenotes.block_anchor(outcome.block.key))[0] + html
    else:  # verified: `make site` checks every approved block carries its mark (marks.py)
        html = marks.mark(html, outcome.block.key)
    html = _marker(outcome.block.key) + html
    mdoutput.report_headings(md, html, sink.headings)  # keyed by the HTML exactly as superfences stashes it
    site.printed_ids.extend((outcome.block.label, anchor) for anchor in sink.ids)
    return html


def _marker(key: str) -> str:
    return f"<!-- sitebuild block {key} -->"


def on_page_content(html_text: str, page, config, files) -> str:
    """After rendering: every block that ran must be on the page; then show and log the page's failures."""
    fences.set_handler(None)
    report = _site.reports[page.file.src_uri]
    # A safety net behind blocks.page_blocks: a block counts as shown only when its marker reached the page.
    hidden = [o.block for o in report.outcomes if _marker(o.block.key) not in html_text]
    html_text = MARKER.sub("", html_text)
    report.problems.extend(
        f"{block.label} ran, but the page does not show it as a block (an indented code block, "
        "or a fence Markdown reads as text?); fix its fence"
        for block in hidden
    )
    report.problems.extend(mdoutput.theme_ids(_site.printed_ids) + mdoutput.id_clashes(_site.printed_ids, html_text))
    report.problems.extend(crosslinks.check_page(page.file.src_uri, page.file.content_string, config.nav))
    report.problems.extend(nextlink.check_page(page.file.src_uri, page.file.content_string, config.nav))
    inlined = diagrams.inline_page(html_text, _site.data_dir)  # each diagram as its approved SVG (diagrams.py)
    html_text = inlined.html
    _site.diagrams.update((d.digest, d) for d in inlined.needed)
    if _site.mode == "accept":  # drawn in on_post_build
        _site.undrawn.extend(d for d in inlined.needed if not d.svg_path(_site.data_dir).is_file())
    else:
        report.problems.extend(inlined.problems)
    for outcome in report.outcomes:
        if outcome.killed:
            left = "it left running when its shell ended" if outcome.block.language == "bash" else \
                "the page's python blocks left running when its last block had run"
            log.info(f"{report.page}, {outcome.block.label}: killed {len(outcome.killed)} process(es) {left}: "
                     f"{', '.join(outcome.killed)}")
    for message in report.failures():
        (log.warning if _site.mode == "serve" else log.error)(message)
    boxes = "".join(render.failure_box("This page failed verification", p) for p in report.page_problems)
    summary = pagenotes.failures_box(report) if _site.mode == "serve" else ""
    return summary + boxes + html_text


def on_post_page(output: str, page) -> str:
    """A built page as MkDocs writes it: recorded, with the blocks it verified, for the marks check (marks.py)."""
    if _site.mode == "build":
        report = _site.reports.get(page.file.src_uri)
        _site.written[page.file.src_uri] = {"file": page.file.dest_uri, "sha256": marks.written_digest(output),
                                            "verified": [o.block.key for o in report.outcomes if not o.problem]
                                            if report else []}
    return output


def _interrupt(signum: int, stop) -> None:
    """SIGINT or SIGTERM while pages run: the pool has killed every running block and what it started, and its pages
    have ended (scratch folders removed). Say so; launchers.Interrupted then unwinds, on_shutdown exits 128 + N."""
    _site.interrupted = 128 + signum
    log.error(f"Build interrupted by {signal.Signals(signum).name}: {stop}.")


def on_build_error(error) -> None:
    if _site is not None and _site.pool is not None:
        _site.pool.abandon()  # the build failed: its running blocks are killed, not waited for
    fences.set_handler(None)
    site = _site
    if site is not None and site.mode == "build" and site.site_dir is not None:
        marks.forget(site.root, site.site_dir)  # strict mode's count of warnings fails the build after post_build
    if site is not None and site.mode == "build" and site.site_dir is not None and any(site_entries(site.site_dir)):
        marks.empty(site.site_dir)  # every failure, strict mode's warnings included: a failed build publishes nothing
        log.error(f"The site folder {site.site_dir.name}/ was emptied: a failed build publishes nothing.")


def on_shutdown() -> None:
    """The signal handlers go back; after an interrupt, exit 128 + N, without the "Aborted!" and exit code 1 of
    MkDocs' CLI. Not in serve, where Ctrl-C is how one stops the server: MkDocs ends it as ever."""
    if _site is not None and _site.pool is not None:
        _site.pool.abandon()  # after close(), nothing is left to do
        if _site.interrupted and _site.mode == "build" and _site.site_dir is not None:
            marks.empty(_site.site_dir)  # an interrupted build failed too: half a site is not published
        if _site.interrupted and _site.mode != "serve":
            raise SystemExit(_site.interrupted)


def on_post_build(config) -> None:
    """Run by the plugin's on_post_build, before the other plugins' own (search's index): what is in the site is
    the build's."""
    site = _site
    site.pool.close()
    with_blocks = [p for p in site.plans.values() if p.blocks]
    reused = sum(p.reused for p in with_blocks)
    if site.results_dir is not None:
        log.info(f"blocks: none ran; {len(with_blocks)} page(s) rendered from the check results in "
                 f"{site.results_dir}")
    else:
        log.info(f"blocks: {len(with_blocks) - reused} page(s) ran, {reused} reused from the cache, "
                 f"{site.jobs} at a time")
    if site.unknown_reads:  # once a build: these pages' stored runs are keyed on every input file
        log.info(f"reads: {len(site.unknown_reads)} page(s) stored with the key of every input file, since what "
                 f"they read is not known for sure (any input edit re-runs them): {'; '.join(site.unknown_reads)}")
    if site.warnings is not None:
        pagenotes.show_link_warnings(site)
    if site.mode == "serve":
        keep_writing_pages(site)
        writes = site.root / cache.FOLDER / WRITES_FILE
        with contextlib.suppress(OSError):
            writes.parent.mkdir(parents=True, exist_ok=True)
            writes.write_text(json.dumps(sorted(site.wrote)), encoding="utf-8")
    if site.dirty:
        pagenotes.log_dirty(site, log)
    expected = {approved.approved_path(site.data_dir, src).resolve() for src in site.pages | set(site.reports)}
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
    changes += diagram_files(site)
    site.problems.extend(strays(site, config))
    if site.mode != "accept":
        site.problems.extend(_approved_changed(site))
    on_pages = [m for r in site.reports.values() for m in r.failures()]
    failures = on_pages + site.problems
    for problem in site.problems:
        log.error(problem)
    if site.mode == "accept":
        for change in changes:
            print(f"accepted: {change}")
        if failures:
            print(f"accept: {len(failures)} failure(s) remain, logged above; those blocks' outputs were not approved")
        elif not changes:
            print("accept: nothing to rewrite, every approved output is current")
        if changes:
            print(f"accept: {len(changes)} change(s) written to data/, each shown above. Next: review them with "
                  "`git status data/` (a new page's file is new to git) and `git diff data/`, then commit data/ "
                  "with the change that caused them.")
    if failures and site.mode != "serve":
        pages = len({m.split(",")[0].split(":")[0] for m in on_pages})
        others = f" and {len(site.problems)} other problem(s)" if site.problems else ""
        advice = ("Fix the page or the kit; the outputs of blocks that passed are approved." if site.mode == "accept"
                  else "Fix the page or the kit; if an output change is intended, run `make accept`.")
        emptied = ""
        if site.mode == "build":  # what a failed block printed must not wait in the site folder to be published
            marks.empty(Path(config.site_dir))
            emptied = (f" The site folder {Path(config.site_dir).name}/ was emptied: a failed build publishes nothing "
                       "(`make serve` shows each failure on its page).")
        raise PluginError(f"{len(on_pages)} verification failure(s) on {pages} page(s){others}; each is logged above "
                          f"with where it is and why. {advice}{emptied}")
    if site.mode == "build" and not site.dirty:  # what `make site`'s marks check holds the built pages to (marks.py)
        try:
            marks.write_record(site.root, Path(config.site_dir), site.written)
        except OSError as error:  # not the build's failure: `python -m sitebuild marks` then fails, naming the record
            record_log.warning(f"the record of the verified pages could not be written: {error}")
