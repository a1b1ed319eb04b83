"""The marks of verified blocks, and the record of the build that verified them: `python -m sitebuild marks` (run by
`make site` after `mkdocs build --strict`) fails when a built page was not verified by that build.

The mark is an attribute, data-verified="KEY" (the block's key), on the box the block draws first (the div of
its source or output box, or of its tabs); a block that draws no box first (show="none", or an output="markdown"
output, whose first element other checks read as it is: a printed diagram) is marked by an empty, hidden div of its
own, before what it draws.
Only a block whose output matched its approved one is marked (sitebuild/mkdocs_adapter/hook.py), never a failing one.

A mark alone can be typed by hand, or copied with a page; so a build with the plugin also writes a record, outside
the site folder (record_path(): .cache/sitebuild/verified/, one file per site folder): each built page's file,
the SHA-256 of the bytes MkDocs wrote for it, and the keys of the blocks it verified on it. A build removes its
record when it starts and writes it only when it ends without a failure.

The check (unverified()) finds each page's executed blocks from its source as the build does (find/: the nav's
pages, and every other page the site built), and holds each page with blocks to three things: its built file
carries a mark for every block; the record names the page with every block's key; and the file's bytes are the
ones the record's build wrote (not edited since, nor written by a generator that ignored the plugin). Otherwise it
names each such page, empties the site folder (a failed `make site` leaves it empty) and exits 1.

Left out: whether the outputs are right (the build's verification did that); marks only say that it ran. Pages
copied on purpose from an earlier verified build of the same site folder carry the recorded bytes and pass: the
record guards against accidents and other generators, not a person rewriting the site. A page
without executed blocks is not checked. A `--dirty` build (some pages not rebuilt) writes no record, so its site
fails the check: it is for `make serve`, never to publish.
"""

from __future__ import annotations

import contextlib
import hashlib
import html
import json
import os
import re
import shutil
from pathlib import Path

from sitebuild.find import siteconfig
from sitebuild.find.outside import BUILT_SITE as BUILT

ATTRIBUTE = "data-verified"
FIRST_TAG = re.compile(r"""^(<div(?:\s+[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*)(\s*/?>)""")
MARK = re.compile(ATTRIBUTE + r'="([^"]*)"')
RECORD_FOLDER = Path(".cache") / "sitebuild" / "verified"  # under the site root, git-ignored with the cache
MARKDOWN = (".markdown", ".mdown", ".mkdn", ".mkd", ".md")  # the pages MkDocs builds (mkdocs.utils.markdown_extensions)


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
    stem = src_uri[:-len(Path(src_uri).suffix)] if Path(src_uri).suffix in MARKDOWN else src_uri
    folder, _, name = stem.rpartition("/")
    if name.lower() == "readme":  # MkDocs builds README.md as its folder's index page (when there is no index.md)
        stem = f"{folder}/index" if folder else "index"
    if stem == "index" or stem.endswith("/index"):
        candidates = [site_dir / f"{stem}.html"]
    else:
        candidates = [site_dir / stem / "index.html", site_dir / f"{stem}.html"]
    return next((path for path in candidates if path.is_file()), None)


def record_path(root: Path, site_dir: Path) -> Path:
    """Where the record of the build into site_dir is kept (module docstring): one file per site folder.

    Args:
        root: the site root (mkdocs.yml's folder); site_dir: the site folder.

    Returns:
        root/.cache/sitebuild/verified/<the first 16 hex digits of the SHA-256 of site_dir's absolute path>.json

    Example: record_path(Path("."), Path("site")).parent == Path(".cache/sitebuild/verified")
    """
    name = hashlib.sha256(str(site_dir.resolve()).encode()).hexdigest()[:16]
    return root / RECORD_FOLDER / f"{name}.json"


def written_digest(output: str) -> str:
    """The SHA-256 of a page's HTML as MkDocs writes it (UTF-8, xmlcharrefreplace: mkdocs/commands/build.py).

    Example: written_digest("<p>a</p>") == hashlib.sha256(b"<p>a</p>").hexdigest()
    """
    return hashlib.sha256(output.encode("utf-8", errors="xmlcharrefreplace")).hexdigest()


