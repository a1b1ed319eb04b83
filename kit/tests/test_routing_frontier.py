"""The Pareto frontier of cost and pass rate (evidencedesk.routing.frontier)."""

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evidencedesk.routing.frontier import Point, dominates, pareto


def p(name, passed, cost):
    return Point(name, passed, 100, Decimal(cost))


def test_dominance_needs_one_strict_improvement():
    assert dominates(p("a", 90, 1), p("b", 80, 2))
    assert dominates(p("a", 90, 1), p("b", 90, 2)) and dominates(p("a", 91, 1), p("b", 90, 1))
    assert not dominates(p("a", 90, 1), p("b", 90, 1))
    assert not dominates(p("a", 95, 2), p("b", 90, 1))


def test_the_frontier_drops_a_dearer_configuration_that_is_no_better():
    points = [p("cheap", 79, "0.1"), p("mid", 90, "0.6"), p("dear", 93, "1.5"), p("cascade", 94, "1.3")]
    assert [q.name for q in pareto(points)] == ["cheap", "mid", "cascade"]


def test_points_on_different_case_counts_are_refused():
    with pytest.raises(ValueError, match="same cases"):
        dominates(Point("a", 9, 10, Decimal(1)), Point("b", 9, 11, Decimal(1)))


def test_two_points_with_one_name_are_refused():
    with pytest.raises(ValueError, match="name"):
        pareto([p("a", 1, 1), p("a", 2, 2)])


points = st.lists(st.tuples(st.integers(0, 100), st.integers(0, 50)), min_size=1, max_size=12).map(
    lambda pairs: [p(f"c{i}", passed, cost) for i, (passed, cost) in enumerate(pairs)])


@settings(max_examples=200, derandomize=True, database=None)
@given(points)
def test_every_point_off_the_frontier_is_dominated_by_one_on_it(points):
    front = pareto(points)
    assert front and all(not dominates(a, b) for a in front for b in front)
    for q in points:
        assert q in front or any(dominates(f, q) for f in front)
