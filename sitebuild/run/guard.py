"""A block never changes what the build reads or `make serve` watches: catch the one that does, and name it.

The protected files are the pages, the approved outputs, mkdocs.yml, the folders `make serve` watches and
the block inputs, and the `.pth` files of the venv's site-packages, whose import lines Python runs at every
start (a block that adds one runs its code inside the next build: the guard removes a new one).
A block that writes there (a python block appending to kit/data/, a tool keeping its
cache under kit/) makes the next build differ from this one, and under `make serve` it starts a rebuild
that runs the block again, forever. The tools the site runs keep their caches elsewhere
(runner.scratch_env); this guard catches whatever still writes.

Each block runs in a window: the protected files are listed (path, kind, mtime, size, inode, ctime) when it
starts and again when it ends, and whatever differs changed while it ran (the change time too, which a write
that puts the old mtime back cannot reset; hook.py also compares the approved files by content at the end).
Pages run in parallel, so a
change can fall in several windows; the file's own time (its mtime, or its folder's for a deletion)
narrows it to the windows that were open then. Each block that saw the change fails, and where other
windows were open then, its message names them too ("or ..."); block_jobs: 1 tells which.

Left out: which process wrote a file. A change an editor saves while a block runs is named as that
block's too (the next build, which the save starts, clears it).
"""

from __future__ import annotations

import contextlib
import os
import stat
import sysconfig
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

SLACK_NS = 50_000_000  # a file system stamps times from a coarse clock (a few ms); a window is widened by this
WROTE = "wrote into "  # how a write problem starts (hook.py keeps serve from looping on it)


@dataclass
class Window:
    """One block's run: who it is, when it started and ended (time.time_ns(); end 0 while it runs)."""

    who: str
    start: int
    end: int = 0


@dataclass(frozen=True)
class Change:
    """A protected path that differs between two listings: created, changed or removed, and when (ns)."""

    path: str  # relative to the site root
    kind: str
    stamp: int


@dataclass
class WriteGuard:
    """The protected files of one build and the windows of the blocks running against them.

    Example:
        guard = WriteGuard(root, [root / "kit"]); window, before = guard.start("docs/a.md, block 1")
        ...run the block...; problem = guard.finish(window, before)  # "" or "wrote into kit/x ..."
    """

    root: Path
    protected: list[Path]
    startup: list[Path] = field(default_factory=list)  # folders whose *.pth files Python runs at start (site-packages)
    own: set[str] = field(default_factory=set)  # paths the build itself writes (accept's approved files)
    windows: list[Window] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def listing(self) -> dict[str, tuple[str, int, int, int]]:
        """Every protected file and folder: path relative to the root -> (kind, mtime_ns, size, inode, ctime_ns)."""
        found: dict[str, tuple[str, int, int, int, int]] = {}
        for top in self.protected:
            name = _name(self.root, top)
            try:
                _entry(found, name, str(top), os.lstat(top))
            except OSError:
                continue  # not there (yet): the next listing says when it comes
        for folder in self.startup:  # only its *.pth files: Python runs their import lines at every start
            try:
                entries = [e for e in os.scandir(folder) if e.name.endswith(".pth")]
            except OSError:
                continue
            for entry in entries:
                with contextlib.suppress(OSError):
                    _entry(found, _name(self.root, Path(entry.path)), entry.path, entry.stat(follow_symlinks=False))
        return found

    def start(self, who: str) -> tuple[Window, dict]:
        """Open a window for a block about to run; returns it and the listing before the run."""
        window = Window(who, time.time_ns())
        with self.lock:
            self.windows.append(window)
        return window, self.listing()

    def finish(self, window: Window, before: dict) -> str:
        """Close a block's window: "" when no protected file changed while it ran, else the problem, naming
        each changed path (sorted) and, where other blocks ran at the same time, them too."""
        after = self.listing()
        window.end = time.time_ns()
        changes = []
        differ = {p for p in set(before) | set(after) if before.get(p) != after.get(p)}
        for path in sorted(differ):
            old, new = before.get(path), after.get(path)
            if path in self.own:
                continue
            if new and new[0] == "folder" and old and old[0] == "folder":
                # A folder's time changes with what is in it, which is listed on its own; when nothing in it
                # differs, something was made and removed there while the block ran (a lock or temporary file).
                if not any(os.path.dirname(p) == path for p in differ):
                    changes.append(Change(path + "/", "a file made and removed in it", new[1]))
                continue
            if path.endswith(".pth") and any(path.startswith(_name(self.root, f) + "/") for f in self.startup):
                if old is None:  # its lines would run inside the next build: taken out now
                    with contextlib.suppress(OSError):
                        os.unlink(path if os.path.isabs(path) else self.root / path)
                changes.append(Change(path, "a Python start-up file, " + ("created; removed" if old is None else
                                                                          "changed or removed"), window.end))
                continue
            if new is None:
                parent = after.get(os.path.dirname(path))
                changes.append(Change(path, "removed", parent[1] if parent else window.end))
            else:
                changes.append(Change(path, "created" if old is None else "changed", new[1]))
        fresh = changes  # every block that saw a change while it ran is named: one that wrote never passes
        with self.lock:
            others = sorted({w.who for c in fresh for w in self.windows if w is not window and _open_at(w, c.stamp)})
        if not fresh:
            return ""
        named = ", ".join(f"{c.path} ({c.kind})" for c in fresh[:10]) + (f" and {len(fresh) - 10} more"
                                                                            if len(fresh) > 10 else "")
        problem = (f"{WROTE}{named}, which the build reads or `make serve` watches, so the next build would differ "
                   "and serve would rebuild forever: write into a temporary folder of the block's own "
                   "(tempfile.mkdtemp()) instead")
        if others:
            problem += (f" (or {'; '.join(others)}, which ran at the same time, did: "
                        "block_jobs: 1, an option of the verified-blocks plugin in mkdocs.yml, tells which)")
        return problem


