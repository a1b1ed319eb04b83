"""The marks of verified blocks: each executed block the build verified carries one in the built site, and
`python -m sitebuild marks site/` (run by `make site` after `mkdocs build --strict`) fails when a page lacks them.

The mark is an attribute, data-verified="KEY" (the block's key), on the box the block draws first (the div of
its source or output box, or of its tabs); a block that draws no box first (show="none", or an output="markdown"
output, whose first element other checks read as it is: a printed diagram) is marked by an empty, hidden div of its
own, before what it draws.
Only a block whose output matched its approved one is marked (sitebuild/mkdocs_adapter/hook.py), never a failing one.

The check reads data/ (one approved file per page with executed blocks, approved.py) and the built site: a page
whose approved blocks are not all marked on its built page was built without verifying them (a generator that
ignored the plugin, a plugin removed from mkdocs.yml). Then the check names each such page, empties the site
folder (a failed `make site` leaves it empty) and exits 1.

Left out: whether the outputs are right (the build's verification did that); marks only say that it ran.
"""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

from sitebuild.verify import approved

ATTRIBUTE = "data-verified"
FIRST_TAG = re.compile(r"""^(<div(?:\s+[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*)(\s*/?>)""")
MARK = re.compile(ATTRIBUTE + r'="([^"]*)"')


def mark(block_html: str, key: str) -> str:
    """A verified block's HTML with its mark.

    Args:
        block_html: the block as drawn (render.block_html); key: the block's key.

    Returns:
        The HTML with data-verified="KEY" on its first element when that is a div (a code box, tabs), else
        after an empty hidden div that carries it (show="none" draws nothing; Markdown output draws its own).

    Example: mark('<div class="x">a</div>', "python-1a") == '<div class="x" data-verified="python-1a">a</div>'
    """
    value = html.escape(key, quote=True)
    if match := FIRST_TAG.match(block_html):
        return f'{match.group(1)} {ATTRIBUTE}="{value}"{match.group(2)}{block_html[match.end():]}'
    return f'<div {ATTRIBUTE}="{value}" hidden></div>{block_html}'


def built_page(site_dir: Path, src_uri: str) -> Path | None:
    """A page's built HTML file (with or without directory URLs), or None when the site has none.

    Args:
        site_dir: the built site; src_uri: the page under docs/, e.g. "beginner/a.md".

    Returns:
        site_dir/beginner/a/index.html or site_dir/beginner/a.html, whichever is there; None when neither is.

    Example: built_page(Path("site"), "beginner/a.md") == Path("site/beginner/a/index.html")
    """
    stem = src_uri.removesuffix(".md")
    if stem == "index" or stem.endswith("/index"):
        candidates = [site_dir / f"{stem}.html"]
    else:
        candidates = [site_dir / stem / "index.html", site_dir / f"{stem}.html"]
    return next((path for path in candidates if path.is_file()), None)


def unverified(site_dir: Path, data_dir: Path) -> list[str]:
    """The pages with executed blocks (per data/) whose built page lacks the marks of some of them.

    Args:
        site_dir: the built site; data_dir: the approved outputs (data/).

    Returns:
        One line per such page, e.g. "docs/a.md: 3 of its 3 verified blocks are not marked on a/index.html".

    An approved file that cannot be read counts no blocks (the build itself fails on it).

    Example: unverified(Path("site"), Path("data")) == []
    """
    problems = []
    for path in sorted(data_dir.rglob("*.txt")) if data_dir.is_dir() else []:
        src_uri = path.relative_to(data_dir).with_suffix(".md").as_posix()
        keys, _ = approved.read(path, path.name)
        if not keys:
            continue
        built = built_page(site_dir, src_uri)
        if built is None:
            problems.append(f"docs/{src_uri}: has {len(keys)} approved block(s) in data/, and no built page")
            continue
        found = set(MARK.findall(built.read_text(encoding="utf-8")))
        missing = [key for key in keys if html.escape(key, quote=True) not in found]
        if missing:
            problems.append(f"docs/{src_uri}: {len(missing)} of its {len(keys)} approved block(s) are not marked as "
                            f"verified on {built.relative_to(site_dir).as_posix()}")
    return problems


def empty(folder: Path) -> None:
    """Remove everything inside folder (a link is removed, never what it points to); the folder stays.

    Example: empty(Path("site"))  # site/ is there, and empty
    """
    for entry in folder.iterdir() if folder.is_dir() else []:
        remove(entry)


def remove(path: Path) -> None:
    """Remove a file, a link (never what it points to) or a folder with all it holds.

    Example: remove(Path("site/stray.html"))  # gone, whatever it was
    """
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def check_marks(site_dir: Path, data_dir: Path, out=print) -> int:
    """`python -m sitebuild marks SITE`: fail, naming the pages and emptying site_dir, when a page lacks its marks.

    Args:
        site_dir: the built site; data_dir: data/; out: where each line goes.

    Returns:
        0 when every page with approved blocks marks them all; 1 otherwise (site_dir emptied).

    Example: check_marks(Path("site"), Path("data")) == 0
    """
    problems = unverified(site_dir, data_dir)
    if not problems:
        return 0
    for problem in problems:
        out(problem)
    empty(site_dir)
    out(f"marks: {len(problems)} page(s) of the built site were not verified (was the verified-blocks plugin left out "
        f"of mkdocs.yml, or the site built by another generator?); each is named above. The site folder "
        f"{site_dir.name}/ was emptied: a failed build publishes nothing.")
    return 1
