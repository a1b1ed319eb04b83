"""course.PAGES holds the course order that kit/tests/test_course_order.py holds, and names every module."""

import pytest
from test_course_order import ADVANCED, BEGINNER_MODULES, PACKAGE

from evidencedesk.capstone.course import ADVANCED_PACKAGES, PAGES, CourseError, Page, page_of, page_of_test


def test_the_subpackages_in_the_kit_come_in_the_order_of_test_course_order():
    present = [f"evidencedesk.{name}" for name in ADVANCED_PACKAGES if (PACKAGE / name / "__init__.py").is_file()]
    assert present == list(ADVANCED)


def test_the_beginner_pages_add_exactly_the_beginner_modules():
    assert sorted(m for p in PAGES if not p.package for m in p.modules) == sorted(BEGINNER_MODULES)


def test_every_module_of_every_subpackage_in_the_kit_belongs_to_one_page():
    for name in ADVANCED_PACKAGES:
        for path in (PACKAGE / name).glob("*.py") if (PACKAGE / name).is_dir() else ():
            if path.stem != "__init__":
                assert page_of(name, path.stem).package == name


def test_the_agent_subpackage_is_split_between_its_two_pages():
    assert page_of("agent", "poisoning").title == "Human Approval and Multi-Agent Boundaries"
    assert page_of("agent", "loop").title == "Agent Loops, State, and Memory"


def test_unknown_code_is_refused_naming_it():
    with pytest.raises(CourseError, match="evidencedesk.nowhere.x"):
        page_of("nowhere", "x")
    with pytest.raises(CourseError, match="evidencedesk.x "):
        page_of("", "x")


def test_a_test_file_maps_to_its_page_and_a_helper_to_none():
    assert page_of_test("test_invariants.py").title == "Safe Failure and Security Regression Tests"
    assert page_of_test("test_tenancy_platform.py").package == "tenancy"
    assert page_of_test("test_agent_proposals.py").title == "Human Approval and Multi-Agent Boundaries"
    assert page_of_test("test_budget.py").title == "Budgets, Caching, and Usage Limits"
    assert page_of_test("test_course_order.py") is None


def test_pages_are_unique_and_a_bad_page_is_refused():
    assert len({p.path for p in PAGES}) == len({p.title for p in PAGES}) == len(PAGES) == 30
    with pytest.raises(ValueError, match="path"):
        Page(title="x", path="docs/x.md")
