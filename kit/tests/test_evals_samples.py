"""Tests of evidencedesk.evals.samples: several samples per case, the clustered standard error against values
worked out by hand and against its closed form where every case always passes or always fails."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evidencedesk.evals.samples import one_sample_spread, sampled


def test_worked_out_by_hand() -> None:
    # shares 0.5 and 1.0: rate 0.75; spread ((0.25)^2 + (0.25)^2) / 1 = 0.125; se over cases sqrt(0.125 / 2) = 0.25.
    # over all 8 draws as if independent: sqrt(0.75 * 0.25 / 8) = 0.1531.
    found = sampled({"a": [True, True, False, False], "b": [True, True, True, True]})
    assert (found.cases, found.draws, found.rate) == (2, 8, 0.75)
    assert math.isclose(found.se_cases, 0.25) and math.isclose(found.se_draws, math.sqrt(0.75 * 0.25 / 8))
    assert math.isclose(found.design_effect, 0.0625 / (0.75 * 0.25 / 8))


def test_the_rate_is_the_mean_of_the_case_shares_even_with_unequal_samples() -> None:
    found = sampled({"a": [True], "b": [False, False, False, True]})
    assert found.rate == (1.0 + 0.25) / 2 and found.draws == 5


@settings(max_examples=200, derandomize=True)
@given(st.lists(st.booleans(), min_size=2, max_size=40), st.integers(min_value=1, max_value=8))
def test_cases_that_always_pass_or_always_fail_count_once_each(outcomes: list[bool], k: int) -> None:
    # Each case gives the same verdict on all k samples, so the k samples carry one case's worth of information:
    # se_cases^2 = p(1 - p) / (n - 1) and se_draws^2 = p(1 - p) / (n k), a ratio of n k / (n - 1).
    found = sampled({f"c{i}": [passed] * k for i, passed in enumerate(outcomes)})
    n, p = len(outcomes), sum(outcomes) / len(outcomes)
    assert math.isclose(found.se_cases ** 2, p * (1 - p) / (n - 1), abs_tol=1e-12)
    if 0 < p < 1:
        assert math.isclose(found.design_effect, n * k / (n - 1))
    assert one_sample_spread({f"c{i}": [passed] * k for i, passed in enumerate(outcomes)}) == 0.0


def test_the_spread_of_one_sample_per_case() -> None:
    # each half-passing case adds 0.25 to the variance of a one-sample run's count; an always-passing case nothing
    assert one_sample_spread({"a": [True, False], "b": [True, True]}) == 0.5
    assert one_sample_spread({"a": [True, False], "b": [False, True], "c": [True, False], "d": [True, False]}) == 1.0


def test_no_spread_at_all_has_a_design_effect_of_one() -> None:
    found = sampled({"a": [True, True], "b": [True, True]})
    assert (found.se_cases, found.se_draws, found.design_effect) == (0.0, 0.0, 1.0)


@pytest.mark.parametrize("samples, message", [
    ({"a": [True]}, "at least two cases"),
    ({"a": [True], "b": []}, "case 'b' has no sample"),
    ({"a": [True], "b": [1]}, "case 'b': every sample must be a bool"),
])
def test_bad_input_is_named(samples: dict, message: str) -> None:
    for measure in (sampled, one_sample_spread):
        with pytest.raises(ValueError, match=message):
            measure(samples)
