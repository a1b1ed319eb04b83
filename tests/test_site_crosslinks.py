"""Cross-links: an unlinked mention of another course page's title in prose fails the build, with page and line."""

from __future__ import annotations

import pytest

from sitebuild.course.coursenav import course_pages
from sitebuild.course.crosslinks import check_page, prose, unlinked_mentions
from tests.conftest import MKDOCS_YML

NAV = [
    {"Home": "index.md"},
    {"Beginner": [{"Chapter 1": [{"Cost and Latency Fundamentals": "beginner/cost.md"}]}]},
    {"Advanced": [{"Chapter 3": [{"Agent Loops, State, and Memory": "advanced/agents.md"}]}]},
]
PAGES = course_pages(NAV)


def lines(source: str, src_uri: str = "advanced/agents.md") -> list[tuple[int, str]]:
    return [(m.line, m.page.title) for m in unlinked_mentions(source, src_uri, PAGES)]


def test_a_plain_mention_in_prose_is_reported_with_its_line_and_the_link_to_write():
    source = "# Agent Loops, State, and Memory\n\nIntro.\n\nSee *Cost and Latency Fundamentals* first.\n"
    [message] = check_page("advanced/agents.md", source, NAV)
    assert message == (
        'line 5: "Cost and Latency Fundamentals" (a course page) is mentioned without a link; '
        "write it as [Cost and Latency Fundamentals](../beginner/cost.md)"
    )


def test_a_title_broken_over_two_lines_is_found_on_its_first_line():
    found = lines("Intro.\nThe ledger from Cost and\nLatency Fundamentals holds.\n")
    assert found == [(2, "Cost and Latency Fundamentals")]


@pytest.mark.parametrize(
    "source",
    [
        "See [Cost and Latency Fundamentals](../beginner/cost.md).",
        "See [the page *Cost and Latency\nFundamentals*](../beginner/cost.md).",
        "See [Cost and Latency Fundamentals][cost].\n\n[cost]: ../beginner/cost.md",
        'See <a href="../beginner/cost/">Cost and Latency Fundamentals</a>.',
        "See `Cost and Latency Fundamentals` in code.",
        "```python\nprint('Cost and Latency Fundamentals')\n```",
        '    ```python exec="on"\n    print("Cost and Latency Fundamentals")\n    ```',
        "## Back to Cost and Latency Fundamentals",
        '??? tip "Cost and Latency Fundamentals"\n\n    Body.',
        "<!-- Cost and Latency Fundamentals -->",
        '<img alt="Cost and Latency Fundamentals" src="x.png">',
        "---\ntitle: Cost and Latency Fundamentals\n---\n\nBody.",
        "Costs and Latency Fundamentals, Cost and Latency Fundamentalism.",
    ],
    ids=[
        "link", "link-over-lines", "reference-link", "html-link", "inline-code", "fence", "indented-fence",
        "heading", "admonition-title", "html-comment", "html-attribute", "front-matter", "other-words",
    ],
)
def test_links_code_headings_and_markup_are_not_prose(source):
    assert lines(source) == []


def test_a_page_mentioning_itself_needs_no_link():
    assert lines("This page, Agent Loops, State, and Memory, links nothing.") == []


def test_a_title_whose_page_is_not_in_the_nav_stays_plain_text():
    assert lines("Next: *Human Approval and Multi-Agent Boundaries*.") == []


def test_prose_keeps_lines_and_columns():
    source = "---\nhide: [toc]\n---\n# Title\nSome `code` and [a link](x.md) here.\n```\nfenced\n```\n"
    blanked = prose(source)
    assert len(blanked) == len(source) and blanked.count("\n") == source.count("\n")
    assert blanked.splitlines()[4] == "Some " + " " * len("`code`") + " and " + " " * len("[a link](x.md)") + " here."
    assert blanked.split("\n")[:4] == ["   ", " " * len("hide: [toc]"), "   ", " " * len("# Title")]


def test_every_mention_after_a_linked_one_is_still_reported():
    source = "[Cost and Latency Fundamentals](../beginner/cost.md) and again Cost and Latency Fundamentals.\n"
    assert lines(source) == [(1, "Cost and Latency Fundamentals")]


# In a build ------------------------------------------------------------------------------------------------


@pytest.mark.site
def test_the_build_fails_naming_page_and_line_of_an_unlinked_mention(make_site):
    nav = (
        "nav:\n  - Home: index.md\n  - Beginner:\n      - Page One: one.md\n      - Page Two: two.md\n"
    )
    site = make_site(
        {
            "index.md": "# Home\n\nStart with [Page One](one.md).\n",
            "one.md": "---\nhide: [toc]\n---\n# Page One\n\nThen read\nPage Two, and *Page Three* later.\n",
            "two.md": "# Page Two\n\nAfter [Page One](one.md).\n",
        }
    )
    site.write("mkdocs.yml", MKDOCS_YML + nav)

    run = site.build()

    assert run.code != 0, run
    assert (
        'docs/one.md: line 7: "Page Two" (a course page) is mentioned without a link; write it as [Page Two](two.md)'
        in run.output
    ), run
    assert "Page Three" not in run.output and "docs/two.md:" not in run.output and "docs/index.md:" not in run.output

    site.page("one.md", "# Page One\n\nThen read [Page Two](two.md), and *Page Three* later.\n")
    assert site.build().code == 0
