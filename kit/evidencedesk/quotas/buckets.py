"""Token buckets on the ManualClock: requests per minute and tokens per minute, and the wait each implies.

A bucket holds up to `capacity` units and refills continuously at `per_minute` units a minute. Taking n units
succeeds when n are there; otherwise nothing is taken and the bucket says how many whole seconds until n will
be there: the Retry-After of a 429. A tenant's `RateLimits` are two buckets, one counting requests (RPM) and
one counting tokens (TPM), and a request must fit both at once: a request refused by one takes nothing from
the other. The token count of a request is what it could use, its input tokens plus its max_tokens, known
before the call. Levels are exact fractions (fractions.Fraction), never floats, so a refill over 59 seconds
and one over 60 give the same answer on every machine and every Python version.
Left out: separate input and output token buckets, adjusting the count after the call to the tokens really
used, cached input, per-day limits and limits per model, which real providers have (see the page).
"""

from __future__ import annotations

import math
from fractions import Fraction

from evidencedesk.usage import ManualClock

SECONDS_PER_MINUTE = 60


class TooLarge(ValueError):
    """A request needs more units than the bucket can ever hold: no wait helps. Attribute: needed (int)."""

    def __init__(self, needed: int, capacity: int) -> None:
        super().__init__(f"needs {needed} units, more than the bucket's capacity of {capacity}; no wait helps")
        self.needed, self.capacity = needed, capacity


def _positive_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return value


class TokenBucket:
    """Up to capacity units, refilled at per_minute units a minute, continuously; starts full.

    Args: per_minute (int > 0, units per minute); clock (ManualClock, seconds); capacity (int > 0, the most
    it holds, the burst; default per_minute). Raises ValueError naming the argument for a bad value.
    Example: TokenBucket(60, ManualClock()).take(1) -> 0
    """

    def __init__(self, per_minute: int, clock: ManualClock, capacity: int | None = None) -> None:
        self.per_minute = _positive_int("per_minute", per_minute)
        self.capacity = _positive_int("capacity", per_minute if capacity is None else capacity)
        self.clock = clock
        self.level = Fraction(self.capacity)  # units in the bucket at self.updated
        self._seen = clock()  # the clock's reading at the last refill
        self.updated = Fraction(self._seen)  # exact: a float's binary value, not a decimal guess

    def available(self) -> Fraction:
        """The units in the bucket now (Fraction), after refilling for the time since the last look."""
        seconds = self.clock()
        if seconds == self._seen:  # no time has passed since the last look: nothing to refill
            return self.level
        now = Fraction(seconds)
        if now < self.updated:
            raise ValueError(f"the clock went back: {float(now)} s < {float(self.updated)} s")
        refill = (now - self.updated) * self.per_minute / SECONDS_PER_MINUTE
        self.level, self.updated = min(Fraction(self.capacity), self.level + refill), now
        self._seen = seconds
        return self.level

    def wait_s(self, units: int) -> int:
        """Whole seconds until `units` (int > 0) are in the bucket; 0: now.

        Raises TooLarge when units > capacity: the bucket never holds them.
        Example: TokenBucket(6, ManualClock()).wait_s(1) -> 0
        """
        _positive_int("units", units)
        if units > self.capacity:
            raise TooLarge(units, self.capacity)
        missing = units - self.available()
        if missing <= 0:
            return 0
        per_second = Fraction(self.per_minute, SECONDS_PER_MINUTE)
        return math.ceil(missing / per_second)  # rounded up: never too early

    def take(self, units: int) -> int:
        """Take units (int > 0) and return 0 if they are there; otherwise
        take nothing and return wait_s(units), the seconds to wait."""
        wait = self.wait_s(units)
        if wait == 0:
            self.level -= units
        return wait


class RateLimits:
    """One tenant's two buckets: rpm (requests per minute) and tpm (tokens per minute), on one clock.

    admit(tokens) takes 1 request and `tokens` tokens together, or nothing. Args: rpm, tpm (int > 0);
    clock (ManualClock); burst_s (int > 0: each bucket holds burst_s seconds' worth; default 60, a minute).
    Example: RateLimits(60, 10_000, clock).admit(1_500) -> 0
    """

    def __init__(self, rpm: int, tpm: int, clock: ManualClock, burst_s: int = SECONDS_PER_MINUTE) -> None:
        _positive_int("burst_s", burst_s)
        self.requests = TokenBucket(rpm, clock, capacity=max(1, rpm * burst_s // SECONDS_PER_MINUTE))
        self.tokens = TokenBucket(tpm, clock, capacity=max(1, tpm * burst_s // SECONDS_PER_MINUTE))

    def wait_s(self, tokens: int) -> int:
        """Seconds until one request of `tokens` tokens fits both buckets (0: now). Raises TooLarge."""
        return max(self.requests.wait_s(1), self.tokens.wait_s(tokens))

    def admit(self, tokens: int) -> int:
        """Take 1 request and `tokens` tokens and return 0, or take nothing and return the wait in seconds."""
        wait = self.wait_s(tokens)
        if wait == 0:
            self.requests.take(1)
            self.tokens.take(tokens)
        return wait
