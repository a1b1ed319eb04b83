"""A circuit breaker for one provider: stop calling it while it keeps failing, and try it again later.

Three states. CLOSED: calls go through, and failures in a row are counted; a success resets the count.
When the count reaches failures_to_open, the breaker OPENs: calls are refused at once, without being
sent, for cool_down_s seconds on the injected clock. The first call after the cool-down turns the
breaker HALF_OPEN and goes through as a trial: one that succeeds closes the breaker, one that fails
opens it again for another cool-down. The kit has one caller at a time, so one trial is out at a
time; a breaker shared by threads must also refuse every other call while its trial is out.
TRANSITIONS is the whole machine as a table, (state, event) -> next state; the breaker moves only
through it, and history keeps every event with its clock time and the state it led to.
The pattern: Michael Nygard, "Release It!" (2007); Martin Fowler, "CircuitBreaker" (2014),
https://martinfowler.com/bliki/CircuitBreaker.html (read 2026-12-02).
Left out: threads (one caller at a time), failure rates over a window, and sharing a breaker between processes.
"""

from __future__ import annotations

import math
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
TRANSITIONS: dict[tuple[str, str], str] = {
    (CLOSED, SUCCESS): CLOSED,
    (CLOSED, FAILURE): CLOSED,
    (CLOSED, TRIP): OPEN,
    (OPEN, REFUSED): OPEN,
    (OPEN, COOLED): HALF_OPEN,
    (HALF_OPEN, TRIAL_OK): CLOSED,
    (HALF_OPEN, TRIAL_FAILED): OPEN,
}


class BreakerError(RuntimeError):
    """record() without a call that allow() let through. Example: except BreakerError: ..."""


@dataclass(frozen=True)
class Change:
    """One line of a breaker's history: at_s (float, seconds on the clock), event (str), state (str, after it)."""

    at_s: float
    event: str
    state: str


class CircuitBreaker:
    """The circuit breaker of one provider.

    Args: provider (str, for logs); clock (ManualClock); failures_to_open (int >= 1, failures in a row that
    open it); cool_down_s (float, seconds > 0 that it stays open). Ask allow() before each call; report
    the call's outcome with record(ok). `history` holds every Change, in order.
    Raises: ValueError naming failures_to_open or cool_down_s when out of range.
    Example: breaker = CircuitBreaker("alpha", clock); if breaker.allow(): breaker.record(ok=True)
    """

    def __init__(self, provider: str, clock: ManualClock, failures_to_open: int = 3, cool_down_s: float = 30.0) -> None:
        if isinstance(failures_to_open, bool) or not isinstance(failures_to_open, int) or failures_to_open < 1:
            raise ValueError(f"failures_to_open must be an int >= 1, got {failures_to_open!r}")
        if isinstance(cool_down_s, bool) or not isinstance(cool_down_s, int | float) or not 0 < cool_down_s < math.inf:
            raise ValueError(f"cool_down_s must be a finite number of seconds > 0, got {cool_down_s!r}")
        self.provider, self.clock = provider, clock
        self.failures_to_open, self.cool_down_s = failures_to_open, float(cool_down_s)
        self.state = CLOSED
        self.failures = 0  # failures in a row while closed
        self.opened_at = 0.0  # clock time of the last move to OPEN
        self.history: list[Change] = []

    def allow(self) -> bool:
        """May a call go to the provider now? Moves OPEN -> HALF_OPEN once the cool-down is over. Example: allow()"""
        if self.state == OPEN and self.clock() - self.opened_at >= self.cool_down_s:
            self._move(COOLED)  # this call is the trial
            return True
        if self.state == OPEN:  # still cooling down: refuse without calling
            self._move(REFUSED)
            return False
        return True  # closed, or half-open: this call is the trial

    def record(self, ok: bool) -> None:
        """Report the outcome of a call that allow() let through: ok (bool, True when it succeeded).

        Raises: BreakerError when the breaker is open (no call was let through); TypeError when ok is not a bool.
        Example: breaker.record(ok=False)
        """
        if not isinstance(ok, bool):
            raise TypeError(f"ok must be a bool, got {ok!r}")
        if self.state == OPEN:
            raise BreakerError(f"{self.provider}: record() while open: no call was let through")
        if self.state == HALF_OPEN:
            self._move(TRIAL_OK if ok else TRIAL_FAILED)
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
