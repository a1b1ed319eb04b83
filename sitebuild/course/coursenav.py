"""The course pages of the site, read from the nav in mkdocs.yml: which course, which chapter, which place.

A course is a top-level section of the nav ("Beginner", "Advanced"); a chapter is a section inside
a course ("Chapter 1 · Calling Models"). A course page is a page anywhere inside a course, with its
title written in the nav. Pages at the top level (the home page) belong to no course. The course
chrome (chrome.py), the cross-link check (crosslinks.py) and the kit's README (gen_downloads.py)
all read the course from here, so the nav is the one place where the course's order is written.

Left out: a page listed without a title in the nav is no course page (MkDocs would take its title
from its h1, known only once the page is read), though nav_pages lists it; links to other sites.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from pathlib import Path

import yaml


class NavError(ValueError):
    """The nav holds an entry this module cannot read (neither a page, a section nor a link)."""


@dataclass(frozen=True)
class CoursePage:
    """One page of a course, as the nav places it.

    Attributes:
        title: the page's title in the nav, e.g. "Cost and Latency Fundamentals".
        src_uri: its file under docs/, e.g. "beginner/cost-and-latency.md".
        course: the top-level section it is in, e.g. "Beginner".
        chapter: the section inside the course that holds it, or "" when it sits in the course itself.
        number: its place in its course, from 1 (k in "Page k of N").
        count: how many pages its course has (N).
    """

    title: str
    src_uri: str
    course: str
    chapter: str
    number: int
    count: int

    def link_from(self, src_uri: str) -> str:
        """The relative Markdown link to this page from the page src_uri.

        Example: CoursePage("T", "beginner/a.md", "Beginner", "", 1, 1).link_from("advanced/b.md") == "../beginner/a.md"
        """
        return posixpath.relpath(self.src_uri, posixpath.dirname(src_uri) or ".")


def _is_link(target: str) -> bool:
    return "://" in target or target.startswith(("mailto:", "/"))


def _leaves(items: list, trail: tuple[str, ...]) -> list[tuple[str, str, tuple[str, ...]]]:
    """(title, src_uri, sections above it) for every page under items, in nav order ("" for no title)."""
    found = []
    for item in items:
        if isinstance(item, str):  # a page without a title, or a link
            if not _is_link(item):
                found.append(("", item, trail))
            continue
        if not isinstance(item, dict) or len(item) != 1:
            raise NavError(f"nav entry {item!r}: expected a page (Title: path.md) or a section (Title: [...])")
        [(title, value)] = item.items()
        if isinstance(value, list):
            found += _leaves(value, (*trail, str(title)))
        elif isinstance(value, str):
            if not _is_link(value):
                found.append((str(title), value, trail))
        else:
            raise NavError(f"nav entry {title!r}: expected a path or a list of entries, got {value!r}")
    return found


def course_pages(nav: list | None) -> list[CoursePage]:
    """Every course page of a nav, in nav order.

    Args:
        nav: the `nav` of mkdocs.yml as loaded (config.nav): a list of pages and sections; None when
            mkdocs.yml has no nav.

    Returns:
        One CoursePage per titled page inside a top-level section; [] for None.

    Raises:
        NavError: an entry is neither a page, a section nor a link.

    Example: course_pages([{"Home": "index.md"}, {"Beginner": [{"A": "b/a.md"}]}])[0].number == 1
    """
    leaves = [(title, src, trail) for title, src, trail in _leaves(nav or [], ()) if trail and title]
    counts: dict[str, int] = {}
    for _, _, trail in leaves:
        counts[trail[0]] = counts.get(trail[0], 0) + 1
    pages, seen = [], {}
    for title, src, trail in leaves:
        seen[trail[0]] = seen.get(trail[0], 0) + 1
        chapter = trail[1] if len(trail) > 1 else ""
        pages.append(CoursePage(title, src, trail[0], chapter, seen[trail[0]], counts[trail[0]]))
    return pages


def nav_pages(nav: list | None) -> list[str]:
    """The src_uri of every page in a nav, course or not, in nav order; links to other sites left out.

    Example: nav_pages([{"Home": "index.md"}, {"Beginner": [{"A": "b/a.md"}]}]) == ["index.md", "b/a.md"]
    """
    return [src for _, src, _ in _leaves(nav or [], ())]


def page_url(src_uri: str) -> str:
    """A page's address under the site's root, with directory URLs (use_directory_urls: true).

    Example: page_url("advanced/a.md") == "advanced/a/" and page_url("index.md") == ""
    """
    stem = src_uri.removesuffix(".md")
    if stem == "index" or stem.endswith("/index"):
        return stem.removesuffix("index")
    return stem + "/"


class _PlainLoader(yaml.SafeLoader):
    """YAML's safe loader, reading a Python tag (!!python/name:...) and a local tag (!ENV ...) as None instead of
    refusing it (siteconfig.py reads mkdocs.yml as MkDocs does, tags included)."""


_PlainLoader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)
_PlainLoader.add_multi_constructor("!", lambda loader, suffix, node: None)


def read_config(path: Path) -> dict:
    """mkdocs.yml as plain data, without MkDocs: for tests and scripts that need its nav or extra.

    Args:
        path: the mkdocs.yml file.

    Returns:
        Its mapping; Python tags (a Markdown extension's formatter) and !ENV read as None.

    Example: course_pages(read_config(Path("mkdocs.yml"))["nav"])[0].course == "Beginner"
    """
    return yaml.load(path.read_text(encoding="utf-8"), Loader=_PlainLoader)
