"""The second scenario table: approvals, checkpoints, cancel and delegation, one worst case per row.

kit/data/agent/boundaries.jsonl holds one JSON object per line. A row names either one agent (a
fake model kind, or a fixed plan written out as [tool, arguments] pairs) or a team of them, then
what happens to it: an interrupt after some step, a hand-edited checkpoint, people's decisions (with
the seconds that pass before each), and how often the checkpoint is resumed. play_row() runs all of
it through the real files: the run is saved to a checkpoint in a temporary folder, and every
decision and resume loads that file and saves it again. check_row() lists how the result differs
from the row's expectations: status, reason, emails sent, and the codes that came back in order.
Left out: rows for the agent page (scenarios.jsonl) and real people.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, field_validator

from evidencedesk.agent.approval import ApprovalDesk
from evidencedesk.agent.checkpoint import Checkpoint, CheckpointError, decide, resume
from evidencedesk.agent.delegation import DELEGATE, Team
from evidencedesk.agent.fakes import FakeModel
from evidencedesk.agent.interrupt import Interrupt, InterruptibleAgent
from evidencedesk.agent.loop import Decider, FixedPlan, ModelDecider, Run, RunBudget
from evidencedesk.agent.scenarios import AGENT_DATA, TASKS, USERS, Expect, Limits, ScenarioError, lab
from evidencedesk.agent.state import AWAITING, AgentState
from evidencedesk.helpdesk import Outbox
from evidencedesk.security import Session
from evidencedesk.strictjson import read_jsonl

Member = str | list[list[Any]]  # a FakeModel kind, or a fixed plan: a list of [tool, arguments] pairs


class Decision(BaseModel):
    """One person's decision in a row: do (approve, decline, cancel), by (user id, signed in as that
    Session), after_s (seconds that pass before it), id (the pending id; "" = the one the run parked)."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)
    do: Literal["approve", "decline", "cancel"]
    by: str = Field(max_length=40)
    after_s: float = Field(default=0.0, ge=0)
    id: str = ""


