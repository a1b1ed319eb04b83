"""Measuring fairness: max-min fair shares, Jain's index over served/fair share, and tail waits.

Jain's index of x_1..x_n is (sum x)^2 / (n * sum x^2): 1 when all are equal, 1/n when one gets everything,
and k/n when k get equal shares and the rest nothing (R. Jain, D. Chiu, W. Hawe, "A Quantitative Measure of
Fairness and Discrimination for Resource Allocation in Shared Computer Systems", DEC TR-301, 1984,
https://arxiv.org/abs/cs/9809099, read 2026-12-03). Over raw throughput it scores a tenant that asks for
little and gets it all as "unfair" to one that asks for much, so x_i is what tenant i got divided by what it
should have got, found by "any criterion (e.g., max-min optimality)" (R. Jain, A. Durresi, G. Babic,
"Throughput Fairness Index: An Explanation", ATM Forum/99-0045, 1999,
https://www.cse.wustl.edu/~jain/atmf/ftp/atm99-0045.txt, read 2026-12-03). Here "should" is the max-min fair
share of the capacity that was used: every tenant gets its demand or an equal share of what is left,
whichever is smaller (water-filling), so a tenant whose demand is below the equal share is owed all of it. An
index of 1 means every tenant got exactly its fair share; a heavy tenant that takes more than its share pulls
the index down as surely as a light tenant that gets less. Because the shares are of what was used, the index
says nothing of efficiency or of waiting: a design that serves every call late scores 1.
Left out: weights in the fair share (a tenant on a larger plan is owed no more), fairness over time windows,
and the index's blindness to which tenant is short (it is symmetric: read the per-tenant figures too).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction

from evidencedesk.usage import percentile


def _count(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be an int >= 0, got {value!r}")
    return value


def max_min_shares(demands: Mapping[str, int], capacity: int) -> dict[str, Fraction]:
    """Max-min fair shares of capacity (int >= 0, e.g. calls) among demands (tenant -> int >= 0, calls).

    Tenants are served smallest demand first: each gets min(its demand, what is left / tenants left).
    Returns tenant -> Fraction, in the order of demands. Raises ValueError naming a bad value.
    Example: max_min_shares({"a": 2, "b": 10}, 8) -> {"a": Fraction(2), "b": Fraction(6)}
    """
    _count("capacity", capacity)
    for tenant, demand in demands.items():
        _count(f"demand of {tenant!r}", demand)
    left, shares = Fraction(capacity), {}
    ordered = sorted(demands, key=lambda t: demands[t])
    for served, tenant in enumerate(ordered):
        shares[tenant] = min(Fraction(demands[tenant]), left / (len(ordered) - served))
        left -= shares[tenant]
    return {t: shares[t] for t in demands}


def jain_index(values: Iterable[Fraction | int]) -> Fraction:
    """Jain's fairness index (sum x)^2 / (n * sum x^2) of values (each >= 0, not all 0), exactly.

    Raises ValueError when values is empty, holds a negative or all are 0. Example: jain_index([1, 1, 0, 0]) -> 1/2
    """
    xs = [Fraction(v) for v in values]
    if not xs or any(x < 0 for x in xs) or not any(xs):
        raise ValueError("values must be non-negative, not empty and not all zero")
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))


def normalised(served: Mapping[str, int], shares: Mapping[str, Fraction]) -> dict[str, Fraction]:
    """served[t] / shares[t] for every tenant with a share > 0: 1 is exactly fair. Example: {"a": 1, ...}"""
    return {t: Fraction(served.get(t, 0)) / share for t, share in shares.items() if share > 0}


def p95(waits: Sequence[int]) -> int:
    """The 95th percentile (nearest rank, usage.percentile) of waits (ints, seconds). Raises like percentile."""
    return int(percentile(list(waits), 95))
