"""The files of the site root a run read beyond its block inputs: mkdocs.yml grepped for the nav, another page
read by a test, a file looked for and not found.

inputs.py keys a run on the block inputs it read; a block may read any other file it can, and its output then
depends on that file too. outside_reads() keeps each such file under the site root with a digest of it as the run
ended (digest(); the sandbox keeps the site root read-only while blocks run), so that a check's results
(verify/stale.py) and the serve cache (run/cache.py) can tell when one changed. A path that is not there counts as
"missing": creating it changes what the run would find.

Left out: files outside the site root (the standard library, the venv: what the lock and the Python version pin),
the machinery (sitebuild/: its own digest in every key), caches and .git, and the sys.path entry of an editable
install's import hook (EDITABLE_HOOK), which names no file.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from sitebuild.find.inputs import CACHE_DIRS, MACHINERY, MISSING, SKIPPED, Inputs

EDITABLE_HOOK = "__editable__."  # setuptools' "__editable__.<project>.finder.__path_hook__", a sys.path entry


def digest(path: Path, content: bool) -> str:
    """A file or folder outside the block inputs as outside_reads keeps it.

    Args:
        path: the file or folder; content: whether the run read its content (else it only looked at it).

    Returns:
        "c:" and the SHA-256 of a file's bytes, of a folder's sorted entry names or of a link's target when its
        content was read; else "m:" and what it is ("m:file", "m:folder"); "missing" when it is not there.

    Example: digest(Path("mkdocs.yml"), False) == "m:file"
    """
    if path.is_symlink() or not path.exists():
        return MISSING if not path.is_symlink() else "c:" + hashlib.sha256(os.readlink(path).encode()).hexdigest()
    kind = "folder" if path.is_dir() else "file" if path.is_file() else "other"
    if not content or kind == "other":
        return f"m:{kind}"
    try:
        if kind == "folder":
            return "c:" + hashlib.sha256("\0".join(sorted(os.listdir(path))).encode()).hexdigest()
        return "c:" + hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return MISSING


def outside_reads(root: Path, paths: dict[str, bool], inputs: Inputs, leave_out: list[Path]) -> dict[str, str]:
    """The files of the site root a run read that no other digest covers, each with its digest now.

    A block's output may depend on a file outside the block inputs (a bash block that greps mkdocs.yml's nav, a
    test that reads another page): check results (stale.py) and the serve cache (cache.py) are held to these
    too. Left out: what is not under root, the block inputs (Inputs.counted keeps those), the machinery (in
    every key), caches and .venv/.git (inputs.SKIPPED, CACHE_DIRS, *.egg-info, *.pyc), the folders of leave_out
    (the site folder, the results folder, the cache), and the sys.path entry of an editable install's import
    hook (EDITABLE_HOOK), which names no file. A path that is not there counts as "missing".

    Args:
        root: the site root; paths: {absolute path: whether its content was read} (audit.paths); inputs: the
            block inputs; leave_out: absolute folders whose files never count.

    Returns:
        {path relative to root: "c:<sha256>" (content read), "m:file"/"m:folder" (only looked at) or "missing"}.

    Example: outside_reads(root, {str(root / "mkdocs.yml"): True}, inputs, []) == {"mkdocs.yml": "c:5e..."}
    """
    base, found = os.path.realpath(root), {}
    skip = [os.path.realpath(MACHINERY), *(os.path.realpath(p) for p in leave_out)]
    for path, content in paths.items():
        real = os.path.normpath(path)
        if not real.startswith(base + os.sep) or inputs.relative(path) is not None:
            continue
        if any(real == s or real.startswith(s + os.sep) for s in skip):
            continue
        relative = Path(os.path.relpath(real, base))
        if any(part in SKIPPED or part in CACHE_DIRS or part.endswith(".egg-info") for part in relative.parts) \
                or relative.suffix in (".pyc", ".pyo") or relative.parts[0].startswith(EDITABLE_HOOK):
            continue
        found[relative.as_posix()] = found.get(relative.as_posix(), False) or content
    return {relative: digest(root / relative, content) for relative, content in sorted(found.items())}


def unchanged(root: Path, reads: dict[str, str]) -> bool:
    """True when every file of a stored run's outside reads still has the digest it had then.

    Example: unchanged(root, outside_reads(root, paths, inputs, [])) is True
    """
    return all(digest(root / path, not then.startswith("m:")) == then for path, then in reads.items())