class Forge(BaseModel):
    """A hand edit of the saved checkpoint: replace the text old with new (the file's signature is kept)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    old: str = Field(min_length=1)
    new: str


class BoundaryExpect(Expect):
    """What a row expects: status, reason, calls (tools that reached the coordinator's gate), emails, and
    the codes that came back, in order."""

    codes: list[str]


class Row(BaseModel):
    """One row of boundaries.jsonl; either agent (with user, task, grant) or team must be given."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)
    id: str = Field(pattern=r"^b[0-9]{2}$")
    goal: str = Field(min_length=1, max_length=300)
    agent: Member | None = None
    user: str = "kwame"
    task: str = "triage"
    grant: bool = False
    team: dict[str, Member] | None = None
    max_depth: int = Field(default=2, ge=0)
    limits: Limits = Field(default_factory=Limits)
    interrupt_after: int | None = Field(default=None, ge=0)
    forge: Forge | None = None
    decisions: list[Decision] = Field(default_factory=list)
    resumes: int = Field(default=0, ge=0, le=5)
    expect: BoundaryExpect
    why: str = Field(min_length=1)

    @field_validator("agent")
    @classmethod
    def known_agent(cls, value: Member | None) -> Member | None:
        return value if value is None else _member(value)

    @field_validator("team")
    @classmethod
    def known_members(cls, value: dict[str, Member] | None) -> dict[str, Member] | None:
        return value if value is None else {name: _member(member) for name, member in value.items()}

    @field_validator("user")
    @classmethod
    def known_user(cls, value: str) -> str:
        if value not in USERS:
            raise ValueError(f"unknown user {value[:40]!r}; known: {', '.join(USERS)}")
        return value

    @field_validator("task")
    @classmethod
    def known_task(cls, value: str) -> str:
        if value not in TASKS:
            raise ValueError(f"unknown task {value[:40]!r}; known: {', '.join(TASKS)}")
        return value


def _member(value: Member) -> Member:
    """A known FakeModel kind, or a plan of [tool name, arguments object] pairs; else ValueError naming it."""
    if isinstance(value, str):
        if value not in FakeModel.KINDS:
            raise ValueError(f"unknown model {value[:40]!r}; known: {', '.join(FakeModel.KINDS)}")
    elif not all(len(step) == 2 and isinstance(step[0], str) and isinstance(step[1], dict) for step in value):
        raise ValueError("a plan is a list of [tool name, arguments object] pairs")
    return value


def _decider(member: Member) -> Decider:
    """A fixed plan for a list, a fake model for a kind."""
    return FixedPlan([(tool, dict(arguments)) for tool, arguments in member]) if isinstance(member, list) \
        else ModelDecider(FakeModel(member))


def load_rows(path: str | Path | None = None) -> list[dict[str, Any]]:
    """Read and validate the table, one JSON object per line (blank lines skipped).

    path (str or Path; default kit/data/agent/boundaries.jsonl). Returns the rows as dicts, in order.
    Raises ScenarioError naming the file, and the line and field of a row that is not strict JSON,
    not a valid Row, names both or neither of agent and team, or repeats an id.
    Example: load_rows()[0]["id"] == "b01"
    """
    path = Path(path) if path is not None else AGENT_DATA / "boundaries.jsonl"
    rows = read_jsonl(path, Row.model_validate, ScenarioError, "table")
    for number, _, checked in rows:
        if (checked.agent is None) == (checked.team is None):
            raise ScenarioError(f"{path.name} line {number}: field agent: give either agent or team")
    return [row for _, row, _ in rows]


class Played(NamedTuple):
    """What a row did: the run's final state, the tools that reached the gate, emails sent, and the
    codes that came back in order (decisions and resumes, or the team's delegation refusals)."""

    state: AgentState
    calls: tuple[str, ...]
    emails: int
    codes: list[str]


def play_row(row: dict[str, Any]) -> Played:
    """Run one row from start to end through a real checkpoint file in a temporary folder.

    Raises pydantic.ValidationError naming the field for a malformed row.
    Example: play_row(load_rows()[0]).state.status == "done"
    """
    r = Row.model_validate(row)
    if r.team is not None:
        limits = r.limits.model_dump(exclude_none=True, exclude={"max_calls"})
        members = {name: _decider(member) for name, member in r.team.items()}
        team = Team(members, user=r.user, budget=RunBudget(**limits), max_depth=r.max_depth,
                    interrupt=Interrupt(after_step=r.interrupt_after))
        run = team.run(r.goal, run_id=r.id)
        codes = [e["outcome"] for e in team.audit.events if e["tool"] == DELEGATE and e["outcome"] != "ok"]
        return Played(run.state, run.calls, len(team.outbox.sent), codes)
    checkpoint, outbox, run = start(row)
    state, emails, codes = _through_the_file(r, checkpoint, outbox)
    return Played(state, run.calls, emails, codes)


def start(row: dict[str, Any]) -> tuple[Checkpoint, Outbox, Run]:
    """Run a one-agent row until it ends or parks a write; a parked write is put to the approvers.

    Returns (checkpoint of the run, the outbox its email tool writes to, the Run). Raises ValueError
    naming the row when it is a team row, pydantic.ValidationError naming the field for a malformed row.
    Example: checkpoint, outbox, run = start(load_rows()[0]); checkpoint.save(path)
    """
    r = Row.model_validate(row)
    if r.agent is None:
        raise ValueError(f"row {r.id} is a team row: it has no single run to save")
    limits = r.limits.model_dump(exclude_none=True)
    max_calls = limits.pop("max_calls", 10)
    agent, outbox = lab(r.agent if isinstance(r.agent, str) else "sensible",
                        decider=_decider(r.agent) if isinstance(r.agent, list) else None, user=r.user,
                        task=r.task, grant=r.grant, budget=RunBudget(**limits), max_calls=max_calls)
    run = InterruptibleAgent.wrap(agent, Interrupt(after_step=r.interrupt_after)).run(r.goal, run_id=r.id)
    desk = ApprovalDesk(agent.gate, agent.clock)
    if run.state.status == AWAITING:
        desk.ask(run.state.pending_id)
    return Checkpoint.of(agent, run.state, desk), outbox, run


def _through_the_file(r: Row, checkpoint: Checkpoint, outbox: Outbox) -> tuple[AgentState, int, list[str]]:
    """Save, forge, decide and resume as the row says; every step loads the file and saves it again."""
    codes: list[str] = []
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"{r.id}.json"
        checkpoint.save(path)
        if r.forge is not None:
            path.write_text(path.read_text(encoding="utf-8").replace(r.forge.old, r.forge.new), encoding="utf-8")
        steps = [lambda d=d: decide(path, d.id or checkpoint.state.pending_id, d.do, Session(d.by),
                                    after_s=d.after_s, outbox=outbox) for d in r.decisions]
        for step in steps + [lambda: resume(path)] * r.resumes:
            try:
                codes.append(step().code)
            except CheckpointError as exc:
                codes.append(exc.code)
        try:
            state = Checkpoint.load(path).state
        except CheckpointError:
            state = checkpoint.state  # a refused file changed nothing
    return state, len(outbox.sent), codes


def check_row(row: dict[str, Any]) -> list[str]:
    """Play a row and list how it differs from what the row expects (empty list = it matches).

    Compares status, reason, calls, emails sent and codes.
    Example: check_row(load_rows()[0]) == []
    """
    expect = Row.model_validate(row).expect
    played = play_row(row)
    got = {"status": played.state.status, "reason": played.state.reason, "calls": list(played.calls),
           "emails": played.emails, "codes": played.codes}
    return [f"{row['id']} {name}: expected {getattr(expect, name)!r}, got {value!r}"
            for name, value in got.items() if getattr(expect, name) != value]
