"""The cost-quality frontier: which configurations no other one beats on both cost and pass rate.

A configuration dominates another when it costs no more and passes at least as many cases of the same eval
set, and is strictly better on one of the two. The Pareto frontier is the set that nothing dominates:
every configuration off it can be replaced by one on it that is cheaper, better, or both. pareto() works on
point estimates, the observed cost and passes; whether a difference of a few cases is real is a question for
page 8's paired test, not for this module. Left out: latency as a third axis, and intervals on cost.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True)
class Point:
    """One configuration: name (str); passed, total (int, cases); cost (Decimal, credits per request).

    Example: Point("cheap", 238, 300, Decimal("0.000122"))
    """

    name: str
    passed: int
    total: int
    cost: Decimal


def dominates(a: Point, b: Point) -> bool:
    """True when a costs no more than b, passes no fewer cases, and is
    strictly better on one of the two.

    Raises ValueError when the two were measured on different case counts.
    Example: dominates(Point("a", 9, 10, Decimal(1)),
                       Point("b", 8, 10, Decimal(2))) -> True
    """
    if a.total != b.total:
        raise ValueError(f"{a.name} and {b.name} must be measured on the same "
                         f"cases ({a.total} != {b.total})")
    no_worse = a.cost <= b.cost and a.passed >= b.passed
    return no_worse and (a.cost < b.cost or a.passed > b.passed)


def pareto(points: list[Point]) -> list[Point]:
    """The points no other point dominates, cheapest first (ties by name).

    Raises ValueError when two points share a name, or (from dominates)
    mix case counts. Example: [p.name for p in pareto(points)]
    """
    names = [p.name for p in points]
    if len(set(names)) != len(names):
        raise ValueError(f"each point needs its own name, got {names}")
    kept = [p for p in points
            if not any(dominates(q, p) for q in points if q is not p)]
    return sorted(kept, key=lambda p: (p.cost, p.name))
