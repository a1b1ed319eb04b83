"""What a shard adds to a results folder (results.py), and the folder as `python -m sitebuild merge` reads it.

`python -m sitebuild check --shard I/N --results DIR` writes the results folder of results.py (manifest.json, one
file per page with the digests of the page's source, the block inputs and the lock, each block's outcome) and,
beside it, shard.json (write_shard), which results.read leaves alone:

    {"shard": "I/N" or null, "digests": {input: sha256}, "problems": [failures not of one page], "merged": [...]}

input_digests() is what every shard must agree on, beyond what results.py digests per page, for its results to be
merged: the kit, the lock, pyproject.toml, the build machinery (sitebuild/), mkdocs.yml, the nav's pages, the
approved outputs (data/, but data/durations.json) and the Python version. Which pages a merge must find is not in
the folders: merge takes the nav of the checkout it runs in (mkdocs.yml).

read_folder() is the narrow interface merge.py uses: a Results of page -> its PageResults, a dict of digests (the
shard's, plus the manifest's block settings and the pages' block-input and lock digests), the failed pages and the
site-wide problems.
"""

from __future__ import annotations

import hashlib
import json
import platform
from dataclasses import dataclass, field
from pathlib import Path

from sitebuild.find.inputs import MACHINERY, tree_digest
from sitebuild.shard.shards import DURATIONS_FILE
from sitebuild.verify import results

SHARD_FILE = "shard.json"
MANIFEST_DIGESTS = ("block_timeout", "block_inputs", "block_memory", "machinery", "block inputs", "requirements.lock")


class ResultsError(ValueError):
    """A results folder that cannot be read (results.read's error, or a shard.json that is not JSON)."""


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
        "kit": tree_digest(root / "kit", root),
        "requirements.lock": tree_digest(root / "requirements.lock", root),
        "pyproject.toml": tree_digest(root / "pyproject.toml", root),
        "sitebuild": tree_digest(MACHINERY, MACHINERY.parent),
        "mkdocs.yml": tree_digest(config_file, config_file.parent),
        "pages": pages_digest.hexdigest(),
        "data": tree_digest(data_dir, root, skip) if data_dir.is_dir() else "missing",
        "python": platform.python_version(),
    }


def write_shard(folder: Path, shard: str | None, digests: dict[str, str], problems: list[str],
                merged: list[str] | None = None) -> None:
    """Write shard.json into a results folder (module docstring).

    Args:
        folder: the results folder (results.write wrote it); shard: "I/N", or None; digests: input_digests();
        problems: failure messages not of one page (approved files of pages gone, the results not written);
        merged: for a merged folder, the shards it was merged from.

    Example: write_shard(Path("results-1"), "1/3", input_digests(...), [])
    """
    data = {"shard": shard, "digests": dict(sorted(digests.items())), "problems": list(problems)}
    if merged is not None:
        data["merged"] = merged
    folder.mkdir(parents=True, exist_ok=True)
    temporary = folder / (SHARD_FILE + ".tmp")
    temporary.write_text(json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    temporary.replace(folder / SHARD_FILE)


@dataclass
class Results:
    """A results folder as merge reads it.

    Attributes:
        folder: where it is; shard: "I/N", or None (no shard.json, a whole check, a merge); manifest: its
        results.Manifest; pages: page -> its results.PageResults; digests: input -> digest (see read_folder);
        failed: page -> how many failures; problems: failure messages not of one page.
    """

    folder: Path
    shard: str | None
    manifest: results.Manifest
    pages: dict[str, results.PageResults]
    digests: dict[str, str]
    failed: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        """How messages name it: its folder, and its shard if any. Example: "results-1 (shard 1/3)\""""
        return f"{self.folder}" + (f" (shard {self.shard})" if self.shard else "")


def _one(values: set[str]) -> str:
    """The one value of a set, or all of them when they differ (a folder whose pages ran on different inputs)."""
    return next(iter(values)) if len(values) == 1 else "mixed: " + ", ".join(sorted(values))


def failures(page: results.PageResults, docs: str = "docs") -> list[str]:
    """The failure messages a page's results hold, as check prints them (without the diff under a changed output).

    Args:
        page: its results; docs: the docs folder's name, relative to the site root.

    Returns:
        One message per page problem and per block whose outcome is not results.PASSED.

    Example: failures(page) == ["docs/a.md, block 2 (python, line 9), key python-1a2b3c4d: output differs ..."]
    """
    messages = [f"{docs}/{page.page}: {problem}" for problem in page.problems]
    return messages + [f"{docs}/{page.page}, {b.label}, key {b.key}: {b.outcome}" for b in page.blocks
                       if b.outcome != results.PASSED]


def read_folder(folder: Path) -> Results:
    """Read a results folder (results.read) and its shard.json, if any.

    Args:
        folder: a folder `check --results` or `merge --into` wrote.

    Returns:
        Its Results. digests: shard.json's, plus (MANIFEST_DIGESTS) "block_timeout", "block_inputs", "block_memory"
        and "machinery" (the manifest's) and
        "block inputs" and "requirements.lock" (the pages' digests of them: one value, or "mixed: ..."; absent
        when the folder holds no page).

    Raises:
        ResultsError: results.read fails, or shard.json cannot be read; the message names the folder or file.

    Example: read_folder(Path("results-1")).shard == "1/3"
    """
    try:
        manifest, pages = results.read(folder)
    except results.ResultsError as error:
        raise ResultsError(str(error)) from None
    sidecar: dict = {}
    if (folder / SHARD_FILE).exists():
        try:
            sidecar = json.loads((folder / SHARD_FILE).read_text(encoding="utf-8"))
            if not isinstance(sidecar, dict):
                raise ValueError("not a JSON object")
            shard, extra, problems = sidecar.get("shard"), dict(sidecar.get("digests") or {}), sidecar.get("problems")
            if not isinstance(problems, list | None):
                raise ValueError(f"its problems are {type(problems).__name__}, not a list")
            problems = [str(p) for p in problems or []]
        except (OSError, UnicodeDecodeError, ValueError, TypeError) as error:
            raise ResultsError(f"{folder / SHARD_FILE}: cannot be read: {error}") from None
    else:
        shard, extra, problems = None, {}, []
    digests = {str(k): str(v) for k, v in extra.items()}
    digests.update({"block_timeout": f"{manifest.block_timeout:g}", "block_inputs": ", ".join(manifest.block_inputs),
                    "block_memory": str(manifest.block_memory), "machinery": manifest.machinery})
    if pages:  # a shard with no page has no digest of its own of the block inputs and the lock
        digests.update({"block inputs": _one({p.digests.inputs for p in pages.values()}),
                        "requirements.lock": _one({p.digests.lock for p in pages.values()})})
    failed = {uri: n for uri, page in pages.items() if (n := len(failures(page)))}
    return Results(folder, None if shard is None else str(shard), manifest, pages, digests, failed, problems)
