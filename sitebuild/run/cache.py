"""`make serve`'s output cache: a page whose blocks would run exactly as one of its last runs reuses its results.

A page's run is kept under two parts:
- its key (page_key), a SHA-256 over what every run depends on: the page's executed blocks in order
  (language, code, and the options that change a run: timeout, workdir, width; see Block.run_signature),
  the Python version and executable, the machinery that runs blocks (every file of sitebuild/), the lock
  (requirements.lock), the block environment (runner.block_env), the site's default timeout and the list
  of block inputs (environment_digest). Display options (title, hl_lines, show, source, ...) and the
  page's prose are not in it, so editing them re-runs nothing;
- its reads: the block inputs the run read (audit.py records them in every build, or reads.py with strace;
  inputs.py digests them), each with its digest when the run started, and the other files of the site root it
  read (mkdocs.yml grepped for the nav, another page: find/outside.py), each with its digest as the run ended.
  A run whose reads are not known for sure (a program whose reads are not recorded, a process that left no
  whole record) keeps the digest of every input file and every other file of the site root but the pages
  instead (everything(): so a prose edit re-runs nothing, as a page's key promises).
A stored run is reused when its key is the page's and every file it read is as it was (or, for a run whose
reads are not known, every file of the site root but the pages is). An edit of a kit module re-runs only the
pages whose runs read it; undoing the edit re-runs nothing, since each page keeps its last MAX_RUNS runs (at
most MAX_BYTES of JSON), newest first, and the run from before the edit is one of them.

Only `make serve` reads the cache: `make site`, `make test` and `make accept` always run every
block, so a build or CI never shows a cached output. (One test reads it on purpose, with
REUSE_ENV set: the second build of the same-bytes-twice test, which checks the rendering.) Builds
and serve store the runs in which every block passed (a failing page runs again next time), so
the first serve after `make site` starts warm. The cache is a git-ignored folder,
`.cache/sitebuild/`, one small JSON file per page; deleting it is always safe.

Stores are atomic and never fatal: each writes a temporary file of a unique name in the cache folder
and renames it over the entry (os.replace), so two builds storing the same page at once (`make site`
while `make serve` rebuilds) each leave a whole entry (one of the two runs may be lost: it runs again),
and get() never reads a half-written one. A store that fails (a full disk, a folder that cannot be written)
is logged as a WARNING naming the page and the reason; the build goes on, since a lost store only costs
the next serve a run. That warning is logged on "sitebuild.cache", outside MkDocs' own "mkdocs" logger, and
shown through MkDocs' handlers (logs.uncounted), so that a strict build does not count it as a failure.

Left out: what find/outside.py leaves out (a read the audit hook cannot see, such as a stat of a file that is not
there; caches; .git): list such files in the plugin's `block_inputs`, or delete the cache folder.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from sitebuild.find import outside
from sitebuild.find.blocks import Block
from sitebuild.find.inputs import MACHINERY, Inputs, tree_files
from sitebuild.logs import uncounted
from sitebuild.run.runner import Result, block_env

FOLDER = Path(".cache") / "sitebuild"
REUSE_ENV = "SITEBUILD_REUSE"  # "1": a build outside serve mode reads the cache too (the site's own tests only)
LOCK = "requirements.lock"
MAX_RUNS = 8  # runs kept per page, newest first
MAX_BYTES = 1_000_000  # of one page's entry; the oldest runs are dropped first (the newest is always kept)


log = uncounted("sitebuild.cache")  # a store that fails is a warning that never fails a build (logs.py)

def environment_digest(root: Path, inputs: list[str] | tuple[str, ...], default_timeout: float) -> str:
    """A digest of what every run of a page depends on besides its blocks (see the module docstring).

    Args:
        root: the site root; inputs: the block inputs, paths relative to it (their names count here; their
            files count through a run's reads, inputs.Inputs); default_timeout: the site's block timeout (seconds).

    Returns:
        A hex SHA-256; it changes when the machinery, the lock, Python, the block environment or the list of
        inputs changes.

    Example: environment_digest(Path("."), DEFAULT_INPUTS, 60.0)  # 64 hex digits
    """
    digest = hashlib.sha256()
    digest.update(f"{sys.version}\n{sys.executable}\n{default_timeout!r}\n{sorted(inputs)}\n".encode())
    digest.update(json.dumps(sorted(block_env(root, scratch=Path("<scratch>")).items())).encode())
    lock = root / LOCK
    digest.update(b"\0lock\0" + (lock.read_bytes() if lock.is_file() else b"(none)"))
    for file in tree_files(MACHINERY):
        digest.update(f"\0{file.relative_to(MACHINERY.parent).as_posix()}\0".encode())
        digest.update(file.read_bytes())
    return digest.hexdigest()


def page_key(blocks: list[Block], default_timeout: float, environment: str) -> str:
    """The cache key of a page's run. Example: page_key(blocks, 60.0, environment_digest(...))"""
    signatures = [block.run_signature(default_timeout) for block in blocks]
    return hashlib.sha256(json.dumps([environment, signatures]).encode()).hexdigest()


def everything(inputs: Inputs, rest: outside.Outside) -> str:
    """What a run whose reads are not known is held to: every input file and every other file of the site root
    that rest counts (OutputCache leaves the docs folder out of it: a prose edit re-runs nothing in serve).

    Example: everything(Inputs(root, ["kit"]), outside.Outside(root, [root / "docs"]))  # 64 hex digits
    """
    return hashlib.sha256(f"{inputs.full}\0{rest.tree()}".encode()).hexdigest()


class _StoredResult(BaseModel):
    """One runner.Result as stored: every field of it (test_site_cache checks that none is missing)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    output: str
    problem: str
    exit_code: int
    killed: list[str]
    undecodable: str


class _Run(BaseModel):
    """One stored run: its key, its reads (None: not known) or else every input's digest, its results."""

    model_config = ConfigDict(extra="forbid", strict=True)
    key: str
    reads: dict[str, str] | None
    outside: dict[str, str] = {}  # the other files of the site root it read (find/outside.py)
    inputs: str
    results: list[_StoredResult]

    def fits(self, key: str, inputs: Inputs, others: outside.Outside, rest: outside.Outside) -> bool:
        if self.key != key:
            return False
        if self.reads is None:
            return self.inputs == everything(inputs, rest)
        return inputs.unchanged(self.reads) and not others.changed(self.outside)


class _Entry(BaseModel):
    """One page's cache file, as put() writes it: its runs, newest first; anything else reads as a miss."""

    model_config = ConfigDict(extra="forbid", strict=True)
    page: str
    runs: list[_Run]


class OutputCache:
    """Each page's last runs, one JSON file per page under folder.

    Example:
        cache = OutputCache(root / FOLDER); cache.put("docs/a.md", key, results, inputs, reads)
        cache.get("docs/a.md", key, inputs)  # those results, while what the run read is unchanged
    """

    def __init__(self, folder: Path, leave_out: list[Path] | tuple[Path, ...] = (),
                 unread: list[Path] | tuple[Path, ...] = ()) -> None:
        self.folder = folder
        self.leave_out = [folder, *leave_out]  # never a read that counts (outside.Outside): the cache, the site
        self.unread = list(unread)  # left out of what a run whose reads are not known is held to: the docs folder
        self._outside: dict[Path, tuple[outside.Outside, outside.Outside]] = {}  # made once per site root

    def _others(self, inputs: Inputs) -> tuple[outside.Outside, outside.Outside]:
        """The other files of the site root as a run's reads count them, and as everything() counts them."""
        if inputs.root not in self._outside:
            others = outside.Outside(inputs.root, self.leave_out)
            self._outside[inputs.root] = others, others.without(self.unread)
        return self._outside[inputs.root]

    def _path(self, page: str) -> Path:
        return self.folder / (hashlib.sha256(page.encode()).hexdigest()[:16] + ".json")

    def _runs(self, page: str) -> list[_Run]:
        try:
            entry = _Entry.model_validate_json(self._path(page).read_text(encoding="utf-8"))
        except (OSError, ValueError):  # pydantic's ValidationError is a ValueError
            return []
        return entry.runs if entry.page == page else []

    def get(self, page: str, key: str, inputs: Inputs) -> list[Result] | None:
        """The results of the newest stored run of page that fits now, or None.

        Args:
            page: the page's path, e.g. "docs/a.md"; key: its page_key now; inputs: the block inputs now.

        Returns:
            The results of the newest run stored under key whose reads are all unchanged in inputs (a run
            whose reads are not known: whose inputs were all the same); None when none fits, or the entry is
            missing or unreadable.

        Example: OutputCache(root / FOLDER).get("docs/a.md", key, Inputs(root, DEFAULT_INPUTS))
        """
        others, rest = self._others(inputs)
        for run in self._runs(page):
            if run.fits(key, inputs, others, rest):
                return [Result(**{**r.model_dump(), "killed": tuple(r.killed)}) for r in run.results]
        return None

    def put(self, page: str, key: str, results: list[Result], inputs: Inputs, reads: dict[str, bool] | None) -> bool:
        """Store a run of a page as its newest, atomically; a store that fails is logged, never raised.

        Args:
            page: the page's path, e.g. "docs/a.md"; key: its page_key; results: its blocks' results.
                The caller stores only runs in which every block passed.
            inputs: the block inputs as they were when the run started (their digests are stored).
            reads: what the run read ({absolute path: whether its content was read}, reads.paths), or None when
                that is not known for sure.

        Returns:
            True when the run was stored; False when it could not be (logged as a WARNING on
            "sitebuild.cache" naming the page and the reason; the entry stays as it was). The entry keeps
            at most MAX_RUNS runs and MAX_BYTES of JSON, dropping the oldest; a run with the same key and
            reads as the new one is replaced by it.

        Example: OutputCache(root / FOLDER).put("docs/a.md", key, [Result("hi\\n")], inputs, {"/repo/kit/a.py": True})
        """
        others, rest = self._others(inputs)
        run = _Run(key=key, reads=None if reads is None else inputs.counted(reads),
                   outside={} if reads is None else others.reads(reads, inputs),
                   inputs="" if reads is not None else everything(inputs, rest),
                   results=[_StoredResult(**{**asdict(r), "killed": list(r.killed)}) for r in results])
        same = (run.key, run.reads, run.outside, run.inputs)
        runs = [run] + [r for r in self._runs(page) if (r.key, r.reads, r.outside, r.inputs) != same]
        runs = runs[:MAX_RUNS]
        text = _Entry(page=page, runs=runs).model_dump_json()
        while len(runs) > 1 and len(text.encode()) > MAX_BYTES:
            runs.pop()
            text = _Entry(page=page, runs=runs).model_dump_json()
        path, temporary, stored = self._path(page), None, False
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(prefix=path.stem + ".", suffix=".tmp", dir=self.folder)
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                file.write(text)
            os.replace(temporary, path)  # atomic: a reader sees the old entry or the new one, never half of one
            stored = True
        except OSError as error:
            reason = f"{type(error).__name__}: {error.strerror or error}"
            log.warning(f"serve cache: could not store the results of {page} in {self.folder} ({reason}); "
                        "the build goes on, and the next serve runs this page again.")
        finally:
            if temporary is not None and not stored:  # a failed store, or one interrupted (Ctrl-C) mid-way
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
        return stored
