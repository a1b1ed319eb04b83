"""What one build knows (SiteState) and each page's plan (PagePlan): its blocks and their run, queued or done.

hook.py keeps one SiteState per build; plan() queues a page's run in the pool (launchers.PagePool), takes it
from the serve cache, or, with the plugin's results option, from a check's results (none run).

Left out: MkDocs' events, which hook.py handles; this module only raises MkDocs' PluginError for results that
do not fit the page.
"""

from __future__ import annotations

import json
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path

from mkdocs.exceptions import PluginError

from sitebuild.find.blocks import Block, BlockError, front_matter_lines, page_blocks
from sitebuild.find.inputs import Inputs
from sitebuild.publish import diagrams
from sitebuild.run import cache
from sitebuild.run.guard import WriteGuard
from sitebuild.run.launchers import PagePool
from sitebuild.run.runner import Result
from sitebuild.verify import results
from sitebuild.verify.outputs import PageReport
from sitebuild.verify.results import run_page as _run_page


@dataclass
class PagePlan:
    """One page's blocks, read before any page renders, and their run (queued, running or done)."""

    markdown: str
    blocks: list[Block]
    problems: list[str]
    run: Future
    reused: bool = False
    cache_key: str = ""

    def results(self) -> tuple[list[Result], list[Result] | None]:
        """The page's results, and a second run's in accept mode; waits for the run to end."""
        return self.run.result()[:2]

    def read(self) -> dict[str, bool] | None:
        """What the page's run read (audit.paths, reads.paths), or None when that is not known; waits for the run."""
        return self.run.result()[2]

    def unknown(self) -> str:
        """Why the page's recorded run's reads are not known ("" when they are, or were not recorded)."""
        return self.run.result()[3]


@dataclass
class SiteState:
    """What one build knows: its mode, where things are, each page's plan and report."""

    mode: str
    root: Path
    docs_dir: Path
    data_dir: Path
    timeout: float
    jobs: int
    inputs: list[str]
    make_markdown: object = None
    pool: PagePool | None = None
    interrupted: int = 0  # 128 + N once signal N stopped the build (_interrupt)
    cache: cache.OutputCache | None = None
    reuse: bool = False  # read the cache: in serve mode, or in a test build that asks (cache.REUSE_ENV)
    environment: str = ""
    snapshot: Inputs | None = None  # the block inputs' digests, read when the build starts (inputs.py)
    tracer: str | None = None  # strace, when runs record what they read (reads.py)
    plans: dict[str, PagePlan] = field(default_factory=dict)
    reports: dict[str, PageReport] = field(default_factory=dict)
    current: PageReport | None = None
    rendered: int = 0  # fences rendered so far on the current page
    printed_ids: list[tuple[str, str]] = field(default_factory=list)  # (block label, id) of its Markdown outputs
    problems: list[str] = field(default_factory=list)
    warnings: list[str] | None = None  # in serve mode: MkDocs' own warnings (links, anchors), to show on pages
    destinations: dict[str, str] = field(default_factory=dict)  # page src_uri -> its built HTML file
    guard: WriteGuard | None = None  # the files a block must not change (guard.py)
    files: object = None  # MkDocs' Files of this build: every file it writes into the site but its templates
    before: set[Path] = field(default_factory=set)  # files and links in the site folder before the blocks ran
    wrote: list[str] = field(default_factory=list)  # pages whose blocks wrote into guarded files, this build
    dirty: bool = False  # --dirty: only the pages MkDocs rebuilds are run and verified
    pages: set[str] = field(default_factory=set)  # every page of the build (src_uri), rebuilt or not
    unknown_reads: list[str] = field(default_factory=list)  # "page (why)" of each stored run whose reads are unknown
    memory: int = 0  # MB of address space each process of a page may take (the plugin's block_memory; 0: no limit)
    site_dir: Path | None = None  # where the site is built: emptied when the build fails (on_build_error)
    approved: dict[str, tuple[dict[str, str], str]] = field(default_factory=dict)  # src_uri -> approved.read(), as
    # read before any block ran: a block that rewrites data/ (back-dating it) changes nothing the build compares
    diagrams: dict[str, diagrams.Diagram] = field(default_factory=dict)  # digest -> every diagram the pages need
    undrawn: list[diagrams.Diagram] = field(default_factory=list)  # accept mode: those without an approved drawing
    downloads: bool = False  # the plugin's downloads option: the kit download, each page's notebook and script
    results_dir: Path | None = None  # the plugin's results option: render from this check's results, run nothing
    stored: dict[str, results.PageResults] = field(default_factory=dict)  # src_uri -> its check results
    written: dict[str, dict] = field(default_factory=dict)  # build mode: src_uri -> its record (marks.write_record)

    def rel(self, path: Path) -> str:
        return path.resolve().relative_to(self.root).as_posix()

    def blocks(self, markdown: str, source: str) -> tuple[list[Block], list[str]]:
        """A page's executed blocks, and [] or why they cannot be read."""
        try:
            return page_blocks(markdown, self.make_markdown, front_matter_lines(source, markdown)), []
        except BlockError as error:
            return [], [str(error)]

    def plan(self, src_uri: str, markdown: str, found: tuple[list[Block], list[str]]) -> PagePlan:
        """Queue the run of a page's blocks, found by blocks() (or take it from the cache in serve mode)."""
        page_path = self.rel(self.docs_dir / src_uri)
        blocks, problems = found
        if self.results_dir is not None:
            return self._from_results(src_uri, markdown, found)
        key = cache.page_key(blocks, self.timeout, self.environment) if self.cache else ""
        stored = self.cache.get(page_path, key, self.snapshot) if self.reuse and blocks else None
        if stored is not None and len(stored) == len(blocks):
            done: Future = Future()
            done.set_result((stored, None, None, ""))
            return PagePlan(markdown, blocks, problems, done, reused=True)
        twice = self.mode == "accept"
        run = self.pool.submit(_run_page, blocks, self.root, page_path, self.timeout, twice, self.guard, self.tracer,
                               self.memory)
        return PagePlan(markdown, blocks, problems, run, cache_key=key)

    def _from_results(self, src_uri: str, markdown: str, found: tuple[list[Block], list[str]]) -> PagePlan:
        """A page's plan from the check's results: its blocks' results as the check's run gave them (none run)."""
        blocks, problems = found
        page = self.stored.get(src_uri)
        done: Future = Future()
        if not blocks:
            done.set_result(([], None, None, ""))
        elif page is None or [b.key for b in page.blocks] != [b.key for b in blocks]:
            why = "has no results" if page is None else "has results for other blocks"
            raise PluginError(f"{self.rel(self.docs_dir / src_uri)} {why} in {self.results_dir}: run `python -m "
                              "sitebuild check --results` again")
        else:
            done.set_result((results.to_results(page), None, None, ""))
        return PagePlan(markdown, blocks, problems, done, reused=True)


