"""Check results on disk: `python -m sitebuild check --results DIR` writes them; the plugin's `results: DIR` renders
the site from them without running a block.

A results folder holds one small manifest and one file per page, so that check runs on several machines (one
share of the pages each) can be merged by copying their pages/ folders together and joining the manifests' pages:
- manifest.json: the format (FORMAT), the settings the blocks ran with (block_timeout, block_inputs) and each
  page's file (Manifest);
- pages/<page>.json, e.g. pages/beginner/cost-and-latency.md.json: one page (PageResults): the digests of what it
  ran against (the page's source, the block inputs as the serve cache digests them, inputs.Inputs.full, and
  requirements.lock), each block's key, label, result (runner.Result: output, problem, exit code, processes
  killed, undecodable output) and outcome ("passed", or why it fails verification against data/), what the page's
  run read where that is known (input path -> digest, as the serve cache keeps it), and the run's seconds.

Every file is JSON with sorted keys, written from pydantic models: the same run writes the same bytes but for
`seconds`, the only clock reading, which stays in the results (nothing the site shows is made from it).

A result is only used while it matches the checkout (current()): the page's source, the block inputs and the lock
must have the digests it was made with; otherwise it is refused with an error naming the page and what changed
(the input files its run read that changed, when the run's reads are known).

Left out: data/, which a build reads afresh (it verifies the stored outputs against it, as it verifies a run's).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from sitebuild.find.blocks import Block
from sitebuild.find.inputs import Inputs
from sitebuild.run import audit, reads
from sitebuild.run.guard import WriteGuard
from sitebuild.run.runner import Result
from sitebuild.verify.outputs import Outcome, run_blocks

FORMAT = 1
MANIFEST = "manifest.json"
PAGES = "pages"
LOCK = "requirements.lock"
PASSED = "passed"


class ResultsError(ValueError):
    """A results folder that cannot be used: missing, unreadable, of another format, or stale (the message says)."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class BlockResult(_Model):
    """One block: its key and label, what its run gave (runner.Result's fields) and its outcome."""

    key: str
    label: str
    output: str
    problem: str
    exit_code: int
    killed: list[str]
    undecodable: str
    outcome: str  # PASSED, or why it fails verification (verify.Outcome.problem)


class Digests(_Model):
    """SHA-256 digests of what a page ran against: its source, the block inputs (Inputs.full), requirements.lock."""

    page: str
    inputs: str
    lock: str


class PageResults(_Model):
    """One page's check results (module docstring)."""

    page: str  # src_uri, e.g. "beginner/cost-and-latency.md"
    digests: Digests
    blocks: list[BlockResult]
    problems: list[str]  # why the page's blocks could not be read, if so
    reads: dict[str, str] | None  # input path -> its digest then; None: not known
    seconds: float  # how long its run took: results only, never the site


class Manifest(_Model):
    """The folder's index: format, the settings the blocks ran with, and each page's file."""

    format: int
    block_timeout: float
    block_inputs: list[str]
    pages: dict[str, str]  # src_uri -> its file, relative to the folder


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "missing"


def digests(root: Path, docs_dir: Path, src_uri: str, inputs: Inputs) -> Digests:
    """The digests of a page's source, the block inputs and the lock as they are now.

    Args:
        root: the site root (mkdocs.yml's folder); docs_dir: the pages' folder; src_uri: the page, e.g. "a.md";
        inputs: the block inputs' digests (inputs.Inputs of the site's block_inputs).

    Returns:
        Digests ("missing" for a file that is not there).

    Example: digests(root, root / "docs", "index.md", Inputs(root, ["kit"])).page  # 64 hex digits
    """
    return Digests(page=_sha256(docs_dir / src_uri), inputs=inputs.full, lock=_sha256(root / LOCK))


def page_file(src_uri: str) -> str:
    """A page's file in a results folder. Example: page_file("beginner/a.md") == "pages/beginner/a.md.json" """
    return f"{PAGES}/{src_uri}.json"


