"""The course chrome's figures: reading time from a rendered page, place in the course, minutes left."""

from __future__ import annotations

from sitebuild.course.chrome import (
    LINES_PER_MINUTE,
    WORDS_PER_MINUTE,
    Chrome,
    ReadingCounts,
    course_chrome,
    reading_counts,
)
from sitebuild.course.coursenav import course_pages

NAV = [
    {"Home": "index.md"},
    {"Beginner": [{"Chapter 1": [{"A": "b/a.md"}, {"B": "b/b.md"}]}, {"C": "b/c.md"}]},
    {"Advanced": [{"Chapter 3": [{"D": "a/d.md"}]}]},
]


def test_prose_words_and_code_lines_are_counted_apart():
    page = (
        '<h2 id="x">Two words<a class="headerlink" href="#x">¶</a></h2>'
        "<p>Three more — words.</p>"
        '<div class="language-python highlight"><span class="filename">Python</span>'
        "<pre><span></span><code>a = 1\n\nprint(a)\n</code></pre></div>"
        '<pre class="mermaid"><code>flowchart LR\n  A --&gt; B\n</code></pre>'
    )
    assert reading_counts(page) == ReadingCounts(words=5, code_lines=4)


def test_a_diagram_is_read_as_its_source_lines_not_as_the_words_of_its_drawing():
    drawn = ('<p>One.</p><div class="diagram" tabindex="0" data-search-exclude data-lines="3"><svg role="img">'
             "<style>#d .node{fill:#fff}</style><text>goal and state</text></svg></div>"
             '<p class="diagram-scroll-hint" hidden>The diagram is wider than the screen</p><p>Two.</p>')
    assert reading_counts(drawn) == ReadingCounts(words=2, code_lines=3)


def test_reading_time_rounds_up_and_is_never_zero():
    assert ReadingCounts(0, 0).minutes == 1
    assert ReadingCounts(WORDS_PER_MINUTE, 0).minutes == 1
    assert ReadingCounts(WORDS_PER_MINUTE + 1, 0).minutes == 2
    assert ReadingCounts(WORDS_PER_MINUTE, LINES_PER_MINUTE).minutes == 2
    assert ReadingCounts(WORDS_PER_MINUTE * 10, LINES_PER_MINUTE * 5 + 1).minutes == 16


def test_reading_time_grows_with_the_page():
    short = reading_counts("<p>" + "word " * 300 + "</p>")
    long = reading_counts("<p>" + "word " * 3000 + "</p><pre><code>" + "x = 1\n" * 200 + "</code></pre>")
    assert short.minutes < long.minutes


def test_each_course_page_gets_its_place_and_the_minutes_left_in_its_own_course():
    pages = course_pages(NAV)
    minutes = {"b/a.md": 5, "b/b.md": 7, "b/c.md": 3, "a/d.md": 20}
    chrome = course_chrome(pages, minutes, {"Beginner": "Foundations course"})
    assert chrome["b/a.md"] == Chrome("Foundations course", "Chapter 1", 1, 3, 5, 15, "b/a/")
    assert chrome["b/b.md"] == Chrome("Foundations course", "Chapter 1", 2, 3, 7, 10, "b/b/")
    assert chrome["b/c.md"] == Chrome("Foundations course", "", 3, 3, 3, 3, "b/c/")
    assert chrome["a/d.md"] == Chrome("Advanced", "Chapter 3", 1, 1, 20, 20, "a/d/")  # no full name: the nav's
    assert "index.md" not in chrome
    assert [chrome[p].percent for p in ("b/a.md", "b/b.md", "b/c.md")] == [0, 33, 67]  # the pages before it