def site_guard(root: Path, docs_dir: Path, data_dir: Path, config_file: Path, watch: list[Path],
               inputs: list[str]) -> WriteGuard:
    """The guard of a build of the site in root: what a block must not change is the pages, the approved outputs,
    mkdocs.yml, the watched folders and the block inputs (those that exist), and the venv's start-up files.

    Args:
        root: the site root; docs_dir, data_dir, config_file: its pages, approved outputs and mkdocs.yml;
        watch: what `make serve` watches (mkdocs.yml's watch, absolute); inputs: the plugin's block_inputs, from root.

    Returns:
        A WriteGuard with no window open yet.

    Example: site_guard(root, root / "docs", root / "data", root / "mkdocs.yml", [root / "kit"], ["kit"]).protected
    """
    paths = [docs_dir, data_dir, config_file, *watch, *(root / name for name in inputs)]
    protected = sorted({p.resolve() for p in paths if p.exists()})
    return WriteGuard(root, protected, startup=sorted({Path(sysconfig.get_paths()[k]) for k in ("purelib", "platlib")}))


def suspects(guard: WriteGuard, stamp: int) -> list[str]:
    """Who ran at a time (ns): the blocks whose windows were open then, sorted; [] when none was.

    Example: suspects(guard, os.stat("site/x.txt").st_mtime_ns)  # ["docs/a.md, block 2 (bash, line 9)"]
    """
    with guard.lock:
        return sorted({w.who for w in guard.windows if _open_at(w, stamp)})


def _entry(found: dict, name: str, path: str, st: os.stat_result) -> None:
    """List one path (and, for a folder, everything under it, links not followed) into found."""
    folder = stat.S_ISDIR(st.st_mode)
    # ctime too: a write that puts the old mtime back (os.utime) cannot put back the change time
    found[name] = ("folder" if folder else "file", st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)
    if folder:
        try:
            entries = list(os.scandir(path))
        except OSError:
            return  # gone or unreadable since the stat
        for entry in entries:
            try:
                _entry(found, f"{name}/{entry.name}", entry.path, entry.stat(follow_symlinks=False))
            except OSError:
                continue  # gone between the scan and the stat: the next listing says so


def _name(root: Path, path: Path) -> str:
    """A protected path as messages name it: relative to the root when inside it, else absolute."""
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def _open_at(window: Window, stamp: int) -> bool:
    return window.start - SLACK_NS <= stamp and (window.end == 0 or stamp <= window.end + SLACK_NS)
