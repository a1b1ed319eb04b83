"""A circuit breaker for one provider: stop calling it while it keeps failing, and try it again later.

Three states. CLOSED: calls go through, and failures in a row are counted; a success resets the count.
When the count reaches failures_to_open, the breaker OPENs: calls are refused at once, without being
sent, for cool_down_s seconds on the injected clock. The first call after the cool-down turns the
breaker HALF_OPEN and goes through as a trial (a probe): one that succeeds closes the breaker, one
that fails opens it again for another cool-down. While half-open, the breaker admits at most
half_open_probes calls (default 1) and refuses every other call until a probe's result is in; without
that, every caller waiting on a provider that just recovered would rush it at once. allow() and
record() hold a lock, so callers on several threads see one state.
A call that allow() let through and that ends with no verdict on the provider (an exhausted quota, say)
is given back with release(). A result that arrives while the breaker is open, from a call let through
before it opened, changes nothing (LATE).
TRANSITIONS is the whole machine as a table, (state, event) -> next state; the breaker moves only
through it, and history keeps every event with its clock time and the state it led to.
The pattern: Michael Nygard, "Release It!" (2007); Martin Fowler, "CircuitBreaker" (2014),
https://martinfowler.com/bliki/CircuitBreaker.html (read 2026-12-02).
Left out: failure rates over a window, sharing a breaker between processes, and permits that name each call
(results are matched to calls by the breaker's state: a slow call let through while closed that ends
while half-open counts as a probe's result).
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass

from evidencedesk.usage import ManualClock

CLOSED, OPEN, HALF_OPEN = "closed", "open", "half_open"
# events: what the breaker saw
SUCCESS = "success"  # a call succeeded while closed
FAILURE = "failure"  # a call failed while closed, and the failures in a row are still under the threshold
TRIP = "failure_at_threshold"  # a call failed while closed, and the failures in a row reached the threshold
REFUSED = "refused"  # a call was not sent: the breaker is open and cooling down
COOLED = "cool_down_over"  # a call arrived after the cool-down: it goes through as the trial
TRIAL_OK = "trial_success"
TRIAL_FAILED = "trial_failure"
PROBE_BUSY = "probe_in_flight"  # a call was not sent: half-open, and its probes are already out
LATE = "late_result"  # a result came in while open, from a call let through before the breaker opened
TRANSITIONS: dict[tuple[str, str], str] = {
    (CLOSED, SUCCESS): CLOSED,
    (CLOSED, FAILURE): CLOSED,
    (CLOSED, TRIP): OPEN,
    (OPEN, REFUSED): OPEN,
    (OPEN, COOLED): HALF_OPEN,
    (OPEN, LATE): OPEN,
    (HALF_OPEN, PROBE_BUSY): HALF_OPEN,
    (HALF_OPEN, TRIAL_OK): CLOSED,
    (HALF_OPEN, TRIAL_FAILED): OPEN,
}


class BreakerError(RuntimeError):
    """record() or release() without a call that allow() let through. Example: except BreakerError: ..."""


@dataclass(frozen=True)
class Change:
    """One line of a breaker's history: at_s (float, seconds on the clock), event (str), state (str, after it)."""

    at_s: float
    event: str
    state: str


class CircuitBreaker:
    """The circuit breaker of one provider.

    Args: provider (str, for logs); clock (ManualClock); failures_to_open (int >= 1, failures in a row that
    open it); cool_down_s (float, seconds > 0 that it stays open); half_open_probes (int >= 1, calls let
    through while half-open). Ask allow() before each call; report the call's outcome with record(ok), or
    give the call back with release(). `history` holds every Change, in order.
    Raises: ValueError naming failures_to_open, cool_down_s or half_open_probes when out of range.
    Example: breaker = CircuitBreaker("alpha", clock); if breaker.allow(): breaker.record(ok=True)
    """

    def __init__(self, provider: str, clock: ManualClock, failures_to_open: int = 3, cool_down_s: float = 30.0,
                 half_open_probes: int = 1) -> None:
        for name, value in (("failures_to_open", failures_to_open), ("half_open_probes", half_open_probes)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an int >= 1, got {value!r}")
        if isinstance(cool_down_s, bool) or not isinstance(cool_down_s, int | float) or not 0 < cool_down_s < math.inf:
            raise ValueError(f"cool_down_s must be a finite number of seconds > 0, got {cool_down_s!r}")
        self.provider, self.clock = provider, clock
        self.failures_to_open, self.cool_down_s = failures_to_open, float(cool_down_s)
        self.half_open_probes = half_open_probes
        self.in_flight = 0  # calls let through whose result is not in yet
        self.probes = 0  # of those, calls let through while half-open
        self._lock = threading.Lock()
        self.state = CLOSED
        self.failures = 0  # failures in a row while closed
        self.opened_at = 0.0  # clock time of the last move to OPEN
        self.history: list[Change] = []

    def allow(self) -> bool:
        """May a call go to the provider now? Moves OPEN -> HALF_OPEN once the cool-down is over, and lets
        at most half_open_probes calls through while half-open. Example: allow()"""
        with self._lock:
            if self.state == OPEN and self.clock() - self.opened_at >= self.cool_down_s:
                self._move(COOLED)  # this call is the first probe
            elif self.state == OPEN:  # still cooling down: refuse without calling
                self._move(REFUSED)
                return False
            if self.state == HALF_OPEN:
                if self.probes >= self.half_open_probes:  # the probes are out: wait for their result
                    self._move(PROBE_BUSY)
                    return False
                self.probes += 1
            self.in_flight += 1
            return True

    def release(self) -> None:
        """Give back a call that allow() let through, with no verdict on the provider. Example: breaker.release()

        Raises: BreakerError when no call is out.
        """
        with self._lock:
            self._returned()

    def record(self, ok: bool) -> None:
        """Report the outcome of a call that allow() let through: ok (bool, True when it succeeded).

        Raises: BreakerError when no call that allow() let through is out; TypeError when ok is not a bool.
        Example: breaker.record(ok=False)
        """
        if not isinstance(ok, bool):
            raise TypeError(f"ok must be a bool, got {ok!r}")
        with self._lock:
            self._returned()
            self._record(ok)

    def _returned(self) -> None:
        """One call let through is back; raises BreakerError when none was out."""
        if self.in_flight == 0:
            raise BreakerError(f"{self.provider}: no call was let through")
        self.in_flight -= 1
        if self.state == HALF_OPEN and self.probes:
            self.probes -= 1

    def _record(self, ok: bool) -> None:
        """The move for one result (the lock is held)."""
        if self.state == OPEN:
            self._move(LATE)  # let through before the breaker opened: it changes nothing
            return
        if self.state == HALF_OPEN:
            self._move(TRIAL_OK if ok else TRIAL_FAILED)
            self.probes = 0
        elif ok:
            self.failures = 0
            self._move(SUCCESS)
        else:
            self.failures += 1
            self._move(TRIP if self.failures >= self.failures_to_open else FAILURE)
        if self.state != CLOSED:
            self.failures = 0
        if self.state == OPEN:
            self.opened_at = self.clock()

    def _move(self, event: str) -> None:
        """Take the transition for event from TRANSITIONS and note it in history."""
        self.state = TRANSITIONS[self.state, event]
        self.history.append(Change(self.clock(), event, self.state))