def diagram_files(site: SiteState) -> list[str]:
    """Accept mode: draw the diagrams without an approved drawing and drop the drawings no page needs; return what
    changed. Otherwise: each drawing no page needs is a problem (not in a --dirty build, which sees some pages)."""
    changes = []
    if site.mode == "accept" and site.undrawn:
        from sitebuild.publish import draw  # Playwright and Chromium: needed only to draw

        try:
            changes += [f"{site.rel(site.data_dir)}/{diagrams.FOLDER}/{line}" for line in draw.write(site.data_dir,
                                                                                                   site.undrawn)]
        except draw.DrawError as error:
            site.problems.append(f"drawing {len(site.undrawn)} new diagram(s) failed: {error}")
    if site.dirty or site.interrupted:
        return changes
    for path in diagrams.stale(site.data_dir, set(site.diagrams)):
        if site.mode == "accept":
            path.unlink()
            changes.append(f"{site.rel(path)}: removed (no page draws this diagram)")
        else:
            site.problems.append(f"{site.rel(path)} is the drawing of a diagram no page holds; run `make accept` to "
                                 "remove it")
    return changes


WRITES_FILE = "writes.json"  # in the serve cache: the pages whose blocks wrote into guarded files last rebuild


def keep_writing_pages(site: SiteState) -> None:
    """Serve mode, after every page ran: a page that wrote into guarded files this rebuild and the one before
    (whose writes started this one) keeps its failing run under the key the next rebuild will compute, with
    the files as every page left them, so serve shows the failure instead of running the page again."""
    again = set(site.wrote) & set(remember_writes(site))
    if not again:
        return
    after = Inputs(site.root, site.inputs)  # the block inputs as every page of this rebuild left them
    for src_uri, plan in site.plans.items():
        page_path = site.rel(site.docs_dir / src_uri)
        if page_path in again and plan.run.done() and not plan.reused:
            site.cache.put(page_path, plan.cache_key, plan.results()[0], after, None)  # None: keyed on every input


def remember_writes(site: SiteState) -> list[str]:
    """Serve mode: record which pages wrote into guarded files this rebuild; return those of the rebuild before."""
    path = site.root / cache.FOLDER / WRITES_FILE
    try:
        before = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else []
    except (OSError, ValueError):
        before = []
    return before if isinstance(before, list) else []
