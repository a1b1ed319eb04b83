"""`make serve`'s output cache: a page whose blocks would run exactly as last time reuses last time's results.

A page's key is a SHA-256 over everything that can change what its blocks print:
- the page's executed blocks in order: language, code, and the options that change a run
  (timeout, workdir, width; see Block.run_signature). Display options (title, hl_lines, show,
  source, ...) and the page's prose are not in it, so editing them re-runs nothing;
- the block inputs: every file under the folders and files listed in mkdocs.yml's
  `extra.block_inputs` (default: kit, pyproject.toml, requirements.lock), by path and content;
- the Python version and executable, the machinery that runs blocks (sitebuild/*.py), the block
  environment (runner.block_env) and the site's default timeout.

Only `make serve` reads the cache: `make site`, `make test` and `make accept` always run every
block, so a build or CI never shows a cached output. (One test reads it on purpose, with
REUSE_ENV set: the second build of the same-bytes-twice test, which checks the rendering.) Builds
and serve store the runs in which every block passed (a failing page runs again next time), so
the first serve after `make site` starts warm. The cache is a git-ignored folder,
`.cache/sitebuild/`, one small JSON file per page; deleting it is always safe.

Stores are atomic and never fatal: each writes a temporary file of a unique name in the cache folder
and renames it over the entry (os.replace), so two builds storing the same page at once (`make site`
while `make serve` rebuilds) each leave a whole entry, and get() never reads a half-written one. A
store that fails (a full disk, a folder that cannot be written) is logged as a WARNING naming the page
and the reason; the build goes on, since a lost store only costs the next serve a run. That warning
is logged on "sitebuild.cache", outside MkDocs' own "mkdocs" logger, and shown through MkDocs'
handlers (logs.uncounted), so that a strict build does not count it as a failure.

Left out: files a block reads from outside its inputs (a bash block that cats docs/ or data/):
list them in `extra.block_inputs`, or delete the cache folder.
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

from sitebuild.blocks import Block
from sitebuild.logs import uncounted
from sitebuild.runner import Result, block_env

FOLDER = Path(".cache") / "sitebuild"
DEFAULT_INPUTS = ("kit", "pyproject.toml", "requirements.lock")
REUSE_ENV = "SITEBUILD_REUSE"  # "1": a build outside serve mode reads the cache too (the site's own tests only)
MACHINERY = Path(__file__).resolve().parent


log = uncounted("sitebuild.cache")  # a store that fails is a warning that never fails a build (logs.py)

SKIPPED = {"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".git", ".venv"}  # caches, not inputs


def _files(path: Path) -> list[Path]:
    """The files of an input, sorted, hidden ones included, linked folders followed; caches left out."""
    if path.is_file():
        return [path]
    found = []
    for folder, subfolders, names in os.walk(path, followlinks=True):
        subfolders[:] = sorted(d for d in subfolders if d not in SKIPPED)
        found += [Path(folder) / name for name in names if not name.endswith(".pyc")]
    return sorted(found)


def environment_digest(root: Path, inputs: list[str] | tuple[str, ...], default_timeout: float) -> str:
    """A digest of everything outside a page that can change its outputs (see the module docstring).

    Args:
        root: the site root; inputs: paths relative to it; default_timeout: the site's block timeout (seconds).

    Returns:
        A hex SHA-256; it changes when any input file, the machinery, Python or the block environment changes.

    Example: environment_digest(Path("."), DEFAULT_INPUTS, 60.0)  # 64 hex digits
    """
    digest = hashlib.sha256()
    digest.update(f"{sys.version}\n{sys.executable}\n{default_timeout!r}\n".encode())
    digest.update(json.dumps(sorted(block_env(root, scratch=Path("<scratch>")).items())).encode())
    sources = [(root, root / name) for name in sorted(inputs)] + [(MACHINERY.parent, MACHINERY)]
    for base, path in sources:
        digest.update(f"\0input {path.relative_to(base).as_posix() if path.is_relative_to(base) else path}\0".encode())
        for file in _files(path) if path.exists() else []:
            digest.update(f"\0{file.relative_to(base).as_posix()}\0".encode())
            digest.update(file.read_bytes())
    return digest.hexdigest()


def page_key(blocks: list[Block], default_timeout: float, environment: str) -> str:
    """The cache key of a page's run. Example: page_key(blocks, 60.0, environment_digest(...))"""
    signatures = [block.run_signature(default_timeout) for block in blocks]
    return hashlib.sha256(json.dumps([environment, signatures]).encode()).hexdigest()


class _StoredResult(BaseModel):
    """One runner.Result as stored: every field of it (test_site_cache checks that none is missing)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    output: str
    problem: str
    exit_code: int
    killed: list[str]
    undecodable: str


class _Entry(BaseModel):
    """One page's cache file, as put() writes it; anything else reads as a miss."""

    model_config = ConfigDict(extra="forbid", strict=True)
    page: str
    key: str
    results: list[_StoredResult]


class OutputCache:
    """Last runs' results, one JSON file per page under folder.

    Example:
        cache = OutputCache(root / FOLDER); cache.put("docs/a.md", key, results); cache.get("docs/a.md", key)
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, page: str) -> Path:
        return self.folder / (hashlib.sha256(page.encode()).hexdigest()[:16] + ".json")

    def get(self, page: str, key: str) -> list[Result] | None:
        """The results stored for page under key, or None (no entry, another key, or an unreadable file)."""
        try:
            entry = _Entry.model_validate_json(self._path(page).read_text(encoding="utf-8"))
        except (OSError, ValueError):  # pydantic's ValidationError is a ValueError
            return None
        if (entry.page, entry.key) != (page, key):
            return None
        return [Result(**{**r.model_dump(), "killed": tuple(r.killed)}) for r in entry.results]

    def put(self, page: str, key: str, results: list[Result]) -> bool:
        """Store a page's results under key, atomically; a store that fails is logged, never raised.

        Args:
            page: the page's path, e.g. "docs/a.md"; key: its page_key; results: its blocks' results.
                The caller stores only runs in which every block passed.

        Returns:
            True when the entry was stored; False when it could not be (logged as a WARNING on
            "sitebuild.cache" naming the page and the reason; the entry stays as it was).

        Example: OutputCache(root / FOLDER).put("docs/a.md", key, [Result("hi\\n")])
        """
        text = json.dumps({"page": page, "key": key, "results": [asdict(r) for r in results]})
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
