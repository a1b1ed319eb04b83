"""Check results on disk: `python -m sitebuild check --results DIR` writes them; the plugin's `results: DIR` renders
the site from them without running a block.

A results folder holds one small manifest and one file per page, so that check runs on several machines (one
share of the pages each) can be merged by copying their pages/ folders together and joining the manifests' pages:
- manifest.json: the format (FORMAT), what every page ran with (Manifest: block_timeout, block_inputs,
  block_memory, the Python version and the digest of the machinery, sitebuild/) and each page's file;
- pages/<page>.json, e.g. pages/beginner/cost-and-latency.md.json: one page (PageResults): the digests of what it
  ran against (the page's source, the block inputs as the serve cache digests them, inputs.Inputs.full,
  requirements.lock, and every other file of the site root), each block's key, label, result
  (runner.Result: output, problem, exit code, processes killed, undecodable output) and outcome ("passed", or why
  it fails verification against data/), what the page's run read where that is known (reads: the block inputs it
  read, as the serve cache keeps them; outside: the other files of the site root it read, such as mkdocs.yml or
  another page, find/outside.py), and the run's seconds.

Every file is JSON with sorted keys, written from pydantic models: the same run writes the same bytes but for
`seconds`, the only clock reading, which stays in the results (nothing the site shows is made from it).

A result is only used while it matches the checkout: stale.py holds it to it (stale.current).

Left out: data/, which a build reads afresh (it verifies the stored outputs against it, as it verifies a run's).
"""

from __future__ import annotations

import json
import platform
import shutil
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from sitebuild.find.blocks import Block
from sitebuild.find.inputs import MACHINERY, tree_digest
from sitebuild.run import audit, reads
from sitebuild.run.guard import WriteGuard
from sitebuild.run.runner import Result
from sitebuild.verify.outputs import Outcome, run_blocks

FORMAT = 2
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
    """SHA-256 digests of what a page ran against: its source, the block inputs (Inputs.full), requirements.lock,
    and the site root (every other file: what a page whose reads are not known is held to, stale.py)."""

    page: str
    inputs: str
    lock: str
    site: str


class PageResults(_Model):
    """One page's check results (module docstring)."""

    page: str  # src_uri, e.g. "beginner/cost-and-latency.md"
    digests: Digests
    blocks: list[BlockResult]
    problems: list[str]  # why the page's blocks could not be read, if so
    reads: dict[str, str] | None  # input path -> its digest then; None: not known
    outside: dict[str, str] | None  # another file of the site root its run read -> its digest then (outside.py)
    seconds: float  # how long its run took: results only, never the site


class Manifest(_Model):
    """The folder's index: format, the settings the blocks ran with, and each page's file."""

    format: int
    block_timeout: float
    block_inputs: list[str]
    block_memory: int
    python: str  # platform.python_version() of the check
    machinery: str  # tree_digest of sitebuild/
    pages: dict[str, str]  # src_uri -> its file, relative to the folder


ENVIRONMENT = ("block_timeout", "block_inputs", "block_memory", "python", "machinery")  # Manifest's, environment()'s


def environment(timeout: float, inputs: list[str], memory: int) -> dict:
    """What every page of a check ran with, as the manifest keeps it (and current() compares with this build's).

    Args:
        timeout: block_timeout (seconds); inputs: block_inputs; memory: block_memory (MB).

    Example: environment(60.0, ["kit"], 4096)["python"] == platform.python_version()
    """
    return {"block_timeout": float(timeout), "block_inputs": sorted(inputs), "block_memory": int(memory),
            "python": platform.python_version(), "machinery": tree_digest(MACHINERY, MACHINERY.parent)}


def page_file(src_uri: str) -> str:
    """A page's file in a results folder. Example: page_file("beginner/a.md") == "pages/beginner/a.md.json" """
    return f"{PAGES}/{src_uri}.json"


def page_results(src_uri: str, now: Digests, outcomes: list[Outcome], results: list[Result], problems: list[str],
                 read: dict[str, str] | None, seconds: float, outside: dict[str, str] | None = None) -> PageResults:
    """One page's results, from its run (results) and its verification (outcomes, one per block, in order).

    Args:
        src_uri: the page, e.g. "a.md"; now: its digests when its run started (digests());
        outcomes: verify.verify's, one per block; results: the run's, one per block; problems: the page's own;
        read: what the run read ({input path: digest}, Inputs.counted) or None; seconds: how long the run took;
        outside: the other files of the site root it read (outside.Outside.reads), or None when its reads are not known.

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
                       outside=None if read is None else dict(outside or {}), seconds=round(seconds, 3))


def _dump(model: BaseModel) -> str:
    return json.dumps(model.model_dump(mode="json"), sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def write(folder: Path, ran_with: dict, pages: list[PageResults]) -> None:
    """Write a results folder: pages/ and manifest.json anew (anything else in folder is left alone).

    Args:
        folder: where (made if missing); ran_with: what the pages ran with (environment(), or a manifest's
        fields of it, ENVIRONMENT); pages: each page's results.

    Raises:
        OSError: the folder cannot be written.

    Example: write(Path("results"), environment(60.0, ["kit"], 4096), [page_results(...)])
    """
    folder.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(folder / PAGES, ignore_errors=True)
    (folder / MANIFEST).unlink(missing_ok=True)
    for page in pages:
        path = folder / page_file(page.page)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_dump(page), encoding="utf-8")
    manifest = Manifest(format=FORMAT, **{name: ran_with[name] for name in ENVIRONMENT},
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
        text = (folder / MANIFEST).read_text(encoding="utf-8")
        raw = json.loads(text)
        if isinstance(raw, dict) and raw.get("format") != FORMAT:
            raise ResultsError(f"{folder}/{MANIFEST}: results of format {raw.get('format')!r}; this build reads "
                               f"{FORMAT} (run `python -m sitebuild check --results {folder}` again)")
        manifest = Manifest.model_validate_json(text)
    except ResultsError:
        raise
    except (OSError, ValueError) as error:
        raise ResultsError(f"{folder}/{MANIFEST} cannot be read as check results (run `python -m sitebuild check "
                           f"--results {folder}`): {_short(error)}") from None
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
        if not blocks:  # nothing ran, so nothing was read (audit.paths would say "it left no record")
            read, unknown = ({} if trace else None), ""
        elif tracer == audit.AUDIT:
            read, unknown = audit.paths(Path(records))
        else:
            read = reads.paths(Path(records)) if trace else None
            unknown = "strace's record of it is incomplete" if trace and read is None else ""
    seconds = time.monotonic() - start
    second = run_blocks(blocks, root, page, timeout, guard=guard, memory=memory) if twice else None
    return first, second, read, unknown, seconds
