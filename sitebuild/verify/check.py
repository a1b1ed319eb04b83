"""`python -m sitebuild check [--page docs/x.md ...]`: run and verify every page's blocks without a MkDocs build.

What `make site` does for the blocks, and only that, with no MkDocs import at all: the pages of mkdocs.yml's
nav (siteconfig.load, which reads mkdocs.yml, its Markdown settings and the verified-blocks plugin's
options), each
page's blocks found as the hook finds them (blocks.page_blocks), run in parallel (launchers.PagePool,
block_jobs at a time, the longest page first) under the same timeout, memory limit, sandbox and write
guard (verify.run_blocks, guard.site_guard), and held against data/ (verify.verify). It prints each failure as
the build logs it (page, block, key, reason, the diff under it), in nav order, then one summary line; the exit
code is 0 when every output matches, 1 on any failure, 2 on bad usage (a page that is not in the nav, a
mkdocs.yml it cannot read), 128 + N when signal N stopped it (its blocks killed, as in a build).

It never writes into data/: `make accept` stays the one writer. With --results DIR, it writes each page's results
(its blocks' outputs and outcomes, what its run read, its digests, its seconds) into DIR (results.py); the
plugin's `results: DIR` option then renders the site from them without running a block. With --page, only those
pages run, and the approved files of pages that are gone are not looked for.

Shards (shards.py): --shard I/N runs only shard I of N of those pages, split by the durations in
data/durations.json; with --results, a small shard.json beside the results (shardio.py: the shard, the digests of
every input the shards must share, the failures not of one page) lets `python -m sitebuild merge` (merge.py) join
the shards' folders. --record-durations writes each page's seconds into data/durations.json, the one file of data/
a check writes, and only when asked.

Left out: everything a build checks once the page is rendered: links and anchors, the course chrome, the
diagrams, a block Markdown hides after all, printed headings' ids, cross-links; and the serve cache (nothing is
read from it or stored in it). `make site` stays the final word before a merge.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path

from sitebuild.find import outside, siteconfig
from sitebuild.find.inputs import Inputs
from sitebuild.run import audit, launchers, reads, sandbox
from sitebuild.run.guard import site_guard
from sitebuild.shard import shardio, shards
from sitebuild.verify import approved, results, stale
from sitebuild.verify.outputs import PageReport, run_blocks, verify

USAGE_EXIT = 2


class UsageError(ValueError):
    """A --page the check cannot take (not a file, not in the nav), or a mkdocs.yml it cannot read."""


def pick_pages(site: siteconfig.Site, wanted: list[str], cwd: Path) -> list[str]:
    """The src_uri of each page asked for, in nav order, once each.

    Args:
        site: the site (siteconfig.load); wanted: paths as given on the command line, relative to cwd or to the
            site root (e.g. "docs/beginner/x.md"; where both hold a file, the one under the docs folder); none:
            every page of the nav.
        cwd: the folder the command runs in.

    Returns:
        src_uris, e.g. ["beginner/x.md"].

    Raises:
        UsageError: a path that is not a Markdown file under the docs folder, or a page not in the nav; the
            message names it as given.

    Example: pick_pages(site, ["docs/index.md"], Path.cwd()) == ["index.md"]
    """
    if not wanted:
        return list(site.pages)
    chosen = set()
    for given in wanted:
        found = [p for p in ((cwd / given).resolve(), (site.root / given).resolve()) if p.is_file()]
        path = next((p for p in found if p.is_relative_to(site.docs_dir)), found[0] if found else None)
        if path is None:
            raise UsageError(f"--page {given}: no such file (give a page's path, e.g. docs/index.md)")
        if path.suffix != ".md" or not path.is_relative_to(site.docs_dir):
            raise UsageError(f"--page {given}: not a Markdown page under {site.docs_dir.relative_to(site.root)}/")
        src_uri = path.relative_to(site.docs_dir).as_posix()
        if src_uri not in site.pages:
            raise UsageError(f"--page {given}: not a page of mkdocs.yml's nav, so a build does not check it alone")
        chosen.add(src_uri)
    return [uri for uri in site.pages if uri in chosen]


def check(config_file: str | Path, pages: list[str] | None = None, out: Callable[[str], None] = print,
          cwd: Path | None = None, results_dir: Path | None = None, shard: str | None = None,
          record_durations: bool = False) -> int:
    """Run and verify the blocks of the nav's pages (or of `pages`) against data/, printing what fails.

    Args:
        config_file: the site's mkdocs.yml.
        pages: page paths as given to --page (None or []: every page of the nav).
        out: where each line goes (default print); cwd: what --page paths are relative to (default: the current
            folder; the site root is tried too).
        results_dir: --results: write each page's results there (results.py; its runs record what they read, as
            a build's do), and shard.json (shardio.write_shard); None: write nothing.
        shard: "I/N": only shard I of N of those pages (shards.partition, balanced by data/durations.json).
        record_durations: write each page's seconds into data/durations.json (shards.write_durations).

    Returns:
        0 when every block's output matches its approved one, 1 on any failure, 2 on bad usage (said in one line),
        128 + N when signal N (SIGINT, SIGTERM, SIGHUP) stopped it.

    Example: check("mkdocs.yml", ["docs/beginner/cost-and-latency.md"]) == 0
    """
    try:
        site = siteconfig.load(config_file)
        chosen = pick_pages(site, pages or [], cwd or Path.cwd())
        shard_label = None
        if shard is not None:
            index, count = shards.parse_shard(shard)
            durations = shards.read_durations(site.root / shards.DURATIONS_FILE)
            weight = shards.weights(chosen, durations)
            split = shards.partition(chosen, durations, count)
            loads = [sum(weight[p] for p in part) for part in split]
            chosen = split[index - 1]
            shard_label = f"{index}/{count}"
    except (siteconfig.SettingError, UsageError, shards.ShardError) as error:
        out(f"check: {error}")
        return USAGE_EXIT
    if shard_label:
        out(f"check: shard {shard_label}: {len(chosen)} page(s), {loads[index - 1]} s recorded (the shards: "
            f"{', '.join(f'{load} s' for load in loads)}): {', '.join(chosen) or '(none)'}")
    site_digests = (shardio.input_digests(site.root, site.docs_dir, site.data_dir, site.config_file, site.pages)
                    if results_dir is not None else {})  # before any block runs
    settings = site.settings
    out(sandbox.status()[1])

    def rel(path: Path) -> str:
        return path.resolve().relative_to(site.root).as_posix()

    stopped: list[str] = []
    pool = launchers.PagePool(settings.jobs,  # from now on SIGINT, SIGTERM, SIGHUP stop it (launchers.on_signals)
                              on_interrupt=lambda signum, stop: stopped.append(
                                  f"check interrupted by {signal.Signals(signum).name}: {stop}."))
    runs: dict[str, Future] = {}
    seconds: dict[str, float] = {}

    def timed(uri: str, run: Callable, *args):
        start = time.perf_counter()  # the page's wall-clock seconds, for data/durations.json
        try:
            return run(*args)
        finally:
            seconds[uri] = time.perf_counter() - start

    failures, pages_failed, block_count = 0, 0, 0
    written: list[results.PageResults] = []
    try:
        found = {uri: siteconfig.read_page(site, uri) for uri in chosen}
        before = {uri: approved.read(path, rel(path)) for uri in chosen
                  for path in [approved.approved_path(site.data_dir, uri)]}  # read before any block runs, as the hook
        guard = site_guard(site.root, site.docs_dir, site.data_dir, site.config_file, site.watch, settings.inputs)
        snapshot = Inputs(site.root, settings.inputs) if results_dir is not None else None  # before any block runs
        root_files = outside.Outside(site.root, [site.site_dir, results_dir]) if snapshot else None
        tree = root_files.tree() if root_files else ""
        digests = {uri: stale.digests(site.root, site.docs_dir, uri, snapshot, tree)
                   for uri in chosen} if snapshot else {}
        tracer = _tracer() if snapshot else None
        for uri in sorted(chosen, key=lambda u: -len(found[u][0])):  # the longest page first, as the hook
            blocks = found[uri][0]
            if snapshot is None:
                runs[uri] = pool.submit(timed, uri, run_blocks, blocks, site.root, rel(site.docs_dir / uri),
                                        settings.timeout, None, guard, None, settings.memory)
            else:
                runs[uri] = pool.submit(timed, uri, results.run_page, blocks, site.root, rel(site.docs_dir / uri),
                                        settings.timeout, False, guard, tracer, settings.memory)
        for uri in chosen:  # reports in nav order
            blocks, problems = found[uri]
            path = approved.approved_path(site.data_dir, uri)
            report = PageReport(rel(site.docs_dir / uri), rel(path))
            report.problems.extend(problems)
            outputs, file_problem = before[uri]
            if file_problem:
                report.problems.append(file_problem)
            run = runs[uri].result()
            page_results = run if snapshot is None else run[0]
            verify(report, blocks, page_results, {} if problems else outputs, site.root)
            if snapshot is not None:
                read = None if run[2] is None else snapshot.counted(run[2])
                elsewhere = None if run[2] is None else root_files.reads(run[2], snapshot)
                written.append(results.page_results(uri, digests[uri], report.outcomes, page_results, report.problems,
                                                    read, run[4], elsewhere))
            block_count += len(blocks)
            messages = report.failures()
            for message in messages:
                out(message)
            failures += len(messages)
            pages_failed += bool(messages)
        pool.close()
    except launchers.Interrupted as interrupt:
        pool.abandon()
        out(stopped[0] if stopped else f"check interrupted by {interrupt.name}.")
        return interrupt.code
    except BaseException:
        pool.abandon()
        raise
    others = approved.rewritten(site.data_dir, before, rel)
    if not pages:
        others += _orphans(site, rel)
    if results_dir is not None:
        try:
            results.write(results_dir, results.environment(settings.timeout, settings.inputs, settings.memory),
                          written)
            shardio.write_shard(results_dir, shard_label, site_digests, others)
            out(f"check: the results of {len(written)} page(s) written to {results_dir}")
        except OSError as error:
            others.append(f"check: the results could not be written to {results_dir}: {error}")
    for problem in others:
        out(problem)
    if record_durations:
        recorded = shards.write_durations(site.root / shards.DURATIONS_FILE, seconds, site.pages)
        out(f"check: recorded the durations of {len(seconds)} page(s) in {shards.DURATIONS_FILE.as_posix()} "
            f"({sum(recorded.values())} s for the {len(recorded)} page(s) it holds)")
    total = failures + len(others)
    where = f"{len(chosen)} page(s), {block_count} block(s), {settings.jobs} page(s) at a time"
    if total:
        extra = f" and {len(others)} other problem(s)" if others else ""
        out(f"check: {failures} verification failure(s) on {pages_failed} page(s){extra} ({where}); each is shown "
            "above. Fix the page or the kit; if an output change is intended, run `make accept`.")
        return 1
    out(f"check: every output matches its approved one ({where})")
    return 0


def _tracer() -> str | None:
    """How a run records what it read, as in a build: audit hooks, strace (SITEBUILD_TRACE=strace) or not (0)."""
    trace = os.environ.get(reads.TRACE_ENV, audit.AUDIT)
    return None if trace == "0" else reads.tracer() if trace == "strace" else audit.AUDIT


def _orphans(site: siteconfig.Site, rel: Callable[[Path], str]) -> list[str]:
    """The approved files of pages that do not exist (in the nav or not, as the build counts pages), as the build
    names them."""
    pages = [p.relative_to(site.docs_dir).as_posix() for p in site.docs_dir.rglob("*.md")]
    expected = {approved.approved_path(site.data_dir, uri).resolve() for uri in [*site.pages, *pages]}
    return [f"{rel(path)} holds approved outputs of a page that does not exist; run `make accept` to remove it"
            for path in (sorted(site.data_dir.rglob("*.txt")) if site.data_dir.is_dir() else [])
            if path.resolve() not in expected]

