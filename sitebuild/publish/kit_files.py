"""Which files of kit/ go into the download, and the check that none of them holds a secret.

The download holds exactly the kit's tracked files: git's index under kit/ (`git ls-files`), read
from the working tree, so a tracked file edited but not yet committed goes in as it is now, a
staged new file goes in, and a tracked file deleted from the working tree is skipped. Anything else
under kit/ (a tool's cache, an editor's swap file, a file a block wrote, an untracked .env) is left
out and named in one INFO line. A tracked file may not be a link to something outside kit/ (the
index holds the link, not what it points to), and a path that is not a plain file (a submodule) is
left out. Where the repo is not a git checkout of its own, or git is missing (a tarball of the
repo), a WARNING says so and every file under kit/ goes in except caches, hidden files and editor
swap or backup files. That warning does not fail a build, even a strict one (logs.uncounted): a
copy of the repo without git still builds, but what it packs cannot be checked against git.

Every file that goes into the zip, generated ones included, is checked for secrets by its name and
its content (NAMES, CONTENT below). A hit fails the build with a PluginError naming the file, the
kind of secret and the line, never the value. An untracked secret-looking file is not packed, so it
does not fail the build: it is named in the INFO line like any other left-out file.

Left out: secrets that are split, escaped, encoded (base64; UTF-16 without a byte order mark) or
compressed, and token formats not listed.
"""

from __future__ import annotations

import logging
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from mkdocs.exceptions import PluginError

from sitebuild.logs import uncounted
from sitebuild.run.leaks import KEY_SHAPES

log = logging.getLogger("mkdocs.plugins.kit-download")  # the INFO lines of what is left out
advice = uncounted("sitebuild.kit-download")  # the warning of a download made without git: shown, never a failure
KIT = "kit"
CACHES = {"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis", ".git", ".venv", ".tox"}
SHOWN = 20  # left-out names the INFO line lists before "and N more"

# Secret-looking file names (compared in lower case). The .env convention: the dotenv packages
# (github.com/motdotla/dotenv, pypi.org/project/python-dotenv) read .env and .env.<name>, and ship
# .env.example for what may be published. OpenSSH's default key files: ssh-keygen(1), FILES.
# Key and certificate containers: *.pem (RFC 7468), *.key, *.p12 / *.pfx (PKCS #12, RFC 7292).
ENV_EXAMPLES = {"example", "sample", "template"}  # the last suffix of a dotenv file meant to be published
SSH_KEYS = {"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk"}
KEY_SUFFIXES = (".pem", ".key", ".p12", ".pfx")
# Credential files that are secrets only when they hold credentials: .netrc (netrc(5): "password"),
# .pypirc (packaging.python.org, "The .pypirc file": password =), .npmrc (docs.npmjs.com/cli/configuring-npm/npmrc,
# "Auth related configuration": _auth, _authToken, _password).
WITH_AUTH = {
    ".netrc": re.compile(rb"(?m)\bpassword\s+\S"),
    ".pypirc": re.compile(rb"(?m)^\s*password\s*[=:]\s*\S"),
    ".npmrc": re.compile(rb"(?m)(?:^|:)_(?:auth|authToken|password)\s*=\s*\S"),
}
# Secret-looking content: the key shapes of leaks.py (one list, with the source of each shape), as bytes.
CONTENT = [(kind, re.compile(shape.pattern.encode())) for kind, shape in KEY_SHAPES]


@dataclass
class KitSelection:
    """What goes into the download from kit/: files to pack, and what is left out and why."""

    files: list[Path]  # relative to the root, sorted
    left_out: list[str] = field(default_factory=list)  # under kit/, not packed ("kit/.hypothesis/" for a folder)
    missing: list[str] = field(default_factory=list)  # tracked, but gone from the working tree
    without_git: str = ""  # why git's index could not be read ("" when it was)


def _git(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}  # no GIT_DIR pointing elsewhere
    return subprocess.run(["git", "-C", str(root), *args], env=env, capture_output=True, timeout=60, check=False)


def _why_not_git(root: Path) -> str:
    """"" when root is the top of a git checkout git can read, else why not."""
    try:
        top = _git(root, "rev-parse", "--show-toplevel")
    except (FileNotFoundError, PermissionError):
        return "git is not installed"
    if top.returncode:
        said = os.fsdecode(top.stderr).strip().splitlines()
        return f"{root.name}/ is not a git checkout" + (f" (git says: {said[0]})" if said else "")
    if Path(os.fsdecode(top.stdout).strip()).resolve() != root.resolve():
        return f"{root.name}/ is not a git checkout of its own, but a folder inside one"
    return ""


def _inside_kit(root: Path, path: Path) -> bool:
    return (root / path).resolve().is_relative_to((root / KIT).resolve())


def _walk(root: Path) -> tuple[list[Path], list[str]]:
    """Without git: every file under kit/ but caches, hidden files and swap or backup files, and those left out."""
    files, left_out = [], []
    for folder, subfolders, names in os.walk(root / KIT):
        here = Path(folder).relative_to(root)
        for name in sorted(subfolders):
            if name in CACHES or name.startswith(".") or (Path(folder) / name).is_symlink():
                subfolders.remove(name)
                left_out.append(f"{(here / name).as_posix()}/")
        for name in names:
            skip = name.startswith((".", "#")) or name.endswith(("~", ".swp", ".swo", ".bak", ".orig", ".pyc"))
            if skip:
                left_out.append((here / name).as_posix())
            else:
                files.append(here / name)
    return sorted(files), sorted(left_out)


