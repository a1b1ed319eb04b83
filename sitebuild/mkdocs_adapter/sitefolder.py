"""The site folder after a build: what no page or file of the build made is removed (strays), and a failed
build empties it (verify/marks.py's empty and remove, the one way this project clears a folder).

Left out: which files a build makes, which MkDocs knows (hook.py hands over its Files and config).
"""

from __future__ import annotations

import os
from pathlib import Path

from mkdocs.plugins import get_plugin_logger

from sitebuild.mkdocs_adapter.state import SiteState
from sitebuild.run.guard import suspects
from sitebuild.verify.marks import remove

log = get_plugin_logger("verified-blocks")
DIRTY_ENV = "SITEBUILD_DIRTY"  # "1" while the MkDocs command runs with --dirty (set by hook.on_startup)


def site_entries(site_dir: Path) -> list[Path]:
    """Every file, folder and symbolic link under site_dir, sorted, never looking inside a linked folder."""
    found = []
    for folder, dirs, names in os.walk(site_dir) if site_dir.is_dir() else []:
        found += [Path(folder) / name for name in [*dirs, *names]]
    return sorted(found)


def strays(site: SiteState, config) -> list[str]:
    """Files, folders and links in the built site that no page or file of the build made (on_post_build runs
    before the plugins' own, such as search's index): each is removed, so nothing unchecked is published (a
    folder is made when a made file is inside it). One that appeared while the blocks ran is a failure, named
    with the blocks that ran when it appeared; one that was there before them (MkDocs' clean leaves names
    starting with a dot and links to folders) is named in an INFO line, except that a --dirty build keeps an
    earlier build's files and folders (never a link: it would publish what it points to)."""
    site_dir = Path(config.site_dir).resolve()
    made = {Path(f.abs_dest_path).resolve() for f in site.files} if site.files is not None else set()
    made |= {site_dir / t for t in config.theme.static_templates} | {site_dir / "sitemap.xml.gz"}
    # assets a plugin writes itself and lists as the site's CSS or JavaScript (markdown-exec's, in on_env)
    made |= {(site_dir / str(getattr(a, "path", a))).resolve() for a in [*config.extra_css, *config.extra_javascript]}
    folders = {parent for path in made for parent in path.parents}
    dirty = os.environ.get(DIRTY_ENV) == "1"
    problems = []
    for path in site_entries(site_dir):
        if not os.path.lexists(path):
            continue  # inside a folder removed above
        link, folder = path.is_symlink(), path.is_dir() and not path.is_symlink()
        if not link and (path in folders if folder else path in made):
            continue
        kind = "a symbolic link" if link else "a folder" if folder else "a file"
        what = f"{path.relative_to(site_dir).as_posix()}, {kind}"
        if path in site.before:
            if dirty and not link:
                continue  # an earlier build's, kept by --dirty
            remove(path)
            log.info(f"{what} left in the site folder before the build, was removed: no page or file of the build "
                     "made it")
            continue
        who = suspects(site.guard, path.lstat().st_mtime_ns)
        remove(path)
        problems.append(f"{what}, appeared in the built site{' while ' + '; '.join(who) + ' ran' if who else ''}, "
                        "and no page or file of the build made it; it was removed, so nothing unchecked is "
                        "published: a block must not write into the site folder")
    return problems
