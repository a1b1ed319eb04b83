"""The course pages read from a nav: course, chapter, place in the course; and mkdocs.yml read as data."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitebuild.course.coursenav import CoursePage, NavError, course_pages, nav_pages, page_url, read_config

NAV = [
    {"Home": "index.md"},
    {
        "Beginner": [
            {"Chapter 1 · Calling Models": [{"Clients": "beginner/clients.md"}, {"Costs": "beginner/costs.md"}]},
            {"Chapter 2 · Tools": [{"Tools": "beginner/tools.md"}]},
        ]
    },
    {"Advanced": [{"Loose page": "advanced/loose.md"}, {"Chapter 3 · Agents": [{"Agents": "advanced/agents.md"}]}]},
    {"Elsewhere": "https://example.org/"},
]


def test_course_pages_are_numbered_within_their_course_with_their_chapter():
    pages = course_pages(NAV)
    assert [(p.title, p.course, p.chapter, p.number, p.count) for p in pages] == [
        ("Clients", "Beginner", "Chapter 1 · Calling Models", 1, 3),
        ("Costs", "Beginner", "Chapter 1 · Calling Models", 2, 3),
        ("Tools", "Beginner", "Chapter 2 · Tools", 3, 3),
        ("Loose page", "Advanced", "", 1, 2),
        ("Agents", "Advanced", "Chapter 3 · Agents", 2, 2),
    ]


def test_top_level_pages_untitled_pages_and_links_are_no_course_pages():
    nav = [{"Home": "index.md"}, {"Beginner": ["beginner/untitled.md", {"Site": "https://example.org/x"}]}]
    assert course_pages(nav) == []
    assert course_pages(None) == []
    assert nav_pages(nav) == ["index.md", "beginner/untitled.md"]


def test_nav_pages_lists_every_page_in_nav_order():
    assert nav_pages(NAV) == [
        "index.md",
        "beginner/clients.md",
        "beginner/costs.md",
        "beginner/tools.md",
        "advanced/loose.md",
        "advanced/agents.md",
    ]


def test_a_nav_entry_that_is_neither_page_nor_section_is_refused_by_name():
    with pytest.raises(NavError, match="'Broken'"):
        course_pages([{"Beginner": [{"Broken": 3}]}])
    with pytest.raises(NavError, match="expected a page"):
        course_pages([{"Beginner": [{"A": "a.md", "B": "b.md"}]}])


def test_links_between_pages_are_relative():
    page = CoursePage("Costs", "beginner/costs.md", "Beginner", "", 2, 3)
    assert page.link_from("advanced/agents.md") == "../beginner/costs.md"
    assert page.link_from("beginner/clients.md") == "costs.md"
    assert page.link_from("index.md") == "beginner/costs.md"


def test_page_urls_follow_directory_urls():
    assert page_url("index.md") == ""
    assert page_url("advanced/agents.md") == "advanced/agents/"
    assert page_url("advanced/index.md") == "advanced/"


def test_read_config_reads_the_real_mkdocs_yml_with_its_python_tags(tmp_path: Path):
    config = read_config(Path(__file__).resolve().parents[1] / "mkdocs.yml")
    assert course_pages(config["nav"]), "the real nav has course pages"
    yml = tmp_path / "mkdocs.yml"
    yml.write_text("nav:\n  - Home: index.md\nformat: !!python/name:pymdownx.superfences.fence_code_format\n")
    assert read_config(yml) == {"nav": [{"Home": "index.md"}], "format": None}
