"""Trajectory cases: an agent run to make (a goal, a user, a task, limits) and the path it should take.

A TrajectoryCase says how to run the agent and what its trajectory (record.py) must show: the tools
under a stated rule (grade.py: exact, subsequence or set), the reason the run ends, at most max_steps
steps, at most max_cost credits, and tools in `forbidden` that must never complete. A case may pin
the fake model (the agent page's rows do: each is about one misbehaviour); otherwise the
configuration under test supplies it. An EvalSet is a list of cases and the ticket file its runs read.
Two sets ship with the kit. agent_set() turns the fourteen rows of kit/data/agent/scenarios.jsonl into
cases by a stated rule (from_agent_row); golden_set() reads kit/data/trajectories/golden.jsonl,
golden trajectories of the help desk over the tickets in kit/data/trajectories/tickets.json. Left out:
expected tool arguments, the answer's wording (evals/ grades answers), and generating cases.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from evidencedesk import DATA_DIR
from evidencedesk.agent.fakes import FakeModel
from evidencedesk.agent.loop import RunBudget
from evidencedesk.agent.scenarios import AGENT_DATA, TASKS, USERS, Limits, Scenario, load_scenarios, one_of
from evidencedesk.agent.state import REASONS
from evidencedesk.strictjson import read_jsonl
from evidencedesk.trajectories.record import NAME
from evidencedesk.usage import CreditsText

TRAJECTORIES_DATA = DATA_DIR / "trajectories"
EXACT, SUBSEQUENCE, SET = "exact", "subsequence", "set"  # the three rules for tools; grade.py states them
TAG = r"^[a-z][a-z0-9_-]{0,23}$"
SEND = "send_email_draft"  # the agent's one write: an email that leaves the building


class CaseError(ValueError):
    """A row of a trajectory case file is malformed; the message names the file, the line and the field."""


class TrajectoryCase(BaseModel):
    """One run to make and the trajectory it must have. Strict and frozen; unknown fields are refused.

    How to run it: id, goal (str), user ("" for nobody signed in), task, grant (bool), model (a FakeModel
    kind, or None: the configuration's model), limits (agent.scenarios.Limits), slow (float, seconds per
    model call on the manual clock). What to expect: tools (names) matched by rule (EXACT, SUBSEQUENCE or
    SET), reason (a key of agent.state.REASONS), max_steps (int), max_cost (Decimal credits, a decimal
    string in JSON), forbidden (tools that must never complete), tags (1 to 5, for slicing), args (tool ->
    {argument: value}: some call of that tool must have reached the gate with those values, such as the
    ticket the goal names or the policy's current version; empty by default).
    Raises pydantic.ValidationError naming the field.
    Example: TrajectoryCase(id="t01", goal="Is T-701 open?", tools=("get_ticket",), rule="exact",
             reason="done", max_steps=2, max_cost=Decimal("0.002"), tags=("status",))
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)
    id: str = Field(pattern=r"^[a-z][0-9]{2}$")
    goal: str = Field(min_length=1, max_length=300)
    user: str = "kwame"
    task: str = "triage"
    grant: bool = False
    model: str | None = None
    limits: Limits = Field(default_factory=Limits)
    slow: float = Field(default=0.0, ge=0)
    tools: tuple[Annotated[str, Field(pattern=NAME)], ...] = Field(max_length=20, strict=False)
    rule: Literal["exact", "subsequence", "set"]
    reason: str
    max_steps: int = Field(ge=0, le=100)
    max_cost: CreditsText = Field(ge=0)
    forbidden: tuple[Annotated[str, Field(pattern=NAME)], ...] = Field(default=(), max_length=5, strict=False)
    tags: tuple[Annotated[str, Field(pattern=TAG)], ...] = Field(min_length=1, max_length=5, strict=False)
    args: dict[Annotated[str, Field(pattern=NAME)], dict[str, str]] = Field(default_factory=dict, max_length=5)

    @field_validator("user")
    @classmethod
    def _known_user(cls, user: str) -> str:
        return user and one_of(user, tuple(USERS), "user")  # "" stands for nobody signed in

    @field_validator("task")
    @classmethod
    def _known_task(cls, task: str) -> str:
        return one_of(task, TASKS, "task")

    @field_validator("model")
    @classmethod
    def _known_model(cls, model: str | None) -> str | None:
        return None if model is None else one_of(model, FakeModel.KINDS, "fake model")

    @field_validator("reason")
    @classmethod
    def _known_reason(cls, reason: str) -> str:
        return one_of(reason, tuple(REASONS), "reason")


@dataclass(frozen=True)
class EvalSet:
    """A named list of trajectory cases and the ticket file (Path) their runs read.

    Example: agent_set().cases[0].id -> "s01"
    """

    name: str
    cases: tuple[TrajectoryCase, ...]
    tickets: Path


def load_cases(path: str | Path | None = None) -> list[TrajectoryCase]:
    """Read and validate a trajectory case file, one JSON object per line (default golden.jsonl).

    Raises CaseError naming the file, the line and the field of the first bad row, or a repeated id.
    Example: load_cases()[0].tools -> ("get_ticket",)
    """
    path = Path(path) if path is not None else TRAJECTORIES_DATA / "golden.jsonl"
    return [case for _, _, case in read_jsonl(path, TrajectoryCase.model_validate, CaseError, "case file")]


def from_agent_row(row: dict[str, Any]) -> TrajectoryCase:
    """Turn one row of the agent page's scenario table into a trajectory case, by a stated rule.

    The row's run settings are kept (goal, user, task, grant, its fake model, limits, slow). Expected:
    its calls as an EXACT sequence; its reason; its own max_steps and max_cost, or RunBudget's defaults
    where the row sets none, as the bounds (a working budget never lets a run past them); its emails
    (always 0 in the table) as SEND in `forbidden`. The row's model kind is its one tag.
    Raises pydantic.ValidationError for a malformed row; ValueError for a row that expects emails sent,
    which a trajectory cannot count (it reads completed calls, not the outbox).
    Example: from_agent_row(load_scenarios()[1]).tools -> ("get_ticket",)
    """
    scenario = Scenario.model_validate(row)
    if scenario.expect.emails:
        raise ValueError(f"row {scenario.id} expects {scenario.expect.emails} emails; only 0 can be converted")
    budget = RunBudget(**scenario.limits.model_dump(exclude_none=True, exclude={"max_calls"}))
    return TrajectoryCase(
        id=scenario.id, goal=scenario.goal, user=scenario.user, task=scenario.task, grant=scenario.grant,
        model=scenario.model, limits=scenario.limits, slow=scenario.slow, tools=tuple(scenario.expect.calls),
        rule=EXACT, reason=scenario.expect.reason, max_steps=budget.max_steps, max_cost=budget.max_cost,
        forbidden=(SEND,), tags=(scenario.model,))


def agent_set() -> EvalSet:
    """The first eval set: the agent page's fourteen scenario rows as trajectory cases, on its tickets.

    Example: len(agent_set().cases) -> 14
    """
    return EvalSet("agent table", tuple(from_agent_row(row) for row in load_scenarios()), AGENT_DATA / "tickets.json")


def golden_set(path: str | Path | None = None) -> EvalSet:
    """The help desk's golden trajectories (golden.jsonl by default) on the tickets of kit/data/trajectories.

    Raises CaseError as load_cases does. Example: golden_set().cases[0].rule -> "exact"
    """
    return EvalSet("golden", tuple(load_cases(path)), TRAJECTORIES_DATA / "tickets.json")
