"""mkdocs-gen-files script: put the kit on the site as one download, downloads/evidencedesk-kit.zip.

The archive holds kit/ (the package, its data and its tests) and pyproject.toml, so a learner can
unpack it and run `pip install -e ".[test]"` then `python -m pytest kit/tests`. It is built the
same on every machine: files in sorted order, one fixed timestamp and fixed permissions.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import mkdocs_gen_files

ROOT = Path(__file__).resolve().parents[1]
FIXED_TIME = (2026, 1, 1, 0, 0, 0)  # zip stores no time zone; a constant keeps the archive reproducible


def kit_files(root: Path) -> list[Path]:
    """The files a learner downloads, relative to root, sorted: kit/ without caches, and pyproject.toml."""
    files = [p for p in (root / "kit").rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    return sorted(p.relative_to(root) for p in [*files, root / "pyproject.toml"])


def kit_archive(root: Path) -> bytes:
    """The kit as zip bytes, identical for identical files. Example: kit_archive(ROOT)[:2] == b"PK" """
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in kit_files(root):
            info = zipfile.ZipInfo(f"evidencedesk-kit/{path.as_posix()}", FIXED_TIME)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, (root / path).read_bytes())
    return buffer.getvalue()


with mkdocs_gen_files.open("downloads/evidencedesk-kit.zip", "wb") as f:
    f.write(kit_archive(ROOT))
