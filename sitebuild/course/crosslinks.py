"""Cross-links: every mention of another course page's title in a page's prose must be a link to it.

A learner who reads "as in Cost and Latency Fundamentals" should be one click from that page. This
check finds each mention of another course page's title (coursenav.py: the titled pages inside a
course section of the nav) in a page's Markdown source, and reports the ones that are not links,
with the line and the link to write. It reads prose only: code (fenced and inline), headings,
admonition titles, links, raw HTML tags and the front matter are left out. A title may run over a
line break. A course page that is not in the nav yet is not known here, so its title stays plain
text without a problem, until the page lands in the nav.

Left out: a full Markdown parser. Indented code blocks are read as prose (admonition bodies are
indented the same way), and a title broken by emphasis inside it ("Cost and *Latency*") is not seen.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sitebuild.course.coursenav import CoursePage, course_pages

FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})")
HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")
SETEXT_UNDERLINE = re.compile(r"^ {0,3}=+[ \t]*$")
ADMONITION_TITLE = re.compile(r"^[ \t]*(?:!!!|\?\?\?\+?)[ \t]")
LINK_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:[ \t]")
# Spans inside prose that are not prose, in the order they are masked.
SPANS = [
    re.compile(r"<!--.*?-->", re.S),  # HTML comment
    re.compile(r"(`+)(?:(?!\n[ \t]*\n).)+?\1", re.S),  # inline code, within one paragraph
    re.compile(r"<(a|code|pre)\b[^>]*>.*?</\1\s*>", re.S | re.I),  # a raw HTML link or code element
    re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\([^)]*\)"),  # [text](target), ![alt](src)
    re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\[[^\]]*\]"),  # [text][ref]
    re.compile(r"<[^<>\n]+>"),  # autolinks and other HTML tags (attributes may hold anything)
]


@dataclass(frozen=True)
class Mention:
    """A mention of a course page that is not a link.

    Attributes:
        line: the line of the page's source file where the mention starts, from 1.
        page: the course page mentioned.
        link: the relative link to it from the mentioning page, e.g. "../beginner/cost-and-latency.md".
    """

    line: int
    page: CoursePage
    link: str

    @property
    def message(self) -> str:
        """What the build reports, e.g. 'line 93: "Cost and ..." is mentioned without a link; write [...](...)'."""
        return (
            f'line {self.line}: "{self.page.title}" (a course page) is mentioned without a link; '
            f"write it as [{self.page.title}]({self.link})"
        )


def _blank(text: str) -> str:
    """text with every character but line breaks turned into a space, so line numbers stay put."""
    return re.sub(r"[^\n]", " ", text)


def prose(source: str) -> str:
    """A page's Markdown source with everything but prose blanked out, line for line.

    Args:
        source: the page's Markdown file as written, front matter included.

    Returns:
        A string of the same length and the same line breaks, in which front matter, fenced code,
        headings, admonition titles, link definitions, inline code, links and HTML tags are spaces.

    Example: prose("# Title\\nSee `code` here").splitlines()[1] == "See        here"
    """
    lines = source.split("\n")
    keep = [True] * len(lines)
    start = 0
    if lines and lines[0].rstrip() == "---":  # YAML front matter
        end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
        if end is not None:
            keep[: end + 1] = [False] * (end + 1)
            start = end + 1
    fence = ""
    for i in range(start, len(lines)):
        line = lines[i]
        if fence:
            keep[i] = False
            stripped = line.strip()
            if len(stripped) >= len(fence) and set(stripped) == {fence[0]}:
                fence = ""
            continue
        if opening := FENCE.match(line):
            fence, keep[i] = opening["fence"], False
        elif HEADING.match(line) or ADMONITION_TITLE.match(line) or LINK_DEFINITION.match(line):
            keep[i] = False
        elif SETEXT_UNDERLINE.match(line) and i > 0 and lines[i - 1].strip():
            keep[i] = keep[i - 1] = False
    text = "\n".join(line if kept else _blank(line) for line, kept in zip(lines, keep, strict=True))
    for span in SPANS:
        text = span.sub(lambda m: _blank(m.group(0)), text)
    return text


def title_pattern(title: str) -> re.Pattern[str]:
    """A title as a pattern: its words in order, any run of white space between them, whole words only.

    Example: title_pattern("Agent Loops, State").search("see Agent\\nLoops, State.") is not None
    """
    words = [re.escape(word) for word in title.split()]
    return re.compile(r"(?<!\w)" + r"\s+".join(words) + r"(?!\w)")


def unlinked_mentions(source: str, src_uri: str, pages: list[CoursePage]) -> list[Mention]:
    """The mentions of other course pages in a page's prose that are not links, in page order.

    Args:
        source: the page's Markdown file as written (front matter included, so lines match the file).
        src_uri: the page's file under docs/, e.g. "advanced/agent-loops-state-memory.md".
        pages: the course pages (coursenav.course_pages); the page itself is skipped.

    Returns:
        One Mention per unlinked mention, ordered by line, then by title.

    Example: unlinked_mentions("See Cost and Latency Fundamentals.", "a.md", pages)[0].line == 1
    """
    text = prose(source)
    found = []
    for page in pages:
        if page.src_uri == src_uri:
            continue
        for match in title_pattern(page.title).finditer(text):
            found.append(Mention(text.count("\n", 0, match.start()) + 1, page, page.link_from(src_uri)))
    return sorted(found, key=lambda m: (m.line, m.page.title))


def check_page(src_uri: str, source: str, nav: list | None) -> list[str]:
    """The build's cross-link problems of one page, one line each (the hook adds the page's path).

    Args:
        src_uri: the page's file under docs/; source: its Markdown file as written;
        nav: the nav of mkdocs.yml (config.nav), None when there is none.

    Returns:
        One message per unlinked mention (Mention.message); [] when every mention is a link.

    Example: check_page("index.md", "Read Agent Loops, State, and Memory.", nav) == ['line 1: "Agent ...']
    """
    return [mention.message for mention in unlinked_mentions(source, src_uri, course_pages(nav))]