def forget(root: Path, site_dir: Path) -> None:
    """Remove the record of site_dir's last build (a build calls it when it starts); one that cannot be removed
    (the cache folder is not a folder) is left: it cannot vouch for pages this build writes, whose bytes differ or
    are the same verified ones. Example: forget(root, site)"""
    with contextlib.suppress(OSError):
        record_path(root, site_dir).unlink(missing_ok=True)


def write_record(root: Path, site_dir: Path, pages: dict[str, dict]) -> None:
    """Write the record of a build that verified its pages (module docstring), whole or not at all; the records
    of site folders that are no longer there are removed.

    Args:
        root: the site root; site_dir: the site folder it built;
        pages: {src_uri: {"file": its built file relative to site_dir, "sha256": written_digest(), "verified":
            [the keys of the blocks verified on it]}}.

    Raises:
        OSError: the record cannot be written (the build warns; the marks check then fails, naming the record).

    Example: write_record(root, root / "site", {"a.md": {"file": "a/index.html", "sha256": "...", "verified": []}})
    """
    path = record_path(root, site_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    for other in path.parent.glob("*.json"):  # the records of site folders that are gone (a test's, a -d folder)
        try:
            if not Path(json.loads(other.read_text(encoding="utf-8"))["site_dir"]).is_dir():
                other.unlink()
        except (OSError, ValueError, TypeError, KeyError):
            continue
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps({"site_dir": str(site_dir.resolve()), "pages": pages}, sort_keys=True,
                                    indent=1), encoding="utf-8")
    temporary.replace(path)


def read_record(root: Path, site_dir: Path) -> dict[str, dict]:
    """The pages of the record of site_dir's last build ({} when there is none, or it cannot be read).

    Example: read_record(root, root / "site")["index.md"]["file"] == "index.html"
    """
    try:
        record = json.loads(record_path(root, site_dir).read_text(encoding="utf-8"))
        pages = record["pages"] if record.get("site_dir") == str(site_dir.resolve()) else {}
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return {}
    return pages if isinstance(pages, dict) else {}


def unverified(site: siteconfig.Site, site_dir: Path) -> list[str]:
    """The pages with executed blocks whose built page was not verified by the build that wrote it.

    Args:
        site: the site (siteconfig.load); site_dir: the built site.

    Returns:
        One line per such page, e.g. "docs/a.md: 3 of its 3 blocks are not marked as verified on a/index.html";
        [] when every page holds (module docstring).

    Example: unverified(siteconfig.load("mkdocs.yml"), Path("site")) == []
    """
    docs = site.docs_dir.relative_to(site.root).as_posix() if site.docs_dir.is_relative_to(site.root) else "docs"
    record = read_record(site.root, site_dir)
    others = [p.relative_to(site.docs_dir).as_posix() for p in sorted(site.docs_dir.rglob("*"))
              if p.suffix in MARKDOWN and p.is_file()]
    problems = []
    for src_uri in dict.fromkeys([*site.pages, *others]):
        entry = record.get(src_uri) if isinstance(record.get(src_uri), dict) else None
        recorded = site_dir / str(entry.get("file")) if entry and entry.get("file") else None
        built = recorded if recorded and recorded.is_file() else built_page(site_dir, src_uri)
        if built is None and src_uri not in site.pages:
            continue  # not in the nav and not built (left out of the site): nothing published to vouch for
        blocks, errors = siteconfig.read_page(site, src_uri)
        name = f"{docs}/{src_uri}"
        if errors:
            problems += [f"{name}: {error}" for error in errors]
            continue
        if not blocks:
            continue
        if built is None:
            problems.append(f"{name}: has {len(blocks)} executed block(s), and no built page")
            continue
        where, data = built.relative_to(site_dir).as_posix(), built.read_bytes()
        found = set(MARK.findall(data.decode("utf-8", errors="replace")))
        missing = [b.key for b in blocks if html.escape(b.key, quote=True) not in found]
        if missing:
            problems.append(f"{name}: {len(missing)} of its {len(blocks)} executed block(s) are not marked as verified "
                            f"on {where}")
        elif not record:
            problems.append(f"{name}: no build with the verified-blocks plugin recorded verifying {where} (there is "
                            f"no record of one for this site folder: {_shown(record_path(site.root, site_dir), site)})")
        elif entry is None or not {b.key for b in blocks} <= set(entry.get("verified") or []):
            problems.append(f"{name}: the last build with the verified-blocks plugin did not record verifying its "
                            f"blocks on {where} ({_shown(record_path(site.root, site_dir), site)})")
        elif entry.get("file") != where or entry.get("sha256") != hashlib.sha256(data).hexdigest():
            problems.append(f"{name}: {where} is not the page the verifying build wrote (changed since, or written "
                            "by another build or generator)")
    return problems


