"""The course chrome: course, chapter, "Page k of N", reading time, minutes left, a progress bar.

Every figure is computed at build time, from the nav (coursenav.py) and from the rendered pages,
never typed on a page. The site's plugin (plugin.py) calls this file's events: once every page is
rendered (on_env), it measures each course page and gives it its minutes as the nav's subtitle (the
syllabus in Material's navigation); then (on_page_context) it hands each page its figures as `chrome`,
which overrides/partials/course-chrome.html shows above the page's title, and the home page every
course (syllabus.py) as `syllabus`. The progress bar shows the pages before this one as done; what a
reader marked read is kept in their browser (docs/javascripts/progress.js), never on the site.

Reading time, in whole minutes, rounded up, at least 1:
    words of prose / 238 words a minute  +  lines of code and output / 40 lines a minute
Prose is the rendered page's text outside code boxes (box labels and permalink signs left out), so
it counts the collapsed answers too; code is every non-blank line inside a code box: the sources,
the outputs the build printed, the sources of diagrams. 238 words a minute is the mean silent
reading rate for non-fiction in English (Brysbaert, "How many words do we read per minute?",
Journal of Memory and Language 109, 2019, https://doi.org/10.1016/j.jml.2019.104047). 40 lines a
minute (1.5 s a line) is our own estimate for reading code and its output closely enough to follow.
Minutes left in the course: the reading times of this page and of every later page of its course.

Left out: the home page and other pages outside a course section get no chrome.
"""

from __future__ import annotations

import dataclasses
import html
import math
import re
from dataclasses import dataclass

from sitebuild.course import syllabus
from sitebuild.course.coursenav import CoursePage, course_pages, page_url
from sitebuild.publish import notebooks

WORDS_PER_MINUTE = 238  # prose; Brysbaert 2019, see the module docstring
LINES_PER_MINUTE = 40  # code and output; our own estimate

PRE = re.compile(r"<pre\b.*?</pre>", re.S | re.I)
# A diagram (inline SVG, sitebuild/publish/diagrams.py) is read as its Mermaid source: data-lines lines of code.
DIAGRAM = re.compile(r'<div class="diagram"[^>]*data-lines="(\d+)"[^>]*>.*?</svg></div>(<p class="diagram-scroll-hint"'
                     r"[^>]*>.*?</p>)?", re.S)
NOT_PROSE = re.compile(r'<span class="filename">.*?</span>|<a class="headerlink"[^>]*>.*?</a>', re.S)
TAG = re.compile(r"<[^>]+>")
WORD = re.compile(r"\w")


@dataclass(frozen=True)
class ReadingCounts:
    """What a reader reads on a page: words of prose and non-blank lines of code and output."""

    words: int
    code_lines: int

    @property
    def minutes(self) -> int:
        """Reading time in whole minutes, rounded up, at least 1 (formula in the module docstring).

        Example: ReadingCounts(words=476, code_lines=40).minutes == 3
        """
        return max(1, math.ceil(self.words / WORDS_PER_MINUTE + self.code_lines / LINES_PER_MINUTE))


def reading_counts(page_html: str) -> ReadingCounts:
    """Count the words of prose and the lines of code of a rendered page's content.

    Args:
        page_html: the page's content as MkDocs renders it (page.content), without the theme around it.

    Returns:
        ReadingCounts: words outside <pre> elements (tags, box labels and permalinks left out; a word
        is a run of non-space characters holding a letter or digit), and non-blank lines inside them and
        in each diagram's Mermaid source (its data-lines; the drawing's labels are not prose).

    Example: reading_counts("<p>Two words</p><pre><code>a\\n\\nb</code></pre>") == ReadingCounts(2, 2)
    """
    code_lines = sum(int(lines) for lines, _ in DIAGRAM.findall(page_html))
    page_html = DIAGRAM.sub(" ", page_html)
    for block in PRE.findall(page_html):
        code_lines += sum(1 for line in html.unescape(TAG.sub("", block)).splitlines() if line.strip())
    text = html.unescape(TAG.sub(" ", NOT_PROSE.sub(" ", PRE.sub(" ", page_html))))
    return ReadingCounts(sum(1 for word in text.split() if WORD.search(word)), code_lines)


