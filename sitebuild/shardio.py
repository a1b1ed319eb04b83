"""The results folder a sharded check writes and `python -m sitebuild merge` reads (an interim format).

Interim: the results folder's own format (sitebuild/results.py, with pydantic models) is being written on the
`plugin` branch; until it lands, this module is the narrow interface the shards and the merge use, so that
moving them onto results.py is a matter of rewriting read_folder() and the two writers below:

    FOLDER/manifest.json      {"format", "shard": "I/N" or null, "pages": {page: its file, relative to FOLDER},
                               "digests": {input: sha256},
                               "failed": {page: how many failures}, "problems": [site-wide failure messages]}
    FOLDER/pages/PAGE.json    {"page", "seconds", "source": sha256 of the page, "blocks": [{key, output, problem,
                               exit_code}], "failures": [messages as the build prints them]}

input_digests() is what every shard must agree on for its results to be merged: the kit, the lock, pyproject.toml,
the build machinery, mkdocs.yml, the nav's pages, the approved outputs and the Python version. Which pages the merge
must find is not in the folders: merge takes the nav of the checkout it runs in (mkdocs.yml).

On the plugin branch's results.py (seen in progress, not yet committed): its manifest has no shard, failures or
site-wide digests; each page file has its digests (page, block inputs, lock) and each block's outcome ("passed" or
the failure). read_folder() would then build Results from results.read(): digests = the set of the pages' inputs
and lock digests plus the manifest's block settings; failed = the pages with an outcome other than "passed" or a
problem; shard = the folder's name.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
from dataclasses import dataclass, field
from pathlib import Path

from sitebuild.shards import DURATIONS_FILE

FORMAT = "sitebuild-shard-results/1"
MANIFEST = "manifest.json"
PAGES = "pages"
MACHINERY = Path(__file__).resolve().parent
_SKIPPED_DIRS = {"__pycache__", ".pytest_cache", ".hypothesis", ".mypy_cache", ".ruff_cache"}


class ResultsError(ValueError):
    """A results folder that cannot be read (no manifest, bad JSON, a page file missing); the message names it."""


def _tree_digest(top: Path, base: Path, skip: tuple[Path, ...] = ()) -> str:
    """SHA-256 of a file or folder: each regular file's path (relative to base) and bytes, sorted; caches and
    egg-info left out (an editable install writes kit/*.egg-info on each machine)."""
    digest = hashlib.sha256()
    if top.is_file():
        files = [top]
    elif top.is_dir():
        files = []
        for folder, subfolders, names in os.walk(top):
            subfolders[:] = sorted(d for d in subfolders if d not in _SKIPPED_DIRS and not d.endswith(".egg-info"))
            files += [Path(folder) / n for n in names if not n.endswith((".pyc", ".pyo"))]
        files.sort()
    else:
        return "missing"
    for file in files:
        if file.is_file() and not file.is_symlink() and file not in skip:
            digest.update(f"\0{file.relative_to(base).as_posix()}\0".encode())
            digest.update(file.read_bytes())
    return digest.hexdigest()


def input_digests(root: Path, docs_dir: Path, data_dir: Path, config_file: Path, pages: list[str]) -> dict[str, str]:
    """The digests of what a page's run depends on besides its own blocks, which every shard must share.

    Args:
        root: the site root; docs_dir, data_dir, config_file: the site's pages folder, approved outputs and
            mkdocs.yml; pages: the nav's pages (src_uris).

    Returns:
        {"kit", "requirements.lock", "pyproject.toml", "sitebuild", "mkdocs.yml", "pages", "data": sha256 hex,
        "python": the version}; a missing input digests as "missing"; data/durations.json left out.

    Example: input_digests(site.root, site.docs_dir, site.data_dir, site.config_file, site.pages)["kit"]
    """
    skip = (root / DURATIONS_FILE,)  # the recorded durations change no output
    pages_digest = hashlib.sha256()
    for page in pages:
        path = docs_dir / page
        pages_digest.update(f"\0{page}\0".encode() + (path.read_bytes() if path.is_file() else b"(missing)"))
    return {
        "kit": _tree_digest(root / "kit", root),
        "requirements.lock": _tree_digest(root / "requirements.lock", root),
        "pyproject.toml": _tree_digest(root / "pyproject.toml", root),
        "sitebuild": _tree_digest(MACHINERY, MACHINERY.parent),
        "mkdocs.yml": _tree_digest(config_file, config_file.parent),
        "pages": pages_digest.hexdigest(),
        "data": _tree_digest(data_dir, root, skip) if data_dir.is_dir() else "missing",
        "python": platform.python_version(),
    }


def page_file(page: str) -> str:
    """Where a page's result goes in a results folder, relative to it.

    Example: page_file("a/b.md") == "pages/a/b.md.json"
    """
    return f"{PAGES}/{page}.json"


def _write_json(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    temporary.replace(path)


def write_page(folder: Path, page: str, data: dict) -> str:
    """Write one page's result (the module docstring's fields) into a results folder.

    Args:
        folder: the results folder; page: the page's src_uri; data: its result.

    Returns:
        The file's path relative to folder (page_file).

    Example: write_page(Path("results-1"), "index.md", {"page": "index.md", "failures": []}) == "pages/index.md.json"
    """
    relative = page_file(page)
    _write_json(folder / relative, data)
    return relative


def write_manifest(folder: Path, manifest: dict) -> None:
    """Write a results folder's manifest (last: a folder with a manifest is complete).

    Args:
        folder: the results folder; manifest: the module docstring's fields ("format" is filled in).

    Example: write_manifest(Path("results-1"), {"shard": "1/3", "nav": [], "pages": {}, "digests": {}})
    """
    _write_json(folder / MANIFEST, {"format": FORMAT, **manifest})


@dataclass
class Results:
    """A results folder as merge reads it.

    Attributes:
        folder: where it is; shard: "I/N", or None (a whole check, or a merge); pages: page -> its result file
        (absolute); digests: input -> digest; failed: page -> how many failures; problems: site-wide failure
        messages (not of one page).
    """

    folder: Path
    shard: str | None
    pages: dict[str, Path]
    digests: dict[str, str]
    failed: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        """How messages name it: its folder, and its shard if any. Example: "results-1 (shard 1/3)\""""
        return f"{self.folder}" + (f" (shard {self.shard})" if self.shard else "")


def read_folder(folder: Path) -> Results:
    """Read a results folder's manifest (not the page files' contents: only that they exist).

    Args:
        folder: a folder `check --results` or `merge --into` wrote.

    Returns:
        Its Results.

    Raises:
        ResultsError: no manifest, one that is not this format, or a page file it names that is missing.

    Example: read_folder(Path("results-1")).shard == "1/3"
    """
    path = folder / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ResultsError(f"{folder}: no {MANIFEST}; not a results folder (or its check did not finish)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ResultsError(f"{path}: cannot be read: {error}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ResultsError(f"{path}: not a results manifest of format {FORMAT}")
    try:
        pages = {str(page): folder / str(file) for page, file in dict(manifest["pages"]).items()}
        results = Results(folder, manifest.get("shard"), pages,
                          {str(k): str(v) for k, v in dict(manifest["digests"]).items()},
                          {str(k): int(v) for k, v in dict(manifest.get("failed") or {}).items()},
                          [str(p) for p in manifest.get("problems") or []])
    except (KeyError, TypeError, ValueError) as error:
        raise ResultsError(f"{path}: a field is missing or of the wrong kind: {error!r}") from None
    for page, file in pages.items():
        if not file.is_file():
            raise ResultsError(f"{folder}: the result of {page} ({file.relative_to(folder)}) is missing")
    return results


def page_failures(file: Path) -> list[str]:
    """The failure messages a page's result file records. Example: page_failures(Path("r/pages/index.md.json"))"""
    try:
        return [str(m) for m in json.loads(file.read_text(encoding="utf-8")).get("failures", [])]
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, AttributeError) as error:
        return [f"{file}: its result cannot be read: {error}"]