def _shown(path: Path, site: siteconfig.Site) -> str:
    return path.relative_to(site.root).as_posix() if path.is_relative_to(site.root) else str(path)


def unsafe(site: siteconfig.Site, site_dir: Path) -> str:
    """Why a folder must not be taken for the built site and emptied ("" when it may).

    Args:
        site: the site (siteconfig.load); site_dir: the folder given as the built site.

    Returns:
        e.g. "it holds the site root": the folder is the site root or above it, or it is or lies in the docs
        folder, data/ or a block input, or it holds a .git folder or a mkdocs.yml, or it is none of mkdocs.yml's
        site_dir, a folder a build with the plugin recorded writing, or a folder holding what MkDocs writes
        (BUILT); else "".

    Example: unsafe(siteconfig.load("mkdocs.yml"), Path("docs")) == "it is or lies in docs/"
    """
    folder = site_dir.resolve()
    if site.root == folder or site.root.is_relative_to(folder):
        return "it holds the site root"
    for kept in [site.docs_dir, site.data_dir, *(site.root / name for name in site.settings.inputs)]:
        if folder.is_relative_to(kept.resolve()):
            return f"it is or lies in {_shown(kept.resolve(), site)}/"
    for name in (".git", site.config_file.name):
        if (folder / name).exists():
            return f"it holds {name}"
    built = folder == site.site_dir.resolve() or record_path(site.root, folder).exists() or any(
        (folder / name).is_file() for name in BUILT)
    return "" if built else ("it is not mkdocs.yml's site_dir, no build with the plugin recorded writing it, and it "
                             f"holds none of {', '.join(BUILT)}")


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


def check_marks(config_file: str | Path, site_dir: Path | None = None, out=print) -> int:
    """`python -m sitebuild marks [SITE]`: fail, naming the pages and emptying the site folder, when a built page
    was not verified by the build that wrote it (unverified()).

    Args:
        config_file: the site's mkdocs.yml; site_dir: the built site (default: mkdocs.yml's site_dir);
        out: where each line goes.

    Returns:
        0 when every page with executed blocks holds; 1 otherwise (the site folder emptied); 2 when mkdocs.yml
        cannot be read or the folder is not a built site (unsafe(): nothing emptied).

    Example: check_marks("mkdocs.yml") == 0
    """
    try:
        site = siteconfig.load(config_file)
    except siteconfig.SettingError as error:
        out(f"marks: {error}")
        return 2
    site_dir = site.site_dir if site_dir is None else site_dir
    if why := unsafe(site, site_dir):
        out(f"marks: {site_dir} is not a built site, so it is neither checked nor emptied: {why}")
        return 2
    problems = unverified(site, site_dir)
    if not problems:
        return 0
    for problem in problems:
        out(problem)
    empty(site_dir)
    out(f"marks: {len(problems)} page(s) of the built site were not verified by the build that wrote them (the "
        "verified-blocks plugin left out of mkdocs.yml, another generator, a --dirty or unfinished build, or pages "
        f"changed after it); each is named above. The site folder {site_dir.name}/ was emptied: a failed build "
        "publishes nothing.")
    return 1