@dataclass(frozen=True)
class Chrome:
    """The figures the chrome shows on one course page.

    Attributes:
        course: the course's name, e.g. "AI Engineering with LLMs".
        chapter: the chapter's name, or "" when the page is in no chapter.
        number: the page's place in its course, from 1; count: the course's page count.
        minutes: this page's reading time; minutes_left: this page's and every later page's, in minutes.
        url: the page's address under the site root (its key in the reader's progress, progress.js).
        leads: the kit box's page, and where the course's last page leads (syllabus.Leads).
        notebook, script: the page's notebook and script under the site root ("" when the build made none).
    """

    course: str
    chapter: str
    number: int
    count: int
    minutes: int
    minutes_left: int
    url: str = ""
    leads: syllabus.Leads | None = None
    notebook: str = ""
    script: str = ""

    @property
    def done(self) -> int:
        """The pages of the course before this one, which the progress bar shows as done."""
        return self.number - 1

    @property
    def percent(self) -> int:
        """How far through the course a reader who opens this page is: 100 * pages before it / count, rounded.

        Example: Chrome("C", "", 1, 4, 5, 20).percent == 0 and Chrome("C", "", 3, 4, 5, 20).percent == 50
        """
        return round(100 * self.done / self.count)


def course_chrome(pages: list[CoursePage], minutes: dict[str, int], names: dict[str, str]) -> dict[str, Chrome]:
    """The chrome of every course page.

    Args:
        pages: the course pages in nav order (coursenav.course_pages).
        minutes: each page's reading time in minutes, by src_uri; every page of `pages` must be there.
        names: a course's full name by its nav section, e.g. {"Advanced": "AI Engineering with LLMs"};
            a section not in it is named by its nav title.

    Returns:
        {src_uri: Chrome}.

    Raises:
        KeyError: a page has no reading time in `minutes`.

    Example: course_chrome(pages, {"a.md": 5, "b.md": 7}, {})["a.md"].minutes_left == 12
    """
    chrome = {}
    for page in pages:
        left = sum(minutes[p.src_uri] for p in pages if p.course == page.course and p.number >= page.number)
        name = str(names.get(page.course, page.course))
        chrome[page.src_uri] = Chrome(name, page.chapter, page.number, page.count, minutes[page.src_uri], left,
                                      page_url(page.src_uri))
    return chrome


# The plugin's events (plugin.py) ------------------------------------------------------------------------------------

_chrome: dict[str, Chrome] = {}
_courses: list[syllabus.Course] = []


def on_env(env, config, files):
    """Every page is rendered by now: measure the course pages and work out each one's chrome."""
    pages = [p for p in course_pages(config.nav) if files.get_file_from_path(p.src_uri) is not None]
    minutes = {}
    for page in pages:
        built = files.get_file_from_path(page.src_uri).page
        minutes[page.src_uri] = reading_counts(built.content if built and built.content else "").minutes
        if built is not None:  # the syllabus in Material's navigation: each page's minutes under its title
            built.meta["subtitle"] = f"{minutes[page.src_uri]} min"
    names = config.extra.get("courses") or {}
    _courses[:] = syllabus.courses(pages, minutes, names)
    leads = syllabus.leads(_courses)
    _chrome.clear()
    for src_uri, chrome in course_chrome(pages, minutes, names).items():
        notebook, script = (p if files.get_file_from_path(p) else "" for p in notebooks.download_paths(src_uri))
        _chrome[src_uri] = dataclasses.replace(chrome, leads=leads[src_uri], notebook=notebook, script=script)
    return env


def on_page_context(context, page, config, nav):
    """Give the page's template its figures as `chrome` (None outside a course), and the home page the
    courses as `syllabus` (None elsewhere)."""
    context["chrome"] = _chrome.get(page.file.src_uri)
    context["syllabus"] = list(_courses) if page.is_homepage else None
    if context["chrome"] and "navigation" in (page.meta.get("hide") or []):
        # The course's navigation is its syllabus: a course page always shows it (code boxes scroll instead).
        page.meta["hide"] = [item for item in page.meta["hide"] if item != "navigation"]
    return context
