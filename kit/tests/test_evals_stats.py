"""Tests of evidencedesk.evals.stats: the Wilson interval against values checked by hand, and exact coverage."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from evidencedesk.evals.stats import WALD, WILSON, Rate, coverage, wald, wilson, z_for

Z = 1.959963984540054  # the 0.975 quantile of the standard normal distribution


def test_z_is_the_two_sided_normal_quantile() -> None:
    assert z_for(0.95) == pytest.approx(Z, abs=1e-15)
    assert z_for(0.90) == pytest.approx(1.6448536269514722, abs=1e-12)
    for bad in (0, 1, 1.5, -0.1, True, "0.95"):
        with pytest.raises(ValueError, match="confidence must be a number between 0 and 1"):
            z_for(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("n", [1, 10, 30, 100])
def test_the_ends_at_zero_and_at_all_have_closed_forms(n: int) -> None:
    none, every = wilson(0, n), wilson(n, n)
    assert (none.low, every.high) == (0.0, 1.0)  # exactly, not 1e-17
    assert none.high == pytest.approx(Z * Z / (n + Z * Z), abs=1e-12)  # solve the score equation at 0/n by hand
    assert every.low == pytest.approx(n / (n + Z * Z), abs=1e-12)


@pytest.mark.parametrize("n", [2, 10, 30, 1000])
def test_half_passing_is_centred_at_one_half(n: int) -> None:
    rate = wilson(n // 2, n)
    assert (rate.low + rate.high) / 2 == pytest.approx(0.5, abs=1e-12)
    assert rate.half_width == pytest.approx(Z / (2 * math.sqrt(n + Z * Z)), abs=1e-12)


@pytest.mark.parametrize("k, n", [(1, 10), (7, 10), (21, 30), (26, 30), (81, 263), (999, 1000)])
def test_each_end_solves_wilsons_score_equation(k: int, n: int) -> None:
    # Wilson (1927): the interval holds the p for which (k/n - p)^2 <= z^2 p (1 - p) / n; its ends are equalities.
    rate = wilson(k, n)
    for p in (rate.low, rate.high):
        assert (k / n - p) ** 2 == pytest.approx(Z * Z * p * (1 - p) / n, rel=1e-9)
    assert rate.low < k / n < rate.high


def test_the_page_figures() -> None:
    assert str(wilson(21, 30)) == "21/30 = 70.0% [52.1%, 83.3%]"
    assert str(wilson(26, 30)) == "26/30 = 86.7% [70.3%, 94.7%]"
    assert round(wilson(30, 30).low, 4) == 0.8865
    assert wilson(7, 10).high > wilson(9, 10).low  # ten tickets: 7 and 9 right overlap


def test_wilson_is_symmetric_and_narrows_with_more_cases() -> None:
    for k, n in ((3, 10), (21, 30), (0, 5)):
        assert wilson(k, n).low == pytest.approx(1 - wilson(n - k, n).high, abs=1e-12)
    widths = [wilson(7 * m, 10 * m).half_width for m in (1, 3, 10, 100)]
    assert widths == sorted(widths, reverse=True)


def test_wald_collapses_at_the_ends_and_leaves_the_scale() -> None:
    assert (wald(0, 10).low, wald(0, 10).high) == (0.0, 0.0)
    assert (wald(10, 10).low, wald(10, 10).high) == (1.0, 1.0)
    assert wald(1, 10).low == 0.0  # clipped: 0.1 - 0.186 is below zero
    assert wald(21, 30).value == wilson(21, 30).value and wald(21, 30).method == WALD


def exact_coverage(interval, p: Fraction, n: int) -> Fraction:  # type: ignore[no-untyped-def]
    """The same sum in exact fractions, written independently of the kit's loop."""
    return sum((math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)
                if interval(k, n).low <= p <= interval(k, n).high), Fraction(0))


@pytest.mark.parametrize("p, n", [(Fraction(9, 10), 30), (Fraction(4, 5), 30), (Fraction(1, 2), 10),
                                  (Fraction(19, 20), 100)])
def test_coverage_is_the_exact_binomial_sum(p: Fraction, n: int) -> None:
    for method, interval in ((WILSON, wilson), (WALD, wald)):
        assert coverage(method, float(p), n) == pytest.approx(float(exact_coverage(interval, p, n)), abs=1e-12)


def test_wald_covers_far_less_than_it_claims_near_the_top_and_wilson_does_not() -> None:
    assert round(coverage(WALD, 0.9, 30), 4) == 0.8085
    assert round(coverage(WILSON, 0.9, 30), 4) == 0.9742
    assert coverage(WALD, 0.95, 100) < 0.9 < coverage(WILSON, 0.95, 100)
    assert coverage(WILSON, 0.0, 10) == 1.0 and coverage(WALD, 0.0, 10) == 1.0  # 0 passes: [0, 0] holds 0


@pytest.mark.parametrize("call, message", [
    (lambda: wilson(31, 30), "0 <= passed <= total"),
    (lambda: wilson(-1, 30), "0 <= passed <= total"),
    (lambda: wilson(0, 0), "total >= 1"),
    (lambda: wilson(2.0, 30), "passed must be an int"),
    (lambda: wilson(True, 30), "passed must be an int"),
    (lambda: wald(1, "30"), "total must be an int"),
    (lambda: coverage("exact", 0.5, 10), "method must be"),
    (lambda: coverage(WILSON, 1.5, 10), "rate must be a number from 0 to 1"),
    (lambda: coverage(WILSON, 0.5, 1001), "n must be an int from 1 to 1000"),
])
def test_bad_arguments_are_named(call, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=message):
        call()


def test_a_rate_reads_as_a_line() -> None:
    rate = Rate(3, 4, 0.25, 0.95, WILSON)
    assert (str(rate), rate.value, rate.half_width) == ("3/4 = 75.0% [25.0%, 95.0%]", 0.75, 0.35)