def page_results(src_uri: str, now: Digests, outcomes: list[Outcome], results: list[Result], problems: list[str],
                 read: dict[str, str] | None, seconds: float) -> PageResults:
    """One page's results, from its run (results) and its verification (outcomes, one per block, in order).

    Args:
        src_uri: the page, e.g. "a.md"; now: its digests when its run started (digests());
        outcomes: verify.verify's, one per block; results: the run's, one per block; problems: the page's own;
        read: what the run read ({input path: digest}, Inputs.counted) or None; seconds: how long the run took.

    Returns:
        The PageResults, seconds rounded to milliseconds.

    Raises:
        ValueError: outcomes and results are not one per block each.

    Example: page_results("a.md", now, report.outcomes, results, [], None, 1.5).blocks[0].outcome == "passed"
    """
    blocks = [BlockResult(key=o.block.key, label=o.block.label, output=r.output, problem=r.problem,
                          exit_code=r.exit_code, killed=list(r.killed), undecodable=r.undecodable,
                          outcome=o.problem or PASSED)
              for o, r in zip(outcomes, results, strict=True)]
    return PageResults(page=src_uri, digests=now, blocks=blocks, problems=list(problems), reads=read,
                       seconds=round(seconds, 3))


def _dump(model: BaseModel) -> str:
    return json.dumps(model.model_dump(mode="json"), sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def write(folder: Path, timeout: float, inputs: list[str], pages: list[PageResults]) -> None:
    """Write a results folder: pages/ and manifest.json anew (anything else in folder is left alone).

    Args:
        folder: where (made if missing); timeout, inputs: the block settings the pages ran with;
        pages: each page's results.

    Raises:
        OSError: the folder cannot be written.

    Example: write(Path("results"), 60.0, ["kit"], [page_results(...)])
    """
    folder.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(folder / PAGES, ignore_errors=True)
    (folder / MANIFEST).unlink(missing_ok=True)
    for page in pages:
        path = folder / page_file(page.page)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_dump(page), encoding="utf-8")
    manifest = Manifest(format=FORMAT, block_timeout=float(timeout), block_inputs=sorted(inputs),
                        pages={p.page: page_file(p.page) for p in pages})
    (folder / MANIFEST).write_text(_dump(manifest), encoding="utf-8")  # last: a folder without it is unfinished


