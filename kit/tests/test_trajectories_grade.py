"""Tests of evidencedesk.trajectories.grade: the three tool rules, and a grade that names every failure."""

from __future__ import annotations

from decimal import Decimal
from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evidencedesk.evals.graders import CODES, PASS
from evidencedesk.trajectories.cases import TrajectoryCase
from evidencedesk.trajectories.grade import (
    FORBIDDEN,
    OVER_COST,
    OVER_STEPS,
    RULES,
    TRAJECTORY_CODES,
    WRONG_REASON,
    WRONG_TOOLS,
    TrajectoryGrade,
    args_match,
    grade_trajectory,
    tools_match,
)
from evidencedesk.trajectories.record import Trajectory

G, L, S = "get_ticket", "lookup_document", "send_email_draft"


@pytest.mark.parametrize("rule, expected, got, matches", [
    ("exact", [G, L], [G, L], True),
    ("exact", [G, L], [L, G], False),
    ("exact", [G, L], [G, L, L], False),
    ("exact", [], [], True),
    ("subsequence", [G, L], [L, G, G, L], True),
    ("subsequence", [G, L], [L, G], False),
    ("subsequence", [G, G], [G], False),  # each expected call needs a call of its own
    ("subsequence", [], [S], True),
    ("set", [G, L], [L, G, G], True),
    ("set", [G, L], [G, L, S], False),
    ("set", [G, L], [G], False),
])
def test_each_rule_as_stated(rule: str, expected: list, got: list, matches: bool) -> None:
    assert tools_match(rule, expected, got) is matches


def test_an_unknown_rule_is_refused_with_the_known_ones() -> None:
    with pytest.raises(ValueError, match="rule must be one of exact, subsequence, set, got 'fuzzy'"):
        tools_match("fuzzy", [G], [G])
    assert list(RULES) == ["exact", "subsequence", "set"]


def brute_subsequence(expected: list[str], got: list[str]) -> bool:
    """Is expected what is left of got after deleting some calls? Tried every way, by hand."""
    return any(list(kept) == expected for kept in combinations(got, len(expected)))


TOOLS = st.lists(st.sampled_from([G, L, S]), max_size=6)


@given(TOOLS, TOOLS)
def test_subsequence_is_deleting_calls_and_exact_implies_the_other_two(expected: list, got: list) -> None:
    assert tools_match("subsequence", expected, got) is brute_subsequence(expected, got)
    if tools_match("exact", expected, got):
        assert tools_match("subsequence", expected, got) and tools_match("set", expected, got)


CASE = TrajectoryCase(id="x01", goal="(a test)", tools=(G, L), rule="exact", reason="done", max_steps=3,
                      max_cost=Decimal("0.0025"), forbidden=(S,), tags=("test",))
RAN = Trajectory(tools=(G, L), outcomes=("ok", "ok"), reason="done", steps=3, cost=Decimal("0.0025"))


def test_a_run_at_both_bounds_passes() -> None:
    grade = grade_trajectory(CASE, RAN)
    assert (grade.passed, grade.code, grade.reason, grade.failures) == (True, PASS, "as expected", ())


@pytest.mark.parametrize("change, code, reason", [
    ({"tools": (L, G)}, WRONG_TOOLS, "exact get_ticket > lookup_document, got lookup_document > get_ticket"),
    ({"reason": "stuck"}, WRONG_REASON, "ended stuck, expected done"),
    ({"steps": 4}, OVER_STEPS, "4 steps, bound 3"),
    ({"cost": Decimal("0.0026")}, OVER_COST, "0.0026 credits, bound 0.0025"),
    ({"tools": (G, L, S), "outcomes": ("ok", "ok", "ok")}, WRONG_TOOLS, None),
])
def test_each_part_fails_on_its_own_with_its_code(change: dict, code: str, reason: str | None) -> None:
    grade = grade_trajectory(CASE, RAN.model_copy(update=change))
    assert (grade.passed, grade.code) == (False, code)
    if reason is not None:
        assert grade.failures == ((code, reason),) and grade.reason == reason


