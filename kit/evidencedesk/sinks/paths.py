"""A file name from the model, kept inside its folder: resolve it, then check it is still under the base.

attachment_path_unsafe() joins the name to the base folder and trusts the result: "../jonas/contract.txt"
climbs out of it, and an absolute name replaces the base altogether (pathlib, like os.path.join, drops
everything before an absolute part): the wrong way, kept to show the attack. attachment_path() resolves
the joined path (Path.resolve: ".." removed, every symbolic link followed) and accepts it only when it is
still relative to the resolved base (Path.is_relative_to), so a link inside the folder that points out of
it is refused too. make_attachments() writes the invented folder the examples use, with one such link.
Left out: the race between checking a path and opening it (someone who can write in the folder can swap a
file for a link in between; Linux's openat2 with RESOLVE_BENEATH closes it), and Windows paths (drives,
UNC names, case), which this module is not tested on. Taking an id from the model, never a path, avoids both.
Sources (read 2026-12-03): https://docs.python.org/3/library/pathlib.html (resolve, is_relative_to),
https://man7.org/linux/man-pages/man2/openat2.2.html (RESOLVE_BENEATH).
"""

from __future__ import annotations

from pathlib import Path

FILES = {  # user/file -> text: invented attachments
    "farida/receipt-t-1101.txt": "Plumber's receipt for T-1101: 85.00\n",
    "jonas/contract.txt": "Supplier contract of Jonas's shop: not for other users.\n",
}
LINK = ("farida/shortcut.txt", "../jonas/contract.txt")  # a link inside farida/ that points out of it


class PathRefused(ValueError):
    """A file name from the model leads outside its folder, or is not a file name at all."""


def make_attachments(folder: Path | str) -> Path:
    """Write FILES and the symbolic link LINK under folder/attachments/ and return that attachments folder.

    Raises: FileNotFoundError if folder does not exist; OSError where symbolic links cannot be made.
    Example: (make_attachments(tempfile.mkdtemp()) / "farida").is_dir() -> True
    """
    root = Path(folder) / "attachments"
    if not Path(folder).is_dir():
        raise FileNotFoundError(f"no folder {Path(folder).name!r}")
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    (root / LINK[0]).symlink_to(LINK[1])
    return root


def attachment_path_unsafe(base: Path, name: str) -> Path:
    """The wrong way, kept to show the attack: base / name, trusted as it is.

    Example: attachment_path_unsafe(Path("a/farida"), "/etc/hostname") -> Path("/etc/hostname")
    """
    return base / name


def attachment_path(base: Path | str, name: str) -> Path:
    """The resolved path of file name inside base, or PathRefused.

    Args: base (str or Path, an existing folder); name (str, from the model).
    Returns: Path, resolved (absolute, no "..", no symbolic link left).
    Raises: PathRefused when name is empty, not a str, holds a NUL character, or resolves outside base
    (through "..", an absolute name, or a symbolic link); FileNotFoundError when base does not exist.
    Example: attachment_path(root / "farida", "../jonas/contract.txt")  # PathRefused
    """
    if not isinstance(name, str) or not name or "\x00" in name:
        raise PathRefused(f"name {str(name)[:40]!r}: expected a non-empty file name without NUL")
    real_base = Path(base).resolve(strict=True)
    target = (real_base / name).resolve()
    if not target.is_relative_to(real_base):
        raise PathRefused(f"name {name[:40]!r} leads outside {real_base.name}/")
    return target
