"""The files of the site root a run read beyond its block inputs: mkdocs.yml grepped for the nav, another page
read by a test, a file looked for and not found.

inputs.py keys a run on the block inputs it read; a block may read any other file it can, and its output then
depends on that file too. Outside.reads() keeps each such file under the site root with a digest of it as the run
ended (Outside.digest(); the sandbox keeps the site root read-only while blocks run), so that a check's results
(verify/stale.py) and the serve cache (run/cache.py) can tell when one changed. A path that is not there counts as
"missing": creating it changes what the run would find.

Left out: files outside the site root (the standard library, the venv: what the lock and the Python version pin),
and what Outside's docstring lists: the machinery, caches, what .gitignore ignores, the site and results folders.
A read the audit hook cannot see (a stat of a file that is not there, pytest looking for a conftest.py) counts
through the listing of its folder, which every Python process on that folder's sys.path entry reads; a read made
relative to a folder descriptor (os.open(name, dir_fd=...), as shutil.rmtree makes) is recorded against the
working folder, so it counts as a path that is usually missing (a change there only re-runs the page).
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
from pathlib import Path

from sitebuild.find.inputs import CACHE_DIRS, MACHINERY, SKIPPED, Inputs, path_digest

EDITABLE_HOOK = "__editable__."  # setuptools' "__editable__.<project>.finder.__path_hook__", a sys.path entry
GITIGNORE = ".gitignore"
BUILT_SITE = ("sitemap.xml", "404.html")  # what every MkDocs build writes into its site folder
OWN_FOLDER = ".cache"  # the build's own folder under the site root: the serve cache, the marks' record


def _ignore_rules(root: Path) -> list[tuple[str, bool, bool]]:
    """The site root's .gitignore as (pattern, folders only, negated) rules, for names at any depth: git's rules for
    a pattern with no slash but a trailing one. A pattern with a slash inside (anchored) is left out: what it
    names counts, as if it were not ignored."""
    try:
        lines = (root / GITIGNORE).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    rules = []
    for line in lines:
        line = line.strip()
        negated = line.startswith("!")
        pattern = line[1:] if negated else line
        folders = pattern.endswith("/")
        pattern = pattern.rstrip("/")
        if pattern and not line.startswith("#") and "/" not in pattern:
            rules.append((pattern, folders, negated))
    return rules


class Outside:
    """The files of a site root outside its block inputs, as a run's reads of them are kept and compared.

    Left out of what counts: what is not under root, the block inputs (Inputs.counted keeps those), the machinery
    (in every key), the build's own .cache folder, caches and .venv/.git (inputs.SKIPPED, CACHE_DIRS, *.egg-info,
    *.pyc), in a folder's listing what the root's .gitignore ignores (site/, test-results/: made by builds and
    tests, not part of the checkout; a file a run opened by name counts even so), the folders of leave_out (the site
    folder and the results folder, wherever they are), in listings the folders above them and any folder holding a
    built site (BUILT_SITE: `mkdocs build -d out`, before or after a check), and the sys.path entry of an editable
    install's import hook (EDITABLE_HOOK) and Python's "<string>"-like names, which name no file. A folder's listing
    leaves out the same names. A path that is not there counts as "missing".

    Example: Outside(root, [root / "site"]).reads({str(root / "mkdocs.yml"): True}, inputs) == {"mkdocs.yml": "c:5e.."}
    """

    def __init__(self, root: Path, leave_out: list[Path]) -> None:
        self.root = root
        self.bases = sorted({os.path.normpath(root), os.path.realpath(root)}, key=len, reverse=True)
        self.given = list(leave_out)
        self.leave_out = {os.path.realpath(p) for p in [MACHINERY, root / OWN_FOLDER, *leave_out]}
        real_root, self.above = os.path.realpath(root), set()  # in listings: the folders above a left-out one
        for left in self.leave_out:  # (out/ of out/results, which the check made after the run listed the root)
            parent = os.path.dirname(left)
            while parent.startswith(real_root + os.sep):
                self.above.add(parent)
                parent = os.path.dirname(parent)
        self.rules = _ignore_rules(root)

    def _counts(self, name: str, path: str, listed: bool = True) -> bool:
        """Whether an entry (its name and absolute path) counts (class docstring); .gitignore's rules apply to what
        a folder's listing shows (listed), not to a file a run opened by its name."""
        if name in SKIPPED or name in CACHE_DIRS or name.endswith((".egg-info", ".pyc", ".pyo")):
            return False
        if os.path.realpath(path) in self.leave_out:
            return False
        if not listed:
            return True
        if os.path.realpath(path) in self.above or all(os.path.isfile(os.path.join(path, n)) for n in BUILT_SITE):
            return False  # above a left-out folder, or a site MkDocs built (`mkdocs build -d out` at any time)
        ignored = False
        for pattern, folders, negated in self.rules:  # the last rule that matches wins, as in git
            if fnmatch.fnmatchcase(name, pattern) and (not folders or os.path.isdir(path)):
                ignored = not negated
        return not ignored

    def relative(self, path: str, inputs: Inputs) -> str | None:
        """A read path as a path relative to root that counts ("." for root itself), or None."""
        path = os.path.normpath(path)
        base = next((b for b in self.bases if path == b or path.startswith(b + os.sep)), None)
        if base is None or inputs.relative(path) is not None:
            return None
        rest = Path(os.path.relpath(path, base))
        if rest.parts and rest.parts[0].startswith((EDITABLE_HOOK, "<")):  # "<unknown>", "<string>": no file
            return None
        current = base
        for part in rest.parts:
            current = os.path.join(current, part)
            if not self._counts(part, current, listed=False):
                return None
        return rest.as_posix()

    def digest(self, relative: str, content: bool) -> str:
        """A file or folder as a run's read of it is kept.

        Args:
            relative: its path relative to root ("." for root); content: whether the run read its content.

        Returns:
            "c:" and the SHA-256 of a file's bytes (through a link: its target and the bytes), or of a folder's
            sorted entry names that count, when its content was read; else "m:" and what it is ("m:file",
            "m:folder"); "missing" when it is not there. Only a regular file is read (never a pipe).

        Example: Outside(root, []).digest("mkdocs.yml", False) == "m:file"
        """
        return path_digest(self.root / relative, content, self._counts)

    def reads(self, paths: dict[str, bool], inputs: Inputs) -> dict[str, str]:
        """The reads of a run that count here, each with its digest now.

        Args:
            paths: {absolute path: whether its content was read} (audit.paths); inputs: the block inputs.

        Returns:
            {path relative to root: digest()}, sorted.

        Example: Outside(root, []).reads({str(root / "notes.txt"): True}, inputs) == {"notes.txt": "c:3f..."}
        """
        found: dict[str, bool] = {}
        for path, content in paths.items():
            if (relative := self.relative(path, inputs)) is not None:
                found[relative] = found.get(relative, False) or content
        return {relative: self.digest(relative, content) for relative, content in sorted(found.items())}

    def without(self, folders: list[Path]) -> Outside:
        """The same files with folders left out too. Example: Outside(root, []).without([root / "docs"])"""
        return Outside(self.root, [*self.given, *folders])

    def tree(self) -> str:
        """The SHA-256 of every file under root that counts (paths and bytes, sorted): what a run whose reads are
        not known is held to. Example: len(Outside(root, []).tree()) == 64"""
        digest = hashlib.sha256()
        for folder, subfolders, names in os.walk(self.root):  # a linked folder: its target and listing, not walked
            subfolders[:] = sorted(d for d in subfolders if self._counts(d, os.path.join(folder, d)))
            linked = [d for d in subfolders if os.path.islink(os.path.join(folder, d))]
            for name in sorted([*names, *linked]):
                path = os.path.join(folder, name)
                if self._counts(name, path):
                    relative = os.path.relpath(path, self.root)
                    digest.update(f"\0{relative}\0{self.digest(relative, True)}".encode())
        return digest.hexdigest()

    def changed(self, reads: dict[str, str]) -> list[str]:
        """The paths of a stored run's reads (reads()) whose digest is not what it was, sorted.

        Example: Outside(root, []).changed(Outside(root, []).reads(paths, inputs)) == []
        """
        return sorted(p for p, then in reads.items() if self.digest(p, not then.startswith("m:")) != then)