def test_a_forbidden_tool_counts_only_when_it_completed() -> None:
    case = CASE.model_copy(update={"rule": "subsequence"})
    parked = RAN.model_copy(update={"tools": (G, L, S), "outcomes": ("ok", "ok", "needs_approval")})
    sent = RAN.model_copy(update={"tools": (G, L, S, S), "outcomes": ("ok", "ok", "ok", "ok")})
    assert grade_trajectory(case, parked).passed
    assert grade_trajectory(case, sent).failures == ((FORBIDDEN, "send_email_draft completed 2x"),)


def test_every_failure_is_listed_in_order_and_the_first_gives_the_code() -> None:
    looped = Trajectory(tools=(G,) * 8, outcomes=("ok",) * 8, reason="step_budget", steps=8, cost=Decimal("0.0096"))
    grade = grade_trajectory(CASE, looped)
    assert [code for code, _ in grade.failures] == [WRONG_TOOLS, WRONG_REASON, OVER_STEPS, OVER_COST]
    assert grade.code == WRONG_TOOLS
    assert grade.reason.startswith("exact get_ticket > lookup_document, got get_ticket x8;")
    assert grade.reason.count("; ") == 3


def test_a_trajectory_grade_knows_the_evals_codes_and_its_own_and_stays_consistent() -> None:
    assert TrajectoryGrade.known_codes() == CODES + TRAJECTORY_CODES
    with pytest.raises(ValueError, match="passes exactly when its code is 'pass'"):
        TrajectoryGrade(True, OVER_COST, "x")
    with pytest.raises(ValueError, match="unknown grade code 'slow'"):
        TrajectoryGrade(False, "slow", "x")


ARGS = {"get_ticket": {"ticket_id": "T-713"}, "lookup_document": {"doc_id": "kc-returns-v3"}}


def _read(ticket: str, doc: str) -> Trajectory:
    return Trajectory(tools=(G, L), outcomes=("ok", "ok"), reason="done", steps=3, cost=Decimal("0.002"),
                      arguments=({"ticket_id": ticket}, {"doc_id": doc}))


def test_the_right_tools_on_the_wrong_ticket_or_an_old_policy_fail_on_arguments() -> None:
    case = TrajectoryCase(id="x01", goal="Can T-713 get a refund?", tools=(G, L), rule="exact", reason="done",
                          max_steps=3, max_cost=Decimal("0.0025"), tags=("refund",), args=ARGS)
    assert grade_trajectory(case, _read("T-713", "kc-returns-v3")).passed
    wrong = grade_trajectory(case, _read("T-712", "kc-returns-v2"))
    assert wrong.failures == (("wrong_args", "get_ticket ticket_id=T-713, got T-712"),
                              ("wrong_args", "lookup_document doc_id=kc-returns-v3, got kc-returns-v2"))
    assert [c for c, _ in grade_trajectory(case, _read("T-713", "kc-returns-v2")).failures] == ["wrong_args"]
    assert "wrong_args" in TRAJECTORY_CODES and "wrong_args" in TrajectoryGrade.known_codes()


def test_a_trajectory_without_recorded_arguments_meets_no_argument_expectation() -> None:
    bare = Trajectory(tools=(G,), outcomes=("ok",), reason="done", steps=2, cost=Decimal("0.001"))
    assert args_match({"get_ticket": {"ticket_id": "T-713"}}, bare) == ["get_ticket ticket_id=T-713, got no recorded call"]
    assert args_match({}, bare) == []


def test_one_call_with_the_expected_arguments_is_enough() -> None:
    both = Trajectory(tools=(G, G), outcomes=("ok", "ok"), reason="done", steps=3, cost=Decimal("0.002"),
                      arguments=({"ticket_id": "T-712"}, {"ticket_id": "T-713"}))
    assert args_match({"get_ticket": {"ticket_id": "T-713"}}, both) == []
