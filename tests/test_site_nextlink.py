"""The Next link: a course page's **Next:** paragraph must lead where the nav goes next, or the build fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitebuild.course.coursenav import course_pages, read_config
from sitebuild.course.nextlink import HOME, check_page, expected_next
from tests.conftest import MKDOCS_YML

NAV = [
    {"Home": "index.md"},
    {"Beginner": [{"Chapter 1": [{"Cost": "beginner/cost.md"}, {"Budgets": "beginner/budgets.md"}]}]},
    {"Advanced": [{"Chapter 1": [{"Calling": "advanced/calling.md"}]},
                  {"Chapter 2": [{"Agents": "advanced/agents.md"}]}]},
]


def test_a_page_leads_to_the_next_page_of_its_course():
    assert check_page("beginner/cost.md", "# Cost\n\n**Next:** [Budgets](budgets.md) counts more.\n", NAV) == []


def test_a_wrong_target_is_reported_with_its_line_and_the_link_to_write():
    source = "# Cost\n\nText.\n\n**Next:** the course continues with\n[Agents](../advanced/agents.md).\n"
    assert check_page("beginner/cost.md", source, NAV) == [
        "line 5: its **Next:** paragraph links '../advanced/agents.md', but the page that follows it is "
        '"Budgets", the next course page in the nav: write **Next:** [Budgets](budgets.md) ...'
    ]


def test_a_chapter_boundary_inside_a_course_still_leads_to_the_next_page():
    assert check_page("advanced/calling.md", "**Next:** [Agents](agents.md).", NAV) == []
    [message] = check_page("advanced/calling.md", "**Next:** back to [the course home](../index.md).", NAV)
    assert "write **Next:** [Agents](agents.md)" in message


def test_a_course_s_last_page_leads_to_the_next_course_or_home():
    assert [p.src_uri for p in expected_next("beginner/budgets.md", course_pages(NAV))[:1]] == ["advanced/calling.md"]
    assert check_page("beginner/budgets.md", "**Next:** [Calling](../advanced/calling.md) starts.", NAV) == []
    assert check_page("beginner/budgets.md", "**Next:** back to [home](../index.md).", NAV) == []
    assert expected_next("advanced/agents.md", course_pages(NAV)) == [HOME]
    assert check_page("advanced/agents.md", "**Next:** back to [home](../index.md).", NAV) == []
    [message] = check_page("advanced/agents.md", "**Next:** [Cost](../beginner/cost.md).", NAV)
    assert "the home page (no course page follows this one): write **Next:** back to [the course home](../index.md)" \
        in message


def test_a_paragraph_without_a_link_is_reported_and_a_page_without_one_is_not():
    [message] = check_page("beginner/cost.md", "**Next:** more to come.\n", NAV)
    assert "its **Next:** paragraph has no link" in message
    assert check_page("beginner/cost.md", "# Cost\n\nNo next paragraph.\n", NAV) == []
    assert check_page("index.md", "**Next:** [anything](x.md)", NAV) == []  # not a course page


def test_an_anchor_on_the_link_is_ignored_and_only_the_first_link_counts():
    source = "**Next:** [Budgets](budgets.md#top) and then [Agents](../advanced/agents.md)."
    assert check_page("beginner/cost.md", source, NAV) == []


def test_every_course_page_of_this_site_leads_where_the_nav_goes():
    root = Path(__file__).resolve().parents[1]
    nav = read_config(root / "mkdocs.yml")["nav"]
    problems = [f"{page.src_uri}: {message}" for page in course_pages(nav)
                for message in check_page(page.src_uri, (root / "docs" / page.src_uri).read_text(), nav)]
    assert problems == []


@pytest.mark.site
def test_the_build_fails_naming_page_line_and_the_link_to_write(make_site):
    nav = "nav:\n  - Home: index.md\n  - Beginner:\n      - Page One: one.md\n      - Page Two: two.md\n"
    site = make_site(
        {
            "index.md": "# Home\n\nStart with [Page One](one.md).\n",
            "one.md": "# Page One\n\nText.\n\n**Next:** back to [the home page](index.md).\n",
            "two.md": "# Page Two\n\nAfter [Page One](one.md).\n\n**Next:** back to [the home page](index.md).\n",
        }
    )
    site.write("mkdocs.yml", MKDOCS_YML + nav)

    run = site.build()

    assert run.code != 0, run
    assert ("docs/one.md: line 5: its **Next:** paragraph links 'index.md', but the page that follows it is "
            '"Page Two", the next course page in the nav: write **Next:** [Page Two](two.md) ...') in run.output, run
    assert "docs/two.md:" not in run.output

    site.page("one.md", "# Page One\n\nText.\n\n**Next:** [Page Two](two.md) goes on.\n")
    assert site.build().code == 0
