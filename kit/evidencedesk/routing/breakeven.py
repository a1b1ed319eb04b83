"""What a cascade costs: the break-even escalation rate, in credits and in seconds.

Every request pays for the cheap call and the verifier; an escalated one pays for the expensive call too.
So a cascade that escalates a share e of requests costs, per request, cheap + verify + e * expensive, and
it is cheaper than the expensive model alone while that sum is below expensive: while e is below
1 - (cheap + verify) / expensive. The same sum in seconds gives a second, lower break-even for the mean
latency (an escalated request waits for all three calls one after another), and no escalation rate
above the tail's share keeps a percentile such as p95 as low as the expensive model's. All costs are
means per request; the escalated requests are assumed to cost what the average request costs, which
measure.py checks on the eval set. Left out: calls made in parallel (a speculative expensive call),
which trade credits for seconds.
"""

from __future__ import annotations

from decimal import Decimal


def _amounts(**values: Decimal) -> None:
    for name, value in values.items():
        if not isinstance(value, Decimal) or not value.is_finite() or value < 0:
            raise ValueError(f"{name} must be a finite Decimal >= 0 (credits), got {value!r}")


def cascade_cost(rate: Decimal, cheap: Decimal, verify: Decimal, expensive: Decimal) -> Decimal:
    """Mean credits per request of a cascade that escalates rate (Decimal, 0 to 1) of its requests.

    cheap, verify, expensive: mean credits of one call of each (Decimal). Raises ValueError naming a bad input.
    Example: cascade_cost(Decimal("0.25"), Decimal(1), Decimal(1), Decimal(12)) -> Decimal("5.00")
    """
    _amounts(cheap=cheap, verify=verify, expensive=expensive)
    if not isinstance(rate, Decimal) or not Decimal(0) <= rate <= Decimal(1):
        raise ValueError(f"rate must be a Decimal from 0 to 1, got {rate!r}")
    return cheap + verify + rate * expensive


def break_even(cheap: Decimal, verify: Decimal, expensive: Decimal) -> Decimal:
    """The escalation rate at which a cascade costs what the expensive one does.

    1 - (cheap + verify) / expensive (Decimal credits per call in, a share
    out): below it the cascade is cheaper. Negative when the cheap call and
    the verifier together cost more than the expensive call: none saves.
    Raises ValueError naming a bad input, or when expensive is 0.
    Example: break_even(Decimal(1), Decimal(1), Decimal(12)) -> 0.8333...
    """
    _amounts(cheap=cheap, verify=verify, expensive=expensive)
    if expensive == 0:
        raise ValueError("expensive must be > 0: a free model")
    return 1 - (cheap + verify) / expensive


def latency_break_even(cheap_s: float, verify_s: float, expensive_s: float) -> float:
    """The escalation rate at which the cascade's mean latency equals the expensive model's alone.

    1 - (cheap_s + verify_s) / expensive_s (seconds in, a share out; negative: always slower on average).
    Raises ValueError unless every time is a finite number >= 0 and expensive_s > 0.
    Example: latency_break_even(0.5, 0.3, 2.0) -> 0.6
    """
    for name, value in (("cheap_s", cheap_s), ("verify_s", verify_s), ("expensive_s", expensive_s)):
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < float("inf"):
            raise ValueError(f"{name} must be a finite number of seconds >= 0, got {value!r}")
    if expensive_s == 0:
        raise ValueError("expensive_s must be > 0")
    return 1 - (cheap_s + verify_s) / expensive_s
