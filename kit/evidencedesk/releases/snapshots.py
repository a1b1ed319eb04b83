"""Pinned model snapshots against moving aliases, and the release check that notices the difference.

A provider publishes a model under two kinds of name: a snapshot id that names one fixed model, and an
alias that the provider points at a snapshot of its choice and moves when it ships a new one. A
Catalogue is the kit's scripted stand-in for a provider's list: each alias moves on stated days, and
each snapshot has a shutdown day (or none announced). AliasingProvider is a scripted client that
resolves the model a request names on the day its ManualClock shows, answers with the snapshot's own
fake model, and names that snapshot in the response's model field; a request to a snapshot past its
shutdown is refused, as real providers refuse a retired model. check_pin() is the release check: the
configured model must be a snapshot (not an alias), the response must say it came from the pinned
snapshot (else: drift), and the snapshot's shutdown must be more than WARN_DAYS away. Every model id
here is invented. Left out: real providers' lists and their wire formats, fine-tuned models, regions.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass, field

from evidencedesk.llm import BadRequest, LLMClient, LLMRequest, LLMResponse
from evidencedesk.usage import ManualClock

DAY_S = 86_400  # seconds in a day, for reading a date off the ManualClock
START = datetime.date(2026, 11, 1)  # the day the kit's clocks start on: clock() == 0 is its first second
WARN_DAYS = 90  # the kit's choice: a pinned snapshot shutting down within this many days is flagged
ALIAS_IN_CONFIG, DRIFT, SHUTDOWN_SOON, SHUT_DOWN = "alias_in_config", "drift", "shutdown_soon", "shut_down"


def today(clock: ManualClock) -> datetime.date:
    """The date a ManualClock shows: START plus whole days of clock() seconds. Example: today(ManualClock()) -> START"""
    return START + datetime.timedelta(days=int(clock() // DAY_S))


@dataclass(frozen=True)
class Snapshot:
    """One fixed model: id (str), released (date), shutdown (date or None: none announced), client (a
    callable returning the scripted LLMClient that answers for it). Example: catalogue.snapshots[id].shutdown
    """

    id: str
    released: datetime.date
    shutdown: datetime.date | None
    client: Callable[[], LLMClient] = field(compare=False, repr=False)


@dataclass(frozen=True)
class Catalogue:
    """A provider's models, scripted: snapshots by id, and aliases as (from date, snapshot id) steps.

    Raises ValueError when an alias step names an unknown snapshot, steps are out of order, or a name
    is both an alias and a snapshot. Example: catalogue.resolve("desk-large", datetime.date(2026, 11, 2))
    """

    snapshots: dict[str, Snapshot]
    aliases: dict[str, tuple[tuple[datetime.date, str], ...]]

    def __post_init__(self) -> None:
        for alias, steps in self.aliases.items():
            if alias in self.snapshots:
                raise ValueError(f"{alias!r} is both an alias and a snapshot id")
            if [day for day, _ in steps] != sorted(day for day, _ in steps) or not steps:
                raise ValueError(f"alias {alias!r}: steps must be non-empty and in date order")
            unknown = [s for _, s in steps if s not in self.snapshots]
            if unknown:
                raise ValueError(f"alias {alias!r} points at unknown snapshots {unknown}")

    def is_alias(self, name: str) -> bool:
        """Whether name is an alias (moves) rather than a snapshot id (fixed)."""
        return name in self.aliases

    def resolve(self, name: str, day: datetime.date) -> str:
        """The snapshot id that name means on day: itself for a snapshot, the latest step for an alias.

        Raises BadRequest for an unknown name, or an alias asked about before its first step.
        """
        if name in self.snapshots:
            return name
        steps = [snapshot for start, snapshot in self.aliases.get(name, ()) if start <= day]
        if not steps:
            raise BadRequest(f"the model {str(name)[:40]!r} does not exist", provider="catalogue")
        return steps[-1]


class AliasingProvider:
    """A scripted provider: resolves request.model on the clock's day and answers as that snapshot.

    Args: catalogue (Catalogue); clock (ManualClock; its day decides what an alias means).
    complete() raises BadRequest for an unknown model or a snapshot on or after its shutdown day.
    Attribute served (list of str): the snapshot that answered each request, in order.
    Example: AliasingProvider(catalogue, clock).complete(request).model -> "desk-large-2026-09-14"
    """

    def __init__(self, catalogue: Catalogue, clock: ManualClock) -> None:
        self.catalogue, self.clock = catalogue, clock
        self.served: list[str] = []

    def complete(self, request: LLMRequest) -> LLMResponse:
        """Answer request as the snapshot its model names today; the response's model is that snapshot."""
        day = today(self.clock)
        snapshot = self.catalogue.snapshots[self.catalogue.resolve(request.model, day)]
        if snapshot.shutdown is not None and day >= snapshot.shutdown:
            raise BadRequest(f"the model {snapshot.id} was shut down on {snapshot.shutdown}", provider="catalogue")
        response = snapshot.client().complete(request)
        self.served.append(snapshot.id)
        return LLMResponse(response.text, snapshot.id, response.usage, response.stop_reason, response.tool_calls)


@dataclass(frozen=True)
class Finding:
    """One problem the release check found: code (ALIAS_IN_CONFIG, DRIFT, SHUTDOWN_SOON, SHUT_DOWN), detail."""

    code: str
    detail: str

    def line(self) -> str:
        """"code: detail", for a report."""
        return f"{self.code}: {self.detail}"


def check_pin(configured: str, answered: str | None, catalogue: Catalogue,
              day: datetime.date, warn_days: int = WARN_DAYS) -> list[Finding]:
    """The release check of one model setting.

    Args: configured (str, the model id in the prompt version); answered
    (str, the model field of a response to it, or None before any call);
    catalogue (Catalogue); day (date, today); warn_days (int, days).
    Returns the findings, [] when the pin holds. Raises BadRequest for an
    unknown model. Example: check_pin("desk-large", None, catalogue, day)
    """
    found = []
    pinned = catalogue.resolve(configured, day)
    alias = catalogue.is_alias(configured)
    if alias:
        found.append(Finding(ALIAS_IN_CONFIG,
                             f"{configured} is an alias, today for {pinned}"))
    if answered is not None and answered != configured and not alias:
        found.append(Finding(DRIFT,
                             f"{configured} pinned, response from {answered}"))
    shutdown = catalogue.snapshots[pinned].shutdown
    if shutdown is None:
        return found
    left = (shutdown - day).days
    if left <= 0:
        found.append(Finding(SHUT_DOWN, f"{pinned} shut down on {shutdown}"))
    elif left <= warn_days:
        found.append(Finding(SHUTDOWN_SOON,
                             f"{pinned} shuts down {shutdown}, in {left} days"))
    return found
