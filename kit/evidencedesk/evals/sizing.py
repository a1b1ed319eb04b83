"""How many cases a difference needs before it means anything, computed rather than guessed.

cases_needed(rate, difference): the smallest n at which the Wilson interval around a pass rate has a
half-width below the difference. With fewer cases, one configuration's own interval is wider than the
change you hope to detect. cases_to_compare(rate_a, rate_b, discordant): the n at which an observed
difference d = rate_b - rate_a would just reach the confidence level, in two analyses of it. Compared as
two separate pass rates (independent samples), d has a variance per case of rate_a(1 - rate_a) +
rate_b(1 - rate_b). Compared case by case on the same cases (paired), each case's difference is +1, 0 or
-1, so its variance is discordant - d^2, where discordant is the share of cases on which the two
disagree: usually far smaller. Both use the normal approximation (z * sqrt(variance / n) < |d|), which
is for planning, not for reporting a result. Planned this way, a true difference of d reaches the level
only about half the time; power_factor() says how many times more cases a higher chance needs. The
paired variance discordant - d^2 is the one an interval for the difference uses; McNemar's statistic
divides by discordant itself, which asks for a few more cases. Where the plan expects only a handful of
discordant cases, the approximation fails: the exact test needs at least six, all one way, to reach
0.05. Left out: exact power of the McNemar test, unequal case counts, and effects that vary by tag.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

from evidencedesk.evals.stats import CONFIDENCE, score_interval, z_for

MAX_CASES = 10_000_000  # cases_needed gives up beyond this many cases: the difference is too small to plan for


def _share(value: float, name: str, low: float = 0.0, high: float = 1.0, open_low: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{name} must be a number, got {value!r}")
    if value < low or value > high or (open_low and value == low):
        raise ValueError(f"{name} must be {'above' if open_low else 'at least'} {low} and at most {high}, got {value}")
    return float(value)


def cases_needed(rate: float, difference: float, confidence: float = CONFIDENCE) -> int:
    """The smallest n whose Wilson interval around rate (the share of cases passing) has half-width < difference.

    Args: rate (0 to 1); difference (above 0, at most 1; a share, 0.05 = 5 points); confidence (0 to 1).
    The half-width falls as n grows, so the search halves an interval. Raises ValueError naming a bad
    argument, or when more than MAX_CASES cases would be needed.
    Example: cases_needed(0.8, 0.05) -> 245
    """
    rate, difference = _share(rate, "rate"), _share(difference, "difference", open_low=True)
    z = z_for(confidence)

    def narrow(n: int) -> bool:
        return score_interval(rate, n, z)[1] < difference

    high = 1
    while not narrow(high):
        high *= 2
        if high > MAX_CASES:
            raise ValueError(f"a difference of {difference} needs more than {MAX_CASES} cases")
    low = high // 2  # narrow(low) is false (or low is 0)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if narrow(middle) else (middle, high)
    return high


@dataclass(frozen=True)
class CasesToCompare:
    """Cases needed to see a difference: independent (two separate pass rates) and paired (the same cases).

    Example: cases_to_compare(0.80, 0.85, 0.05).paired -> 73
    """

    independent: int
    paired: int


def _smallest(variance: float, difference: float, z: float) -> int:
    """The smallest n with z * sqrt(variance / n) < |difference|: the closed form, then checked both ways."""
    n = max(1, math.floor(z * z * variance / difference**2) + 1)
    while n > 1 and z * math.sqrt(variance / (n - 1)) < abs(difference):
        n -= 1
    while z * math.sqrt(variance / n) >= abs(difference):
        n += 1
    return n


def cases_to_compare(rate_a: float, rate_b: float, discordant: float,
                     confidence: float = CONFIDENCE) -> CasesToCompare:
    """Cases at which a difference rate_b - rate_a would just reach the confidence level, unpaired and paired.

    Args: rate_a, rate_b (pass rates, 0 to 1, not equal); discordant (the share of cases on which the two
    configurations disagree: it must be at least |rate_b - rate_a|, and small enough that each cell of the
    2x2 table stays a share between 0 and 1); confidence (0 to 1). Returns CasesToCompare.
    Raises ValueError naming a bad argument.
    Example: cases_to_compare(0.80, 0.85, 0.10) -> CasesToCompare(independent=442, paired=150)
    """
    a, b = _share(rate_a, "rate_a"), _share(rate_b, "rate_b")
    r = _share(discordant, "discordant")
    d = round(b - a, 12)  # 0.85 - 0.80 is 0.04999999999999993 in floating point
    if d == 0:
        raise ValueError("rate_a and rate_b must differ: there is no difference to detect")
    only_a, only_b = (r - d) / 2, (r + d) / 2  # shares of cases that only A passes, only B passes
    if only_a < 0 or only_a > min(a, 1 - b) + 1e-12 or only_b > min(b, 1 - a) + 1e-12:
        most = round(min(2 * min(a, 1 - b) + d, 2 * min(b, 1 - a) - d), 12)
        raise ValueError(f"discordant must be from {abs(d)} to {most} for rates {a} and {b}, got {r}")
    z = z_for(confidence)
    return CasesToCompare(_smallest(a * (1 - a) + b * (1 - b), d, z), _smallest(r - d * d, d, z))


def power_factor(power: float, confidence: float = CONFIDENCE) -> float:
    """How many times the cases above a planned comparison needs to find a true difference with this power.

    ((z_for(confidence) + z_power) / z_for(confidence))^2, with z_power the normal quantile at power (0.5 to
    1, open at 1): 1.0 at power 0.5, where the plans above sit. Normal approximation, variance held fixed.
    Raises ValueError naming a bad argument.
    Example: round(power_factor(0.8), 2) -> 2.04
    """
    power = _share(power, "power", 0.5, 1.0)
    if power == 1.0:
        raise ValueError("power must be below 1: certainty needs infinitely many cases")
    z = z_for(confidence)
    return ((z + NormalDist().inv_cdf(power)) / z) ** 2
