"""A pass rate with a confidence interval: the Wilson score interval, and the Wald interval it replaces.

k passes out of n cases estimates the rate a configuration would reach on many more cases like these.
The interval says how far that rate could be from k/n. wilson() is the score interval of E. B. Wilson,
"Probable Inference, the Law of Succession, and Statistical Inference", JASA 22(158), 1927: the rates p
for which k/n lies within z standard errors of p, with the standard error taken at p itself. wald() is
the textbook k/n +- z * sqrt(p(1-p)/n), standard error taken at k/n, kept here only to be compared: it
has zero width at 0/n and n/n, and Brown, Cai and DasGupta ("Interval Estimation for a Binomial
Proportion", Statistical Science 16(2), 2001) show its coverage is poor and erratic. coverage() computes
exactly how often an interval method covers a true rate, by summing binomial probabilities. Everything
is math from the standard library (statistics.NormalDist for z). What the numbers assume: each case
passes or fails independently, with one fixed probability, and the case set is fixed; they say nothing
about cases unlike these. Left out: other intervals (Clopper-Pearson, Jeffreys, Agresti-Coull),
weighted cases, and one-sided bounds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

CONFIDENCE = 0.95  # the default confidence level: 95% of such intervals should cover the true rate
WILSON, WALD = "wilson", "wald"
MAX_CASES = 1000  # the largest n coverage() sums over: C(n, k) for larger n overflows a float


def z_for(confidence: float) -> float:
    """The two-sided normal quantile for a confidence level: z_for(0.95) -> 1.959963984540054.

    Raises ValueError unless 0 < confidence < 1.
    """
    if isinstance(confidence, bool) or not isinstance(confidence, int | float) or not 0 < confidence < 1:
        raise ValueError(f"confidence must be a number between 0 and 1, got {confidence!r}")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def _counts(passed: int, total: int) -> None:
    for name, value in (("passed", passed), ("total", total)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{name} must be an int (a count of cases), got {value!r}")
    if total < 1 or not 0 <= passed <= total:
        raise ValueError(f"need 0 <= passed <= total and total >= 1, got passed={passed}, total={total}")


@dataclass(frozen=True)
class Rate:
    """A pass rate and its interval: passed, total (int, cases), low, high (rates, 0 to 1), method, confidence.

    str(rate) reads "21/30 = 70.0% [52.1%, 83.3%]". Example: wilson(21, 30).low
    """

    passed: int
    total: int
    low: float
    high: float
    method: str
    confidence: float = CONFIDENCE

    @property
    def value(self) -> float:
        """passed / total (float, 0 to 1)."""
        return self.passed / self.total

    @property
    def half_width(self) -> float:
        """Half the interval's width (float): how far the interval reaches, on average, from its middle."""
        return (self.high - self.low) / 2

    def __str__(self) -> str:
        return f"{self.passed}/{self.total} = {self.value:.1%} [{self.low:.1%}, {self.high:.1%}]"


def score_interval(rate: float, n: int, z: float) -> tuple[float, float]:
    """Wilson's centre and half-width for an observed rate (float, 0 to 1) on n cases, at quantile z.

    centre = (rate + z^2/2n) / (1 + z^2/n); half = z / (1 + z^2/n) * sqrt(rate(1 - rate)/n + z^2/4n^2).
    Example: score_interval(0.7, 30, 1.96)
    """
    shrink = 1 + z * z / n
    centre = (rate + z * z / (2 * n)) / shrink
    half = z / shrink * math.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n))
    return centre, half


def wilson(passed: int, total: int, confidence: float = CONFIDENCE) -> Rate:
    """The Wilson score interval for passed out of total cases.

    Its ends stay inside 0 and 1 without clipping; at 0/n the low end is exactly 0 and at n/n the high
    end exactly 1 (set so, since floating point would leave 1e-17 there). Raises ValueError naming a
    count that is not an int, counts out of order, or a bad confidence.
    Example: str(wilson(26, 30)) -> "26/30 = 86.7% [70.3%, 94.7%]"
    """
    _counts(passed, total)
    centre, half = score_interval(passed / total, total, z_for(confidence))
    low = 0.0 if passed == 0 else max(0.0, centre - half)
    high = 1.0 if passed == total else min(1.0, centre + half)
    return Rate(passed, total, low, high, WILSON, confidence)


def wald(passed: int, total: int, confidence: float = CONFIDENCE) -> Rate:
    """The Wald interval, passed/total +- z * sqrt(p(1 - p)/total), clipped to 0 and 1: shown to be refused.

    Example: wald(0, 10).high -> 0.0 (an interval of zero width after ten failures)
    """
    _counts(passed, total)
    rate = passed / total
    half = z_for(confidence) * math.sqrt(rate * (1 - rate) / total)
    return Rate(passed, total, max(0.0, rate - half), min(1.0, rate + half), WALD, confidence)


def coverage(method: str, rate: float, n: int, confidence: float = CONFIDENCE) -> float:
    """How often the method's interval covers the true rate (float, 0 to 1), exactly, over every k of n cases.

    Sums P(k passes) = C(n, k) rate^k (1 - rate)^(n - k) over the k whose interval holds rate. A 95% method
    should give about 0.95. Args: method (WILSON or WALD); rate (true pass rate, 0 to 1); n (int, cases,
    1 to MAX_CASES). Raises ValueError naming a bad argument.
    Example: round(coverage(WALD, 0.9, 30), 3) -> 0.808
    """
    interval = {WILSON: wilson, WALD: wald}.get(method)
    if interval is None:
        raise ValueError(f"method must be {WILSON!r} or {WALD!r}, got {str(method)[:40]!r}")
    if isinstance(rate, bool) or not isinstance(rate, int | float) or not 0 <= rate <= 1:
        raise ValueError(f"rate must be a number from 0 to 1, got {rate!r}")
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_CASES:
        raise ValueError(f"n must be an int from 1 to {MAX_CASES}, got {n!r}")
    covered = 0.0
    for k in range(n + 1):
        r = interval(k, n, confidence)
        if r.low <= rate <= r.high:
            covered += math.comb(n, k) * rate**k * (1 - rate) ** (n - k)
    return covered
