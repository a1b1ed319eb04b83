"""Tests of evidencedesk.evals.multiple: Holm's and Bonferroni's corrections against values worked out by hand,
and Holm's adjusted p-values against the step-down procedure written out again."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evidencedesk.evals.multiple import Adjusted, bonferroni, holm


def test_holm_worked_out_by_hand() -> None:
    # Sorted 0.01, 0.03, 0.04; multiplied by 3, 2, 1: 0.03, 0.06, 0.04, kept in order: 0.03, 0.06, 0.06.
    found = holm({"x": 0.01, "y": 0.03, "z": 0.04})
    assert [round(a.adjusted, 10) for a in found] == [0.03, 0.06, 0.06]
    assert [a.rejected for a in found] == [True, False, False]
    assert found[0] == Adjusted("x", 0.01, found[0].adjusted, True)


def test_holm_keeps_the_order_given_and_rejects_more_than_bonferroni() -> None:
    given_order = {"c": 0.03, "a": 0.01, "b": 0.02}
    by_holm, by_bonferroni = holm(given_order), bonferroni(given_order)
    assert [a.name for a in by_holm] == ["c", "a", "b"] and [a.p for a in by_holm] == [0.03, 0.01, 0.02]
    assert [round(a.adjusted, 10) for a in by_holm] == [0.04, 0.03, 0.04] and all(a.rejected for a in by_holm)
    assert [round(a.adjusted, 10) for a in by_bonferroni] == [0.09, 0.03, 0.06]
    assert [a.rejected for a in by_bonferroni] == [False, True, False]


def test_one_test_is_left_as_it_is_and_adjusted_values_stop_at_one() -> None:
    assert holm({"only": 0.04}) == (Adjusted("only", 0.04, 0.04, True),)
    assert [a.adjusted for a in holm({"a": 0.6, "b": 0.7})] == [1.0, 1.0]
    assert [a.adjusted for a in bonferroni({"a": 0.6, "b": 0.7})] == [1.0, 1.0]


def test_the_level_is_a_parameter() -> None:
    assert [a.rejected for a in holm({"x": 0.01, "y": 0.03, "z": 0.04}, alpha=0.1)] == [True, True, True]
    assert [a.rejected for a in holm({"x": 0.01, "y": 0.03, "z": 0.04}, alpha=0.01)] == [False, False, False]


@pytest.mark.parametrize("p_values, alpha, message", [
    ({}, 0.05, "at least one test"),
    ({"a": 1.5}, 0.05, "p_values['a']"),
    ({"a": -0.1}, 0.05, "p_values['a']"),
    ({"a": math.nan}, 0.05, "p_values['a']"),
    ({"a": True}, 0.05, "p_values['a']"),
    ({"a": "0.01"}, 0.05, "p_values['a']"),
    ({"a": 0.01}, 0, "alpha"),
    ({"a": 0.01}, 1.0, "alpha"),
])
def test_bad_input_is_named(p_values: dict, alpha: float, message: str) -> None:
    for correct in (holm, bonferroni):
        with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
            correct(p_values, alpha)


def _step_down(ps: list[float], alpha: float) -> list[bool]:
    """Holm as the paper states it: reject the sorted p_(1), p_(2), ... while p_(i) <= alpha / (m - i + 1)."""
    m = len(ps)
    rejected = [False] * m
    for rank, i in enumerate(sorted(range(m), key=lambda j: ps[j])):
        if ps[i] > alpha / (m - rank):
            break
        rejected[i] = True
    return rejected


PS = st.lists(st.floats(min_value=0, max_value=1), min_size=1, max_size=12)


@settings(max_examples=300, derandomize=True)
@given(PS, st.sampled_from([0.01, 0.05, 0.1]))
def test_holm_agrees_with_the_step_down_procedure_and_sits_between_p_and_bonferroni(ps: list[float],
                                                                                   alpha: float) -> None:
    named = {f"t{i}": p for i, p in enumerate(ps)}
    by_holm, by_bonferroni = holm(named, alpha), bonferroni(named, alpha)
    # the adjusted value can land a rounding step either side of alpha; compare away from the edge
    clear = [not math.isclose(a.adjusted, alpha, rel_tol=1e-9) for a in by_holm]
    step_down = _step_down(ps, alpha)
    assert all(a.rejected == s for a, s, c in zip(by_holm, step_down, clear, strict=True) if c)
    for h, b in zip(by_holm, by_bonferroni, strict=True):
        assert h.p <= h.adjusted <= b.adjusted <= 1.0
        assert not b.rejected or h.rejected  # Holm rejects everything Bonferroni rejects
    ranked = sorted(by_holm, key=lambda a: a.p)
    assert all(x.adjusted <= y.adjusted for x, y in zip(ranked, ranked[1:]))  # order of p kept
