"""Many comparisons at once: Holm's step-down correction (and Bonferroni's), so that testing more does not
find more by chance.

One test at the 0.05 level finds a difference that is not there one time in twenty. Test five slices, or
five configurations against a baseline, and the chance that at least one of them looks significant when
nothing differs grows towards 1 - 0.95^5, about 23% (less when the tests are correlated, never more than
5 x 5%). A correction keeps that chance, the family-wise error rate, at the level you chose. Bonferroni
multiplies every p-value by the number of tests m. Holm sorts the p-values from smallest to largest and
multiplies the i-th smallest by m - i + 1 (m, m - 1, ..., 1), keeping the adjusted values in order; it
rejects everything Bonferroni rejects and sometimes more, under the same guarantee and with no assumption
about how the tests depend on each other. Source: S. Holm, "A simple sequentially rejective multiple test
procedure", Scandinavian Journal of Statistics 6(2), 65-70, 1979. Left out: procedures that control the
false discovery rate instead (Benjamini-Hochberg), and corrections that use the tests' correlation.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from evidencedesk.evals.paired import ALPHA


@dataclass(frozen=True)
class Adjusted:
    """One test after the correction: name (str), p (float, as given), adjusted (float, the corrected
    p-value, at most 1) and rejected (bool: adjusted <= alpha).

    Example: holm({"a": 0.01, "b": 0.04})[0] -> Adjusted("a", 0.01, 0.02, True)
    """

    name: str
    p: float
    adjusted: float
    rejected: bool


def _checked(p_values: Mapping[str, float], alpha: float) -> list[tuple[str, float]]:
    if not p_values:
        raise ValueError("p_values must hold at least one test (name -> p-value)")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise ValueError(f"alpha must be a number between 0 and 1, got {alpha!r}")
    for name, p in p_values.items():
        if isinstance(p, bool) or not isinstance(p, (int, float)) or math.isnan(p) or not 0 <= p <= 1:
            raise ValueError(f"p_values[{name!r}] must be a probability from 0 to 1, got {p!r}")
    return [(name, float(p)) for name, p in p_values.items()]


def holm(p_values: Mapping[str, float], alpha: float = ALPHA) -> tuple[Adjusted, ...]:
    """Holm's step-down adjusted p-values, one per test, in the order given.

    Args: p_values (name (str) -> p-value (float, 0 to 1), at least one); alpha (float, the family-wise
    level, default 0.05). Returns a tuple of Adjusted. Ties in p keep their given order.
    Raises ValueError for no test, a p-value outside 0 to 1 (or NaN), or alpha outside (0, 1).
    Example: [a.adjusted for a in holm({"x": 0.01, "y": 0.03, "z": 0.04})] -> [0.03, 0.06, 0.06]
    """
    tests = _checked(p_values, alpha)
    m = len(tests)
    order = sorted(range(m), key=lambda i: tests[i][1])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):  # rank 0 is the smallest p-value, multiplied by m
        running = max(running, min(1.0, (m - rank) * tests[i][1]))
        adjusted[i] = running
    return tuple(Adjusted(name, p, adj, adj <= alpha) for (name, p), adj in zip(tests, adjusted, strict=True))


def bonferroni(p_values: Mapping[str, float], alpha: float = ALPHA) -> tuple[Adjusted, ...]:
    """Bonferroni's adjusted p-values: each p times the number of tests, at most 1, in the order given.

    Args and errors as holm. Example: [a.adjusted for a in bonferroni({"x": 0.01, "y": 0.03})] -> [0.02, 0.06]
    """
    tests = _checked(p_values, alpha)
    m = len(tests)
    return tuple(Adjusted(name, p, min(1.0, m * p), min(1.0, m * p) <= alpha) for name, p in tests)