def read(folder: Path) -> tuple[Manifest, dict[str, PageResults]]:
    """Read a results folder.

    Args:
        folder: a folder `check --results` wrote.

    Returns:
        (its manifest, {src_uri: PageResults}).

    Raises:
        ResultsError: no manifest, a file that cannot be read or is not of this format; the message names it.

    Example: read(Path("results"))[1]["index.md"].blocks[0].output
    """
    try:
        manifest = Manifest.model_validate_json((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ResultsError(f"{folder}/{MANIFEST} cannot be read as check results (run `python -m sitebuild check "
                           f"--results {folder}`): {_short(error)}") from None
    if manifest.format != FORMAT:
        raise ResultsError(f"{folder}/{MANIFEST}: results of format {manifest.format}; this build reads {FORMAT}")
    pages = {}
    for src_uri, name in sorted(manifest.pages.items()):
        try:
            page = PageResults.model_validate_json((folder / name).read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise ResultsError(f"{folder}/{name} cannot be read as check results: {_short(error)}") from None
        if page.page != src_uri:
            raise ResultsError(f"{folder}/{name} holds the results of {page.page}, not of {src_uri}")
        pages[src_uri] = page
    return manifest, pages


def _short(error: Exception) -> str:
    if isinstance(error, ValidationError):
        return f"{error.error_count()} field(s) not as expected, first: {error.errors()[0]['loc']}"
    return str(error).splitlines()[0] if str(error) else type(error).__name__


def changes(page: PageResults, now: Digests, inputs: Inputs) -> list[str]:
    """What changed since a page's results were made, in words ([] when they still match the checkout).

    Args:
        page: its results; now: its digests now (digests()); inputs: the block inputs now.

    Returns:
        e.g. ["the page's source", "kit/evidencedesk/usage.py (read by its blocks)"].

    Example: changes(page, digests(root, docs, "a.md", inputs), inputs) == []
    """
    changed = []
    if page.digests.page != now.page:
        changed.append("the page's source")
    if page.digests.lock != now.lock:
        changed.append(LOCK)
    if page.digests.inputs != now.inputs:
        read = sorted(path for path, digest in (page.reads or {}).items()
                      if inputs.digest(path, not digest.startswith("m:")) != digest)
        changed.append(", ".join(f"{path} (read by its blocks)" for path in read) if read
                       else f"the block inputs ({', '.join(inputs.names)})")
    return changed


def current(folder: Path, root: Path, docs_dir: Path, inputs: Inputs, timeout: float,
            pages: list[str]) -> dict[str, PageResults]:
    """The results of `pages` in folder, each checked against the checkout.

    Args:
        folder: the results folder; root, docs_dir: the site's; inputs: the block inputs now (their names must be
            the manifest's); timeout: the site's block_timeout; pages: the src_uri of each page to render.

    Returns:
        {src_uri: PageResults} for each page of `pages` that has results (a page without blocks may have none).

    Raises:
        ResultsError: read() fails, the settings differ, or some pages' results are stale: one line per page,
            naming it and what changed since the check.

    Example: current(Path("results"), root, root / "docs", Inputs(root, ["kit"]), 60.0, ["index.md"])
    """
    manifest, found = read(folder)
    if manifest.block_inputs != sorted(inputs.names) or manifest.block_timeout != float(timeout):
        raise ResultsError(f"{folder}: the check ran with block_timeout {manifest.block_timeout:g} and block_inputs "
                           f"{manifest.block_inputs}; this site has {float(timeout):g} and {sorted(inputs.names)}: "
                           "run the check again")
    stale = []
    for src_uri in pages:
        if src_uri in found and (what := changes(found[src_uri], digests(root, docs_dir, src_uri, inputs), inputs)):
            stale.append(f"{docs_dir.name}/{src_uri}: {'; '.join(what)} changed since the check")
    if stale:
        raise ResultsError(f"the check results in {folder} are stale for {len(stale)} page(s), so they are not "
                           "rendered; run `python -m sitebuild check --results` again:\n" + "\n".join(stale))
    return {uri: found[uri] for uri in pages if uri in found}


def to_results(page: PageResults) -> list[Result]:
    """The runner.Result of each block, as the run gave it. Example: to_results(page)[0].output"""
    return [Result(b.output, b.problem, b.exit_code, tuple(b.killed), b.undecodable) for b in page.blocks]


def run_page(blocks: list[Block], root: Path, page: str, timeout: float, twice: bool, guard: WriteGuard | None,
             tracer: str | None, memory: int = 0):
    """A pool task: run a page's blocks once (twice in accept mode, one run after the other); with tracer, the
    first run records what it read (audit.py, or strace: reads.py).

    Returns:
        (results, second results or None, reads or None, why reads are None although recorded ("" otherwise),
        the run's seconds).

    Example: run_page(blocks, root, "docs/a.md", 60.0, False, None, audit.AUDIT)[0][0].output
    """
    start = time.monotonic()  # a duration for the results folder; nothing the site shows reads it
    with tempfile.TemporaryDirectory(prefix="sitebuild-reads-") as records:
        trace = (tracer, Path(records)) if tracer else None
        first = run_blocks(blocks, root, page, timeout, guard=guard, trace=trace, memory=memory)
        if tracer == audit.AUDIT:
            read, unknown = audit.paths(Path(records))
        else:
            read = reads.paths(Path(records)) if trace else None
            unknown = "strace's record of it is incomplete" if trace and read is None else ""
    seconds = time.monotonic() - start
    second = run_blocks(blocks, root, page, timeout, guard=guard, memory=memory) if twice else None
    return first, second, read, unknown, seconds