def select_kit_files(root: Path) -> KitSelection:
    """The files of kit/ that go into the download, and what is left out (see the module docstring).

    Args:
        root: the repo root, the folder holding kit/.

    Returns:
        A KitSelection: the files by their path relative to root, sorted; the left-out paths under kit/
        (a wholly left-out folder once, with a trailing "/"); the tracked files missing from the working
        tree; and why git was not used ("" when it was).

    Raises:
        PluginError: a packed file is a link to something outside kit/.

    Example: Path("kit/evidencedesk/llm.py") in select_kit_files(ROOT).files
    """
    why = _why_not_git(root)
    if why:
        files, left_out = _walk(root)
        selection = KitSelection(files, left_out, without_git=why)
    else:
        tracked = _git(root, "ls-files", "-z", "--cached", "--", f"{KIT}/")
        others = _git(root, "ls-files", "-z", "--others", "--directory", "--", f"{KIT}/")
        for run in (tracked, others):
            if run.returncode:
                raise PluginError(f"kit download: git ls-files failed: {os.fsdecode(run.stderr).strip()}")
        names = sorted({os.fsdecode(n) for n in tracked.stdout.split(b"\0") if n})
        selection = KitSelection([], sorted(os.fsdecode(n) for n in others.stdout.split(b"\0") if n))
        tracked_names = set(names)
        for name in names:
            path = root / name
            if not path.exists():  # deleted, or a link to nothing
                selection.missing.append(name)
            elif _inside_kit(root, Path(name)) and not path.is_file():
                selection.left_out.append(name)  # a submodule or a folder: no file of its own to pack
            elif path.is_symlink() and _inside_kit(root, Path(name)) and \
                    path.resolve().relative_to(root.resolve()).as_posix() not in tracked_names:
                selection.left_out.append(name)  # a link to a file git does not track: what it holds is unchecked
            else:
                selection.files.append(Path(name))
    outside = [p.as_posix() for p in selection.files if not _inside_kit(root, p)]
    if outside:
        raise PluginError(f"kit download: {', '.join(outside)} lead(s) outside kit/ (a link, or a link among its "
                          "folders); the download packs only the kit's own files. Replace the link with the file.")
    return selection


def _names(paths: list[str]) -> str:
    more = f", and {len(paths) - SHOWN} more" if len(paths) > SHOWN else ""
    return ", ".join(paths[:SHOWN]) + more


def report(selection: KitSelection) -> None:
    """Log what select_kit_files left out: a WARNING when git was not used, an INFO line naming the files.

    Example: report(select_kit_files(ROOT))  # logs nothing for a clean checkout
    """
    if selection.without_git:
        advice.warning(f"kit download: {selection.without_git}, so the download cannot be checked against git's "
                    "index: it packs every file under kit/ except caches, hidden files and swap or backup files. "
                    "Build from a git clone to pack exactly the tracked files.")
    if selection.left_out:
        reason = "caches, hidden files or swap and backup files" if selection.without_git else "git does not track"
        log.info(f"kit download: left out {len(selection.left_out)} file(s) or folder(s) under kit/ that "
                 f"{'are ' if selection.without_git else ''}{reason}: {_names(selection.left_out)}")
    if selection.missing:
        log.info(f"kit download: left out {len(selection.missing)} tracked file(s) missing from the working "
                 f"tree: {_names(selection.missing)}")


def _line(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def secret_findings(name: str, data: bytes) -> list[str]:
    """What in a file looks like a secret, by its name and content, each as "kind (line N)"; never the value.

    Args:
        name: the file's path as packed, e.g. "kit/.env"; data: its bytes.

    Returns:
        One description per hit, [] when none (see NAMES and CONTENT above for the shapes).

    Example: secret_findings("kit/data/a.txt", b"ghp_" + b"a" * 36) == ["a GitHub token shape (line 1)"]
    """
    base = PurePosixPath(name).name.lower()
    found = []
    dotenv = base in (".env", ".envrc") or base.startswith(".env.") or base.endswith(".env")  # direnv's .envrc too
    if dotenv and base.rsplit(".", 1)[-1] not in ENV_EXAMPLES:
        found.append("a .env file of environment settings")
    elif base in SSH_KEYS:
        found.append("an SSH private key file")
    elif base.endswith(KEY_SUFFIXES):
        found.append(f"a {base.rsplit('.', 1)[1]} key or certificate file")
    elif base in WITH_AUTH and (hit := WITH_AUTH[base].search(data)):
        found.append(f"a {base} file with credentials (line {_line(data, hit.start())})")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16 with its byte order mark: read as text
        data = data.decode("utf-16", errors="replace").encode("utf-8")
    for kind, pattern in CONTENT:
        lines = sorted({_line(data, hit.start()) for hit in pattern.finditer(data)})
        if lines:
            found.append(f"{kind} (line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines[:5]))})")
    return found


def check_secrets(files: dict[str, bytes]) -> None:
    """Fail when any file to be packed looks like a secret.

    Args:
        files: each file's path in the kit's folder and its bytes, generated files included.

    Raises:
        PluginError: naming every such file, the kind of secret and its line, never the value.

    Example: check_secrets({"kit/data/a.json": b"[]"})  # passes
    """
    hits = []
    for name in sorted(files):
        found = secret_findings(name, files[name])
        shown = name
        for kind, pattern in CONTENT:  # a token in the file's name: named by kind, the name shown without it
            if pattern.search(os.fsencode(name)):
                found.append(f"its name holds {kind}")
                shown = os.fsdecode(pattern.sub(b"[...]", os.fsencode(shown)))
        if found:
            hits.append(f"{shown}: {', '.join(found)}")
    if hits:
        raise PluginError(
            "kit download: refusing to publish what looks like a secret (the download is public):\n  "
            + "\n  ".join(hits)
            + "\nRemove the file from git (git rm --cached FILE) and rotate the secret if it was real; an invented "
            "key for the course must be shorter than a real one."
        )
