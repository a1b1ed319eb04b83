"""Tests of evidencedesk.evals.sizing: the smallest n, checked against its definition on both sides."""

from __future__ import annotations

import math

import pytest

from evidencedesk.evals.sizing import CasesToCompare, cases_needed, cases_to_compare, power_factor
from evidencedesk.evals.stats import score_interval, z_for

Z = z_for(0.95)


@pytest.mark.parametrize("rate", [0.0, 0.5, 0.7, 0.8, 0.9, 0.95, 1.0])
@pytest.mark.parametrize("difference", [0.3, 0.1, 0.05, 0.02])
def test_cases_needed_is_the_first_n_whose_half_width_is_below_the_difference(rate: float, difference: float) -> None:
    n = cases_needed(rate, difference)
    assert score_interval(rate, n, Z)[1] < difference
    assert n == 1 or score_interval(rate, n - 1, Z)[1] >= difference


def test_cases_needed_matches_a_plain_scan_for_small_n() -> None:
    for rate in (0.6, 0.85):
        for difference in (0.2, 0.15, 0.1):
            scan = next(n for n in range(1, 10_000) if score_interval(rate, n, Z)[1] < difference)
            assert cases_needed(rate, difference) == scan


def test_the_page_figures() -> None:
    assert [cases_needed(0.8, d) for d in (0.10, 0.05, 0.02)] == [60, 245, 1535]
    assert cases_to_compare(0.80, 0.85, 0.10) == CasesToCompare(independent=442, paired=150)
    assert cases_needed(0.9, 0.05) < cases_needed(0.7, 0.05)  # rates near 1 vary less


def test_pairing_helps_exactly_as_far_as_the_two_agree() -> None:
    a, b = 0.80, 0.85
    chance = a * (1 - b) + b * (1 - a)  # how often two independent configurations would disagree: 0.29
    same = cases_to_compare(a, b, chance)
    assert same.paired == same.independent
    assert cases_to_compare(a, b, 0.05).paired < cases_to_compare(a, b, 0.20).paired < same.independent
    assert cases_to_compare(a, b, 0.30).paired > same.independent  # more disagreement than chance: pairing costs


@pytest.mark.parametrize("a, b, r", [(0.80, 0.85, 0.05), (0.80, 0.85, 0.2), (0.5, 0.6, 0.5), (0.9, 0.8, 0.15)])
def test_cases_to_compare_is_the_first_n_below_the_difference_in_both_analyses(a: float, b: float, r: float) -> None:
    d = b - a
    got = cases_to_compare(a, b, r)
    for n, variance in ((got.independent, a * (1 - a) + b * (1 - b)), (got.paired, r - d * d)):
        assert Z * math.sqrt(variance / n) < abs(d) <= Z * math.sqrt(variance / (n - 1))


@pytest.mark.parametrize("call, message", [
    (lambda: cases_needed(1.2, 0.05), "rate must be at least 0.0 and at most 1.0"),
    (lambda: cases_needed(0.8, 0), "difference must be above 0.0"),
    (lambda: cases_needed(0.8, float("nan")), "difference must be a number"),
    (lambda: cases_needed(0.5, 0.0001), "needs more than 10000000 cases"),
    (lambda: cases_to_compare(0.8, 0.8, 0.1), "must differ"),
    (lambda: cases_to_compare(0.80, 0.85, 0.04), "discordant must be from 0.05"),
    (lambda: cases_to_compare(0.80, 0.85, 0.5), "discordant must be from 0.05 to 0.35"),
    (lambda: power_factor(0.4), "power must be at least 0.5"),
    (lambda: power_factor(1.0), "power must be below 1"),
])
def test_bad_arguments_are_named(call, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=message):
        call()


def test_power_factor() -> None:
    assert power_factor(0.5) == 1.0
    assert round(power_factor(0.8), 2) == 2.04 and round(power_factor(0.9), 2) == 2.74
