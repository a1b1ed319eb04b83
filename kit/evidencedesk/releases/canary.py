"""A canary: a small, fixed share of live traffic on the candidate, a guard metric, and automatic rollback.

in_canary() splits traffic by a hash of the user id and a salt, never at random: the same user is on
the same side for the whole canary (one person does not flip between versions from one message to the
next), the split is the same on every machine and every rerun, and a new salt per release puts other
users in the next canary. Guard is the metric that decides: here the share of requests whose trajectory
fails its check. It trips when at least min_sample canary requests have been seen and the canary's
failure rate is worse than the control's (the other requests, same window) by more than tolerance,
with the canary's Wilson interval (page 8) entirely above control + tolerance. The control's rate is
taken as exact, since it has far more requests; a simplification. run_canary() plays a request stream
on a ManualClock, checks the guard every check_every_s seconds (never after every request: see
peeking.py) and once more when the window ends, rolls the "canary" label back the moment it trips, and
promotes the candidate to "production" only if the window ends without a trip after at least min_sample
canary requests; a canary that never reached its minimum sample is UNDECIDED, rolled back and not
promoted, since a guard that could not decide has not passed anything. The interval counts requests as
independent, though the split is by user and one user's requests may fail together; the kit's failures
depend on the request alone, so it cannot show that. Left out: ramping the share up in steps, several
guard metrics at once, and latency or cost guards.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from evidencedesk.evals.stats import Rate, wilson
from evidencedesk.releases.prompts import PromptRegistry
from evidencedesk.usage import ManualClock

BUCKETS = 10_000  # a user lands in one of these; a share of 5% is buckets 0 to 499
PROMOTED, ROLLED_BACK, UNDECIDED = "PROMOTED", "ROLLED BACK", "UNDECIDED"


def bucket(user_id: str, salt: str) -> int:
    """The user's bucket, 0 to BUCKETS - 1: SHA-256 of "salt:user_id", first 8 bytes as an integer, mod BUCKETS.

    Raises ValueError for an empty user id or salt. Example: bucket("u0001", "rel-1")
    """
    if not isinstance(user_id, str) or not user_id or not isinstance(salt, str) or not salt:
        raise ValueError("user_id and salt must be non-empty strings")
    digest = hashlib.sha256(f"{salt}:{user_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % BUCKETS


def in_canary(user_id: str, share: float, salt: str) -> bool:
    """Whether the user's requests go to the candidate: bucket < share * BUCKETS. share (float, 0 to 1).

    Raises ValueError for a share outside 0 to 1. Example: in_canary("u0001", 0.05, "rel-1")
    """
    if isinstance(share, bool) or not isinstance(share, int | float) or not 0 <= share <= 1:
        raise ValueError(f"share must be a number from 0 to 1, got {share!r}")
    return bucket(user_id, salt) < round(share * BUCKETS)


@dataclass(frozen=True)
class Guard:
    """The guard metric's rule: name (str), tolerance (float, how much worse than control is allowed, as a
    share), min_sample (int, canary requests before the guard may trip), check_every_s (float, seconds
    between checks). Example: Guard("failed checks", 0.02, 100, 600.0).trips(30, 120, 0.09)
    """

    name: str
    tolerance: float
    min_sample: int
    check_every_s: float

    def __post_init__(self) -> None:
        if not 0 <= self.tolerance < 1 or self.min_sample < 1 or self.check_every_s <= 0:
            raise ValueError("need 0 <= tolerance < 1, min_sample >= 1 and check_every_s > 0")

    def trips(self, failures: int, n: int, control: float) -> bool:
        """Whether failures out of n canary requests are clearly worse than
        the control's rate (float) plus tolerance: n >= min_sample and the
        Wilson interval's low end above it."""
        if n < self.min_sample:
            return False
        return wilson(failures, n).low > control + self.tolerance


@dataclass(frozen=True)
class Request:
    """One live request: at (float, seconds on the clock), user (str), case_id (str, which request it is)."""

    at: float
    user: str
    case_id: str


def traffic(case_ids: Sequence[str], count: int, every_s: float, users: int) -> list[Request]:
    """A deterministic request stream: request i at i * every_s seconds, from user i * 7919 % users, asking
    case i * 13 % len(case_ids). Strides, not randomness, so every run is the same. Example: traffic(ids, 10, 2.0, 500)
    """
    if count < 0 or every_s <= 0 or users < 1 or not case_ids:
        raise ValueError("need count >= 0, every_s > 0, users >= 1 and at least one case id")
    return [Request(i * every_s, f"u{i * 7919 % users:05d}", case_ids[i * 13 % len(case_ids)]) for i in range(count)]


@dataclass(frozen=True)
class CanaryResult:
    """outcome (PROMOTED, ROLLED_BACK or UNDECIDED), at (float, seconds when decided), candidate and
    control (Rate of FAILED checks on each side, so Rate.passed counts failures; None for a side that had
    no request), checks (lines, one per guard check), label (the id "canary" points at afterwards)."""

    outcome: str
    at: float
    candidate: Rate | None
    control: Rate | None
    checks: tuple[str, ...]
    label: str


def run_canary(requests: Sequence[Request], failed: Callable[[str, bool], bool], share: float, salt: str,
               guard: Guard, registry: PromptRegistry, clock: ManualClock) -> CanaryResult:
    """Play requests on clock: each goes to the candidate when in_canary(user), else to production.

    failed(case_id, on_candidate) says whether that request's check failed. The guard is checked every
    guard.check_every_s seconds and once more after the last request; when it trips, the "canary" label
    is rolled back (ROLLED_BACK). If it never trips and the candidate saw at least guard.min_sample
    requests, "production" is pointed at the candidate (PROMOTED); with fewer, the "canary" label is
    rolled back and production is left as it was (UNDECIDED). The registry must hold "production" and
    "canary" labels. Example: run_canary(reqs, f, 0.05, "r1", g, reg, clock).outcome
    """
    counts = {True: [0, 0], False: [0, 0]}  # on candidate -> [failures, requests]
    checks: list[str] = []

    def rates() -> tuple[Rate | None, Rate | None]:
        return tuple(wilson(f, n) if n else None for f, n in (counts[True], counts[False]))

    def check(note: str = "") -> bool:
        (cf, cn), (of, on) = counts[True], counts[False]
        control = of / on if on else 0.0
        tripped = guard.trips(cf, cn, control)
        checks.append(f"t={clock():>6.0f}s canary {wilson(cf, cn)} control {control:.1%}"
                      f"{' TRIPPED' if tripped else note}")
        return tripped

    next_check = clock() + guard.check_every_s
    for request in requests:
        clock.advance(max(0.0, request.at - clock()))
        if clock() >= next_check and counts[True][1]:
            next_check += guard.check_every_s * (1 + (clock() - next_check) // guard.check_every_s)
            if check():
                registry.rollback("canary")
                return CanaryResult(ROLLED_BACK, clock(), *rates(), tuple(checks), registry.current("canary"))
        side = in_canary(request.user, share, salt)
        counts[side][0] += failed(request.case_id, side)
        counts[side][1] += 1
    if counts[True][1] and check(" (end)"):
        registry.rollback("canary")
        return CanaryResult(ROLLED_BACK, clock(), *rates(), tuple(checks), registry.current("canary"))
    if counts[True][1] < guard.min_sample:
        registry.rollback("canary")
        return CanaryResult(UNDECIDED, clock(), *rates(), tuple(checks), registry.current("canary"))
    registry.point("production", registry.current("canary"))
    return CanaryResult(PROMOTED, clock(), *rates(), tuple(checks), registry.current("canary"))
