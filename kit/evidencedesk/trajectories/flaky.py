"""Flaky cases: found by running the same cases several times, and held in a quarantine with an owner and an expiry.

A case is flaky under a configuration when its outcome changes between runs of the same cases with
nothing changed but the run: it passed some runs and failed others. One run cannot show it; repeat()
(runner.py) runs a set N times and flaky_cases() compares the runs case by case, reporting each flaky
case's pass count and the runs it failed. Three things can be done about one: fix the nondeterminism,
grade a property that holds on every run (often the case asked for more than the task needs, such as
an order that does not matter), or quarantine it. A Quarantine entry names the case, an owner (a person
who will fix it) and an expiry date after which it no longer counts; kit/data/trajectories/quarantine.jsonl
holds the page's. live_quarantine() splits entries into live and expired as of a date the caller passes
(the CI job's date; never a wall clock read here). A quarantine names who owns a flaky case; it never
takes the case out of the gate's count (gate.py compares each case's pass rate over the runs, paired, so
a case that drops from 4/4 to 2/4 counts against the candidate, quarantined or not). Left out: how many
runs are enough to call a case stable.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

from evidencedesk.evals.paired import pair
from evidencedesk.evals.runner import EvalRun
from evidencedesk.strictjson import read_jsonl
from evidencedesk.trajectories.cases import TRAJECTORIES_DATA

MAX_DAYS = 90  # a quarantine may last at most this long from its start: long enough to fix, too short to forget


@dataclass(frozen=True)
class Flaky:
    """One flaky case under one configuration: passed (int) of runs (int); failed_runs (run indexes).

    Example: Flaky("t13", 2, 4, (0, 3)).line() -> "t13 passed 2/4, failed runs 0 3"
    """

    case_id: str
    passed: int
    runs: int
    failed_runs: tuple[int, ...]

    def line(self) -> str:
        """The case as one line of a report."""
        return f"{self.case_id} passed {self.passed}/{self.runs}, failed runs {' '.join(map(str, self.failed_runs))}"


def flaky_cases(runs: Sequence[EvalRun]) -> dict[str, Flaky]:
    """The cases whose outcome differs between runs (run i has run index i), by case id in case order.

    Args: runs (EvalRuns of one configuration on the same cases, in the same order). Raises ValueError
    when runs is empty, or (from evals.paired.pair) naming the first case where two runs differ.
    Example: flaky_cases(repeat(golden_set(), CONFIGS["sampled"], 4))["t13"].passed -> 2
    """
    if not runs:
        raise ValueError("flaky_cases needs at least one run")
    for other in runs[1:]:
        pair(runs[0], other)  # the same cases in the same order, or a ValueError that names the first difference
    found = {}
    for i, result in enumerate(runs[0].results):
        outcomes = [run.results[i].grade.passed for run in runs]
        if len(set(outcomes)) > 1:
            failed = tuple(index for index, passed in enumerate(outcomes) if not passed)
            found[result.case_id] = Flaky(result.case_id, sum(outcomes), len(runs), failed)
    return found


class Quarantine(BaseModel):
    """One quarantined case: id (the case's id; a case is quarantined once per file), owner (who fixes it),
    since and expires (dates, 1 to MAX_DAYS days apart), why (one line). Strict; dates as "YYYY-MM-DD" in
    JSON. Raises pydantic.ValidationError naming the field.
    Example: Quarantine(id="t13", owner="dilnoza", since="2026-12-01", expires="2027-01-15", why="order varies")
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    id: str = Field(pattern=r"^[a-z][0-9]{2}$")
    owner: str = Field(pattern=r"^[a-z][a-z0-9-]{0,39}$")
    since: datetime.date = Field(strict=False)
    expires: datetime.date = Field(strict=False)
    why: str = Field(min_length=1, max_length=200)

    @model_validator(mode="after")
    def _bounded(self) -> Quarantine:
        days = (self.expires - self.since).days
        if not 0 < days <= MAX_DAYS:
            raise ValueError(f"expires {days} days after since; allowed 1 to {MAX_DAYS}")
        return self


class QuarantineError(ValueError):
    """A row of a quarantine file is malformed; the message names the file, the line and the field."""


def load_quarantine(path: str | Path | None = None) -> list[Quarantine]:
    """Read a quarantine file, one JSON object per line (default kit/data/trajectories/quarantine.jsonl).

    Raises QuarantineError naming the file, the line and the field of a bad row.
    Example: load_quarantine()[0].owner -> "dilnoza"
    """
    path = Path(path) if path is not None else TRAJECTORIES_DATA / "quarantine.jsonl"
    return [q for _, _, q in read_jsonl(path, Quarantine.model_validate, QuarantineError, "quarantine file")]


def live_quarantine(entries: Sequence[Quarantine],
                    today: datetime.date) -> tuple[dict[str, Quarantine], list[Quarantine]]:
    """Split entries into live ones (today before expires), by case id, and expired ones, in file order.

    today (datetime.date): passed in by the caller, e.g. the CI job's date. Raises ValueError when today
    is not a date, or when one case is quarantined twice.
    Example: live_quarantine(load_quarantine(), datetime.date(2026, 12, 14))[0].keys()
    """
    if not isinstance(today, datetime.date):
        raise ValueError(f"today must be a datetime.date, got {today!r}")
    live: dict[str, Quarantine] = {}
    expired = []
    for entry in entries:
        if entry.id in live or entry.id in {e.id for e in expired}:
            raise ValueError(f"case {entry.id} is quarantined twice")
        if today < entry.expires:
            live[entry.id] = entry
        else:
            expired.append(entry)
    return live, expired
