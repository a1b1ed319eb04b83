"""The block inputs as one build found them: a digest of each file and folder, read once when the build starts.

The plugin's `block_inputs` (default kit, pyproject.toml, requirements.lock) names what a page's cache key may
hold besides its blocks. Inputs walks them once per build, caches left out (SKIPPED and CACHE_DIRS: __pycache__,
.pytest_cache, .hypothesis, .git, .venv, ...; *.egg-info, *.pyc), and keeps, by path relative to the site root:
- a file: the SHA-256 of its content, and what it is: "file", its size and whether it can be run;
- a folder: the SHA-256 of its entry names (a listing, as os.listdir or ls reads it), and "folder";
- a symbolic link: the SHA-256 of where it points and of what is there, a file's bytes or a folder's listing
  (path_digest; never walked: a link cannot lead the walk out of the inputs, nor back into a folder it is
  walking, where two links to their own folder would never end), and "link".
Only regular files are read: a named pipe, a socket or a device (an untracked FIFO under kit/ would block the
read forever) is listed, not read, and named in `skipped`, with the links (hook.py logs them in one INFO line).
A path a run read through a linked folder is digested as it is when asked (digest()), so an edit behind a link
counts too.
A run that read a path's content (opened it, ran it, listed it) is keyed on its content; one that only looked
at it (stat, access: pytest looks at every file beside the one it runs) on what it is.
`full` digests all of them: the key of a page whose reads are not known (reads.py returned None).
counted() maps the paths a run read (reads.paths) to those entries: a path inside an input counts, by the
input's path or by the real path of the input or of a linked folder inside it; a path under no input
(docs/, data/, the venv, the standard library) does not. A counted path that is not there is "missing",
so creating it changes the key too.

Every digest comes from the walk made before any block of the build runs, so a run is stored with the
inputs as they were when it started: a file edited while the build runs reads as changed at the next
build, and the page runs again (never a stale page).

Left out: file modes and times (an output that prints them depends on the machine anyway).
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable
from pathlib import Path

SKIPPED = {"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".git", ".venv"}  # caches, not inputs
MISSING = "missing"

DEFAULT_INPUTS = ("kit", "pyproject.toml", "requirements.lock")  # the block inputs unless the plugin names others
MACHINERY = Path(__file__).resolve().parents[1]  # sitebuild/, every stage of it
CACHE_DIRS = {"__pycache__", ".pytest_cache", ".hypothesis", ".mypy_cache", ".ruff_cache"}


def tree_files(top: Path) -> list[Path]:
    """The files under a folder, sorted, caches left out (CACHE_DIRS, *.egg-info folders, *.pyc and *.pyo files):
    the machinery's files for the serve cache's key, a shard's digests and serve's reload of the plugin.

    Args:
        top: a folder; one that is not there has no files.

    Returns:
        Paths under top, sorted.

    Example: Path(MACHINERY, "__init__.py") in tree_files(MACHINERY)
    """
    found = []
    for folder, subfolders, names in os.walk(top):
        subfolders[:] = sorted(d for d in subfolders if d not in CACHE_DIRS and not d.endswith(".egg-info"))
        found += [Path(folder) / name for name in names if not name.endswith((".pyc", ".pyo"))]
    return sorted(found)


def tree_digest(top: Path, base: Path, skip: tuple[Path, ...] = ()) -> str:
    """SHA-256 of a file or a folder: each regular file's path (relative to base) and bytes, sorted (tree_files:
    caches and *.egg-info left out, links not read); "missing" when top is not there.

    Args:
        top: a file or folder; base: what the paths in the digest are relative to; skip: files left out.

    Example: tree_digest(MACHINERY, MACHINERY.parent)  # 64 hex digits, the same on every machine
    """
    digest = hashlib.sha256()
    if top.is_file():
        files = [top]
    elif top.is_dir():
        files = tree_files(top)
    else:
        return MISSING
    for file in files:
        if file.is_file() and not file.is_symlink() and file not in skip:
            digest.update(f"\0{file.relative_to(base).as_posix()}\0".encode())
            digest.update(file.read_bytes())
    return digest.hexdigest()


def path_digest(path: Path, content: bool, counts: Callable[[str, str], bool] | None = None) -> str:
    """A file or folder as it is now, following links: what a read of it is held to.

    Args:
        path: the file or folder; content: whether its content was read (else only what it is counts);
        counts: (name, absolute path) -> whether a folder's entry counts in its listing (default: all but
            caches, SKIPPED).

    Returns:
        "c:" and the SHA-256 of a regular file's bytes or of a folder's sorted entry names that count, after the
        link's target when path is a link (content read); else "m:" and what it is ("m:file", "m:folder",
        "m:other"); "missing" when it is not there. Only a regular file is read, never a pipe or a device.

    Example: path_digest(Path("kit"), False) == "m:folder"
    """
    try:
        status = os.stat(path)
    except OSError:
        return MISSING
    kind = "folder" if stat.S_ISDIR(status.st_mode) else "file" if stat.S_ISREG(status.st_mode) else "other"
    if not content or kind == "other":
        return f"m:{kind}"
    digest = hashlib.sha256(os.readlink(path).encode() + b"\0" if os.path.islink(path) else b"")
    try:
        if kind == "folder":
            keep = counts or (lambda name, _: not _skipped(name))
            digest.update("\0".join(sorted(n for n in os.listdir(path) if keep(n, os.path.join(path, n)))).encode())
        else:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
            with os.fdopen(fd, "rb") as opened:
                digest.update(hashlib.file_digest(opened, "sha256").digest())
    except OSError:
        return MISSING
    return "c:" + digest.hexdigest()


def _skipped(name: str) -> bool:
    return name in SKIPPED or name in CACHE_DIRS or name.endswith((".pyc", ".pyo", ".egg-info"))


class Inputs:
    """The digests of the block inputs under root (see the module docstring).

    Example:
        inputs = Inputs(root, ["kit", "requirements.lock"]); inputs.digest("kit/evidencedesk/usage.py")  # 64 hex
    """

    def __init__(self, root: Path, names: list[str] | tuple[str, ...]) -> None:
        self.root = root
        self.names = sorted(names)
        self.entries: dict[str, str] = {}  # path -> "c:" + its content's digest
        self.kinds: dict[str, str] = {}  # path -> "m:" + what it is
        self.bases: list[tuple[str, str]] = []  # (absolute prefix, the path relative to root it stands for)
        self.skipped: list[str] = []  # "path (what it is)" of what was listed but not read: links, pipes, devices
        for name in self.names:
            path = root / name
            for prefix in {os.path.normpath(str(path)), os.path.realpath(path)}:
                self.bases.append((prefix, name))
            if path.is_dir():  # a top-level input named in mkdocs.yml may be a link: the author's choice
                self._walk(path, name)
            elif path.is_file():
                self._file(path, name)
        self.bases.sort(key=lambda base: -len(base[0]))  # the longest prefix first: a linked folder before its input
        whole = hashlib.sha256()
        for relative in sorted(self.entries):
            whole.update(f"\0{relative}\0{self.entries[relative]}".encode())
        whole.update(f"\0inputs {self.names}".encode())
        self.full = whole.hexdigest()

    def _walk(self, top: Path, relative_top: str) -> None:
        for folder, subfolders, names in os.walk(top):  # links to folders are listed, never followed
            subfolders[:] = sorted(d for d in subfolders if not _skipped(d))
            relative = os.path.join(relative_top, os.path.relpath(folder, top)).removesuffix(os.sep + ".")
            relative = Path(relative).as_posix()
            linked = [d for d in subfolders if os.path.islink(os.path.join(folder, d))]
            subfolders[:] = [d for d in subfolders if d not in linked]
            shown = sorted([*subfolders, *linked, *(n for n in names if not _skipped(n))])
            self.entries[relative] = "c:" + hashlib.sha256("\0".join(shown).encode()).hexdigest()
            self.kinds[relative] = "m:folder"
            for name in sorted([*linked, *names]):
                if not _skipped(name):
                    try:
                        self._file(Path(folder) / name, f"{relative}/{name}")
                    except OSError:
                        continue  # gone since the walk listed it: not an input file

    def _file(self, path: Path, relative: str) -> None:
        """Digest one entry that is not a folder: a regular file by content, a link by its target, else nothing."""
        if path.is_symlink():  # where it points, and the content of a regular file it points to
            followed = path_digest(path, True)  # a dangling link: where it points
            self.entries[relative] = followed if followed != MISSING else \
                "c:" + hashlib.sha256(os.readlink(path).encode()).hexdigest()
            self.kinds[relative] = "m:link"
            self.skipped.append(f"{relative} (a symbolic link, not walked)")
            return
        if not stat.S_ISREG(os.lstat(path).st_mode):  # a pipe, a socket, a device: never opened
            self.kinds[relative] = "m:other"
            self.skipped.append(f"{relative} (not a regular file, not read)")
            return
        # O_NONBLOCK: a FIFO put here since the check must not block the open; O_NOFOLLOW: nor a link
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_BINARY", 0))
        with os.fdopen(fd, "rb") as opened:
            status = os.fstat(fd)
            if not stat.S_ISREG(status.st_mode):
                self.kinds[relative] = "m:other"
                self.skipped.append(f"{relative} (not a regular file, not read)")
                return
            self.entries[relative] = "c:" + hashlib.file_digest(opened, "sha256").hexdigest()  # read in chunks
        self.kinds[relative] = f"m:file {status.st_size} {'x' if status.st_mode & 0o111 else '-'}"

    def digest(self, relative: str, content: bool = True) -> str:
        """The digest of a file or folder of the inputs (path relative to root), or "missing".

        Args:
            relative: e.g. "kit/x.py"; content: its content's digest ("c:..."), else what it is ("m:file 120 -").

        Example: Inputs(root, ["kit"]).digest("kit/nothing-here.py") == "missing"
        """
        found = (self.entries if content else self.kinds).get(relative)
        if found is not None:
            return found
        parts = relative.split("/")
        if any(self.kinds.get("/".join(parts[:n])) == "m:link" for n in range(1, len(parts))):
            return path_digest(self.root / relative, content)  # read through a linked folder: digested as it is now
        return MISSING

    def relative(self, path: str) -> str | None:
        """An absolute path as the input path it stands for ("kit/x.py"), or None when it is under no input.

        Example: Inputs(root, ["kit"]).relative(str(root / "kit" / "x.py")) == "kit/x.py"
        """
        for prefix, name in self.bases:
            if path == prefix or path.startswith(prefix + os.sep):
                rest = path[len(prefix):].lstrip(os.sep)
                if any(_skipped(part) for part in rest.split(os.sep) if part):
                    return None  # a cache, never an input
                return f"{name}/{Path(rest).as_posix()}" if rest else name
        return None

    def counted(self, paths: dict[str, bool]) -> dict[str, str]:
        """The reads of a run that are inputs, each with its digest now ("c:3f...", "m:file 120 -" or "missing").

        Args:
            paths: {absolute path: whether its content was read} of a run (reads.paths).

        Returns:
            {path relative to root: digest (of its content where the run read it, else of what it is)}, sorted.

        Example: inputs.counted({"/repo/kit/a.py": True, "/usr/lib/python3.11/os.py": True}) == {"kit/a.py": "c:3f..."}
        """
        found: dict[str, bool] = {}
        for path, content in paths.items():
            if (relative := self.relative(path)) is not None:
                found[relative] = found.get(relative, False) or content
        return {relative: self.digest(relative, found[relative]) for relative in sorted(found)}

    def changed(self, reads: dict[str, str]) -> list[str]:
        """The paths of a stored run's reads (counted()) whose digest is not what it was then, sorted.

        Example: inputs.changed({"kit/a.py": inputs.digest("kit/a.py")}) == []
        """
        return sorted(path for path, then in reads.items() if self.digest(path, not then.startswith("m:")) != then)

    def unchanged(self, reads: dict[str, str]) -> bool:
        """True when every path of a stored run's reads still has the digest it had then.

        Example: inputs.unchanged({"kit/a.py": inputs.digest("kit/a.py")}) is True
        """
        return not self.changed(reads)
