"""The "Next" link: each course page ends with a **Next:** paragraph whose first link is the page that follows it.

A reader who follows "Next" should walk the course in the nav's order, the order the footer and the syllabus
show. This check reads the paragraph that starts with `**Next:**` in a course page's Markdown source and
compares its first link with the next course page of the nav (coursenav.py); on a course's last page, the
first page of the next course, or the home page (`index.md`) when no course follows. A Next paragraph whose
first link leads elsewhere is reported with the line and the link to write. A page without one is not (the
page contract asks for it; small test sites have none).

Left out: links written as reference links ([text][ref]) or raw HTML; a Next paragraph must use an inline
Markdown link to a .md file.
"""

from __future__ import annotations

import posixpath
import re

from sitebuild.course.coursenav import CoursePage, course_pages

NEXT = re.compile(r"^\*\*Next:\*\*(?P<text>.*?)(?:\n[ \t]*\n|\Z)", re.M | re.S)
LINK = re.compile(r"\[(?:[^\[\]]|\[[^\[\]]*\])*\]\((?P<target>[^)\s#]+)(?:#[^)]*)?\)")
HOME = "index.md"


def expected_next(src_uri: str, pages: list[CoursePage]) -> list[CoursePage | str]:
    """Where a course page's Next may lead: the next page of its course; after a course's last page, the first
    page of the next course, else the home page.

    Args:
        src_uri: the page's file under docs/, e.g. "beginner/a.md".
        pages: the course pages in nav order (coursenav.course_pages).

    Returns:
        The allowed targets, best first: CoursePage entries, or HOME. [] for a page that is not a course page.

    Example: expected_next("b/a.md", [CoursePage("A", "b/a.md", "B", "", 1, 1)]) == [HOME]
    """
    index = next((i for i, page in enumerate(pages) if page.src_uri == src_uri), None)
    if index is None:
        return []
    page = pages[index]
    following = pages[index + 1] if index + 1 < len(pages) else None
    if following is not None and following.course == page.course:
        return [following]
    return [following, HOME] if following is not None else [HOME]


def check_page(src_uri: str, source: str, nav: list | None) -> list[str]:
    """The build's Next-link problems of one page, one line each (the hook adds the page's path).

    Args:
        src_uri: the page's file under docs/; source: its Markdown file as written;
        nav: the nav of mkdocs.yml (config.nav), None when there is none.

    Returns:
        [] when the page is no course page, has no Next paragraph, or its first link is an allowed target
        (expected_next); else one message naming the line and what to write.

    Example: check_page("b/a.md", "**Next:** [C](c.md) goes on.", nav) == []
    """
    allowed = expected_next(src_uri, course_pages(nav))
    if not allowed:
        return []
    best = allowed[0]
    if isinstance(best, CoursePage):
        write = f"**Next:** [{best.title}]({best.link_from(src_uri)})"
        name = f'"{best.title}", the next course page in the nav'
    else:
        write = f"**Next:** back to [the course home]({posixpath.relpath(HOME, posixpath.dirname(src_uri) or '.')})"
        name = "the home page (no course page follows this one)"
    found = NEXT.search(source)
    if found is None:
        return []  # a page without one is the page contract's concern (../shared/tools/page_contract.py), not this
    link = LINK.search(found["text"])
    target = posixpath.normpath(posixpath.join(posixpath.dirname(src_uri), link["target"])) if link else None
    targets = {a.src_uri if isinstance(a, CoursePage) else a for a in allowed}
    if target in targets:
        return []
    line = source[: found.start()].count("\n") + 1
    shown = f"links {link['target']!r}" if link else "has no link"
    return [f"line {line}: its **Next:** paragraph {shown}, but the page that follows it is {name}: write {write} ..."]
