"""Tests of evidencedesk.evals.paired: the exact McNemar p-value by hand, and the 2x2 table of two runs."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from evidencedesk.evals.cases import load_cases
from evidencedesk.evals.paired import ALPHA, Paired, mcnemar_exact, pair
from evidencedesk.evals.runner import EvalRun, configs, run_eval

CASES = load_cases()
V1, V2 = (run_eval(CASES, config) for config in configs(CASES).values())


@pytest.mark.parametrize("only_a, only_b, p", [
    (0, 0, Fraction(1)),  # nothing discordant: no evidence
    (3, 3, Fraction(1)),  # a tie
    (1, 6, Fraction(2 * (1 + 7), 2**7)),  # 2 * P(X <= 1), X ~ Bin(7, 1/2) = 16/128
    (0, 2, Fraction(2, 4)),  # Aigerim's best case on ten tickets: two discordant, both for the new prompt
    (0, 5, Fraction(2, 32)),
    (0, 6, Fraction(2, 64)),
    (2, 9, Fraction(2 * (1 + 11 + 55), 2**11)),
])
def test_the_p_value_is_the_two_sided_binomial_tail_computed_by_hand(only_a: int, only_b: int, p: Fraction) -> None:
    assert mcnemar_exact(only_a, only_b) == float(p)
    assert mcnemar_exact(only_b, only_a) == float(p)  # which side is A does not matter


def test_six_to_none_is_the_fewest_discordant_cases_that_reach_below_alpha() -> None:
    assert [n for n in range(1, 10) if mcnemar_exact(0, n) < ALPHA][0] == 6


def test_large_counts_stay_exact() -> None:
    p = mcnemar_exact(400, 500)
    expected = Fraction(2 * sum(math.comb(900, i) for i in range(401)), 2**900)
    assert p == float(expected) and 0 < p < 0.01


@pytest.mark.parametrize("bad", [-1, 1.0, True, "3"])
def test_counts_must_be_ints_at_least_zero(bad: object) -> None:
    with pytest.raises(ValueError, match="only_a must be an int >= 0"):
        mcnemar_exact(bad, 1)  # type: ignore[arg-type]


def test_the_two_configurations_pair_into_twenty_one_six_and_three() -> None:
    paired = pair(V1, V2)
    assert (len(paired.both), paired.only_a, len(paired.only_b)) == (20, ("g17",), 6)
    assert paired.neither == ("g08", "g24", "g29")
    assert paired.only_b == ("g03", "g06", "g10", "g12", "g22", "g27") and paired.discordant == 7
    assert paired.p_value() == 0.125
    assert paired.table() == ["         v2 pass  v2 fail", "v1 pass       20        1", "v1 fail        6        3"]


def test_cases_where_both_agree_do_not_move_the_p_value() -> None:
    paired = pair(V1, V2)
    more = Paired("v1", "v2", paired.both + tuple(f"n{i:02d}" for i in range(10)), paired.only_a, paired.only_b,
                  paired.neither)
    assert more.p_value() == paired.p_value()


def test_runs_on_different_cases_are_refused() -> None:
    with pytest.raises(ValueError, match="at position 0, v1 has \\['g01'\\] and v2 has \\['g02'\\]"):
        pair(V1, EvalRun("v2", V2.results[1:]))
    with pytest.raises(ValueError, match="at position 29, v1 has \\['g30'\\] and v2 has \\[\\]"):
        pair(V1, EvalRun("v2", V2.results[:-1]))
    swapped = EvalRun("v2", (V2.results[1], V2.results[0], *V2.results[2:]))
    with pytest.raises(ValueError, match="same order"):
        pair(V1, swapped)
