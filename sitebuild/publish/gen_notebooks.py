"""Every course page's notebook and script, under downloads/pages/ (notebooks.py; added by the plugin, hook.py).

Made from the page's prose, its shown blocks and its approved outputs in data/, at build time, so they cannot drift
from the page; the course chrome links them (chrome.py). A page that shows no block gets neither.
"""

from __future__ import annotations

from pathlib import Path

from sitebuild.course.coursenav import course_pages
from sitebuild.find.blocks import BlockError
from sitebuild.publish import notebooks

ROOT = Path(__file__).resolve().parents[2]


def write_all(root: Path, nav: list, names: dict[str, str], open_file, site_url: str = "") -> list[str]:
    """Write each course page's notebook and script with open_file(path, mode); return the paths written.

    Args:
        root: the repo root; nav: mkdocs.yml's nav; names: each course's name by its nav section;
        open_file: open(path, mode) of the site's files; site_url: mkdocs.yml's site_url ("" when unset),
        the address the notebooks' links to pages start with.

    A page whose blocks cannot be read is skipped: the build itself fails on it, naming the block.
    Example: write_all(ROOT, config["nav"], {}, open)  # writes under the current folder
    """
    written = []
    for page in course_pages(nav):
        if not (root / "docs" / page.src_uri).is_file():
            continue
        where = f"{names.get(page.course, page.course)}, page {page.number} of {page.count}"
        try:
            book, blocks = notebooks.page_notebook(root, page.src_uri, page.title, where, site_url)
        except (BlockError, ValueError):
            continue
        if not blocks:
            continue
        for path, text in zip(notebooks.download_paths(page.src_uri),
                              (book, notebooks.script(page.title, where, blocks)),
                              strict=True):
            with open_file(path, "w") as out:
                out.write(text)
            written.append(path)
    return written
