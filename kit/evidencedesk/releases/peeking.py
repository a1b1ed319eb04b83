"""Why a canary's guard is checked on a schedule: each look is one more chance of a false alarm.

false_alarm() computes exactly, with no simulation, the chance that the guard of canary.py trips at
least once when the candidate is exactly as good as production: its failures are Binomial(n, p) with
the control's own rate p. It walks the distribution of the failure count forward one request at a time
and, at each look, removes the mass where the guard would trip. With one look the chance is what one
Wilson interval promises (about 2.5% above, since the interval is two-sided 95%; not exactly, since
Wilson's interval is an approximation and counts are whole numbers); with a look after every few
requests it grows, because each look is one more chance to trip. Successive looks share most of their
requests, so the chance grows far more slowly than the number of looks, but it keeps growing with
more looks (P. Armitage, C. K. McPherson and B. C. Rowe, "Repeated significance tests on accumulating
data", J. R. Stat. Soc. A 132 (1969), the classic computation). Sequential tests designed for repeated looks (always
valid p-values and confidence sequences, Johari, Pekelis and Walsh, arXiv:1512.04922) keep the chance
fixed; the kit's answer is simpler: few, scheduled looks, and a min_sample. Left out: power under a
real regression, and the sequential tests themselves.
"""

from __future__ import annotations

from collections.abc import Sequence

from evidencedesk.evals.stats import wilson


def first_tripping(n: int, threshold: float) -> int | None:
    """The fewest failures out of n whose Wilson low end is above threshold (None if even n fails do not).

    The low end grows with the failures, so a halving search finds it. Example: first_tripping(100, 0.09)
    """
    if wilson(n, n).low <= threshold:
        return None
    low, high = -1, n  # wilson(low).low <= threshold < wilson(high).low, with -1 standing for "none"
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if wilson(middle, n).low <= threshold else (low, middle)
    return high


def false_alarm(rate: float, threshold: float, looks: Sequence[int], min_sample: int = 1) -> float:
    """The exact chance that a guard checked after each number of requests in looks ever trips, when every
    request fails independently with probability rate.

    Args: rate (float, 0 to 1, the candidate's true failure rate); threshold (float, control rate +
    tolerance); looks (increasing ints, canary requests seen at each check); min_sample (int, looks
    below it do not count). Raises ValueError for looks not increasing from 1.
    Example: false_alarm(0.09, 0.09, [400]) -> one look; false_alarm(0.09, 0.09, range(10, 401, 10))
    """
    looks = list(looks)
    if not looks or looks[0] < 1 or any(b <= a for a, b in zip(looks, looks[1:])):
        raise ValueError("looks must be increasing counts of requests, from 1")
    if not 0 <= rate <= 1:
        raise ValueError(f"rate must be from 0 to 1, got {rate!r}")
    mass = [1.0]  # mass[k]: chance of k failures so far, and no trip yet
    seen, alarmed = 0, 0.0
    for look in looks:
        for _ in range(look - seen):  # one more request, failing with rate
            passes, fails = [*mass, 0.0], [0.0, *mass]
            mass = [p * (1 - rate) + f * rate for p, f in zip(passes, fails)]
        seen = look
        k = first_tripping(look, threshold) if look >= min_sample else None
        if k is not None:  # the guard trips at k failures or more
            alarmed += sum(mass[k:])
            mass = mass[:k] + [0.0] * (len(mass) - k)
    return alarmed
