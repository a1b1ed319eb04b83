"""The trajectories scenario table: each tool rule, each bound and the gate's rule at its edges.

kit/data/trajectories/scenarios.jsonl holds one row per line, of five kinds. A "match" row holds a rule,
the expected tools and the tools a run called, and expects tools_match's answer. A "grade" row holds a
trajectory case (validated as cases.py validates one) and a trajectory (record.py), and expects the list
of failure codes (empty: it passes). A "gate" row holds the counts the gate's rule reads (lost, gained,
flaky cases with no live quarantine, counted) and expects the outcome. A "paired" row holds each case's
(passed, runs) under the baseline and the candidate, and whether its flaky cases are quarantined, and
expects the gate's outcome over them (gate.paired_rates, then the rule). A "quarantine" row holds an
entry's dates and the day of the check, and expects "live" or "expired". run_scenario() says what a
row produced; check_scenario() says how that differs from what it expects. Left out: rows that run an
agent (the page runs both eval sets) and re-running (flaky.py's tests pin it).
"""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from evidencedesk.strictjson import read_jsonl
from evidencedesk.trajectories.cases import TRAJECTORIES_DATA, TrajectoryCase
from evidencedesk.trajectories.flaky import Quarantine, live_quarantine
from evidencedesk.trajectories.gate import apply_rule, paired_rates
from evidencedesk.trajectories.grade import grade_trajectory, tools_match
from evidencedesk.trajectories.record import NAME, Trajectory

Tools = tuple[Annotated[str, Field(pattern=NAME)], ...]


class ScenarioError(ValueError):
    """A row of the scenario table is malformed; the message names the line and the field."""


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    id: str = Field(pattern=r"^r[0-9]{2}$")
    why: str = Field(min_length=1, max_length=120)


class MatchRow(_Row):
    """A rule, the expected tools, the tools called, and whether they should match."""

    kind: Literal["match"]
    rule: Literal["exact", "subsequence", "set"]
    expected: Tools = Field(strict=False)
    got: Tools = Field(strict=False)
    expect: bool


class GradeRow(_Row):
    """A trajectory case and a trajectory, and the failure codes expected, in the grader's order."""

    kind: Literal["grade"]
    case: TrajectoryCase
    trajectory: Trajectory
    expect: tuple[Literal["wrong_tools", "wrong_reason", "over_steps", "over_cost", "forbidden", "wrong_args"],
                  ...] = Field(strict=False)


class GateRow(_Row):
    """The counts the gate's rule reads, and the outcome expected."""

    kind: Literal["gate"]
    lost: int = Field(ge=0, le=10_000)
    gained: int = Field(ge=0, le=10_000)
    unowned: int = Field(default=0, ge=0, le=100)
    counted: int = Field(ge=0, le=10_000)
    expect: Literal["PASS", "FAIL", "UNDECIDED"]


Counts = tuple[Annotated[tuple[Annotated[int, Field(ge=0, le=50)], Annotated[int, Field(ge=1, le=50)]],
                         Field(strict=False)], ...]  # one (passed, runs) per case


class PairedRow(_Row):
    """Each case's (passed, runs) on both sides, whether the flaky ones are quarantined, and the outcome."""

    kind: Literal["paired"]
    baseline: Counts = Field(min_length=1, max_length=100, strict=False)
    candidate: Counts = Field(min_length=1, max_length=100, strict=False)
    quarantined: bool
    expect: Literal["PASS", "FAIL", "UNDECIDED"]


class QuarantineRow(_Row):
    """A quarantine's dates and the day of the check, and whether the entry is live or expired that day."""

    kind: Literal["quarantine"]
    since: datetime.date = Field(strict=False)
    expires: datetime.date = Field(strict=False)
    today: datetime.date = Field(strict=False)
    expect: Literal["live", "expired"]


ROW = TypeAdapter(Annotated[Union[MatchRow, GradeRow, GateRow, PairedRow, QuarantineRow],  # noqa: UP007
                            Field(discriminator="kind")])


def load_scenarios(path: str | Path | None = None) -> list[dict[str, Any]]:
    """Read and validate the scenario table (default kit/data/trajectories/scenarios.jsonl); rows as dicts.

    Raises ScenarioError naming the file when it cannot be read, and the line and field of a bad row
    (a grade row's case and trajectory are checked as cases.py and record.py check them; ids are unique).
    Example: load_scenarios()[0]["kind"] -> "match"
    """
    path = Path(path) if path is not None else TRAJECTORIES_DATA / "scenarios.jsonl"
    return [row for _, row, _ in read_jsonl(path, ROW.validate_python, ScenarioError, "scenario table")]


def run_scenario(row: dict[str, Any]) -> bool | tuple[str, ...] | str:
    """Run one row: a match row's bool, a grade row's failure codes, a gate or paired row's outcome, or a
    quarantine row's "live" or "expired". A paired row whose two sides differ in length raises ValueError. Raises pydantic.ValidationError for a malformed row.
    Example: run_scenario(load_scenarios()[0]) -> True
    """
    checked = ROW.validate_python(row)
    if isinstance(checked, MatchRow):
        return tools_match(checked.rule, checked.expected, checked.got)
    if isinstance(checked, GradeRow):
        return tuple(code for code, _ in grade_trajectory(checked.case, checked.trajectory).failures)
    if isinstance(checked, GateRow):
        unowned = [f"f{n:02d}" for n in range(1, checked.unowned + 1)]  # stand-in ids: the rule counts them
        return apply_rule(checked.lost, checked.gained, unowned, checked.counted)[0]
    if isinstance(checked, PairedRow):
        if len(checked.baseline) != len(checked.candidate):
            raise ValueError(f"{checked.id}: baseline and candidate need one (passed, runs) per case each")
        ids = [f"c{n:02d}" for n in range(1, len(checked.baseline) + 1)]  # stand-in case ids
        base, cand = dict(zip(ids, checked.baseline)), dict(zip(ids, checked.candidate))
        lost, gained = paired_rates(base, cand)
        flaky = [i for i in ids if any(0 < side[i][0] < side[i][1] for side in (base, cand))]
        return apply_rule(len(lost), len(gained), [] if checked.quarantined else flaky, len(ids))[0]
    entry = Quarantine(id="x01", owner="scenario", since=checked.since, expires=checked.expires, why=checked.why)
    live, _ = live_quarantine([entry], checked.today)
    return "live" if live else "expired"


def check_scenario(row: dict[str, Any]) -> list[str]:
    """How a row's run differs from what it expects: one line, or an empty list when it matches.

    Example: check_scenario(load_scenarios()[0]) == []
    """
    want = ROW.validate_python(row).expect
    got = run_scenario(row)
    return [] if got == want else [f"{row['id']}: expected {want!r}, got {got!r}"]
