"""The syllabus of each course: its chapters and pages with their minutes, and where each page leads.

Built from the nav (coursenav.course_pages) and each page's reading time (chrome.reading_counts), never
typed on a page. The home page shows every course this way (overrides/partials/syllabus.html); the
course chrome uses it for the kit box on a course's first page, and for the "course complete" box on its
last page, which points to the next course in the nav (or home, after the last course).

Left out: planned pages that are not in the nav yet; a course is what the nav holds today.
"""

from __future__ import annotations

from dataclasses import dataclass

from sitebuild.course.coursenav import CoursePage, page_url


@dataclass(frozen=True)
class SyllabusPage:
    """One page as the syllabus lists it: title, address under the site root (page_url), place, minutes."""

    title: str
    src_uri: str
    url: str
    number: int
    minutes: int


@dataclass(frozen=True)
class Chapter:
    """A chapter of a course ("" for pages that sit in the course itself) and its pages in nav order."""

    name: str
    pages: tuple[SyllabusPage, ...]

    @property
    def minutes(self) -> int:
        """The chapter's reading time: the sum of its pages' minutes."""
        return sum(p.minutes for p in self.pages)


@dataclass(frozen=True)
class Course:
    """A course: its nav section ("Beginner"), its full name, its chapters in nav order.

    Example: Course("Beginner", "Foundations", (Chapter("C1", (page,)),)).count == 1
    """

    section: str
    name: str
    chapters: tuple[Chapter, ...]

    @property
    def pages(self) -> list[SyllabusPage]:
        """Every page of the course, in nav order."""
        return [p for chapter in self.chapters for p in chapter.pages]

    @property
    def count(self) -> int:
        """How many pages the course has."""
        return len(self.pages)

    @property
    def minutes(self) -> int:
        """The course's reading time: the sum of its pages' minutes."""
        return sum(p.minutes for p in self.pages)


def courses(pages: list[CoursePage], minutes: dict[str, int], names: dict[str, str]) -> list[Course]:
    """Every course of the nav, in nav order, with its chapters and pages.

    Args:
        pages: the course pages in nav order (coursenav.course_pages).
        minutes: each page's reading time in minutes, by src_uri (every page of `pages`).
        names: a course's full name by its nav section; a section not in it is named by its nav title.

    Returns:
        One Course per top-level section that holds course pages.

    Raises:
        KeyError: a page has no reading time in `minutes`.

    Example: courses(course_pages(nav), {"b/a.md": 3}, {})[0].minutes == 3
    """
    found: dict[str, dict[str, list[SyllabusPage]]] = {}
    for page in pages:
        entry = SyllabusPage(page.title, page.src_uri, page_url(page.src_uri), page.number, minutes[page.src_uri])
        found.setdefault(page.course, {}).setdefault(page.chapter, []).append(entry)
    return [
        Course(section, str(names.get(section, section)),
               tuple(Chapter(name, tuple(entries)) for name, entries in chapters.items()))
        for section, chapters in found.items()
    ]


@dataclass(frozen=True)
class Leads:
    """Where a course page leads beyond its own course.

    Attributes:
        kit_url: the course's first page (page_url), which holds the "Get the kit" box.
        first: whether this is the course's first page; last: whether it is the course's last.
        next_course: the next course's full name ("" after the last course);
        next_title, next_url: that course's first page ("" after the last course).
    """

    kit_url: str
    first: bool
    last: bool
    next_course: str = ""
    next_title: str = ""
    next_url: str = ""


def leads(all_courses: list[Course]) -> dict[str, Leads]:
    """{src_uri: Leads} for every course page.

    Example: leads(courses(...))["beginner/a.md"].kit_url == "beginner/a/"
    """
    found = {}
    for index, course in enumerate(all_courses):
        following = all_courses[index + 1] if index + 1 < len(all_courses) else None
        first = course.pages[0]
        after = ((following.name, following.pages[0].title, following.pages[0].url) if following else ("", "", ""))
        for page in course.pages:
            found[page.src_uri] = Leads(first.url, page is first, page is course.pages[-1], *after)
    return found
