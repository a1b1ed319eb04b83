"""The agent lab and the table of failure scenarios.

lab() wires one agent the way the course page uses it: a ManualClock, the agent's synthetic
tickets (kit/data/agent/tickets.json), the kit's documents, the three tools behind a ToolGate with
the default policy, a ledger, a session memory and a fake model. kit/data/agent/scenarios.jsonl
holds worst-case runs, one per line, each naming a fake model, a user, a task, limits and the
expected status, reason, calls and emails; check_scenario() says how a run differs from its row.
Left out: real users, real models, and approvals, cancel and delegation (boundaries.py has those rows).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from evidencedesk import DATA_DIR
from evidencedesk.agent.fakes import FakeModel
from evidencedesk.agent.loop import Agent, Decider, ModelDecider, Run, RunBudget
from evidencedesk.agent.memory import SessionMemory
from evidencedesk.agent.state import REASONS
from evidencedesk.gate import ToolGate, default_policy
from evidencedesk.helpdesk import DocumentStore, Outbox, TicketStore, default_registry
from evidencedesk.llm import LLMClient
from evidencedesk.security import Session
from evidencedesk.strictjson import read_jsonl
from evidencedesk.tools import ToolRegistry
from evidencedesk.usage import CreditsText, Ledger, ManualClock, SlowClient

AGENT_DATA = DATA_DIR / "agent"
USERS: dict[str, tuple[str, ...]] = {"kwame": ("triage", "reply"), "lena": ("triage",)}  # user -> tasks allowed
TASKS = tuple(default_policy().allow)  # the tasks a row may name: "triage", "reply"


class ScenarioError(ValueError):
    """A row of the scenario table is malformed; the message names the line and the field."""


def lab(model: str = "sensible", *, decider: Decider | None = None, user: str = "kwame", task: str = "triage",
        grant: bool = False, budget: RunBudget | None = None, slow: float = 0.0,
        max_calls: int = 10) -> tuple[Agent, Outbox]:
    """Build a fresh agent on synthetic data, and the outbox its email tool writes to.

    model (str, a FakeModel kind), decider (used instead of the fake model when given),
    user (str, "" = not signed in), task ("triage" or "reply"), grant (bool, allow the email write
    for "reply"), budget (RunBudget, default limits when None), slow (float, seconds each model
    call takes on the clock; 0 = instant), max_calls (int, gate limit on tool calls per run).
    Returns (agent, outbox). Raises ValueError naming the model kind when it is unknown, or naming slow
    when it is not a finite number >= 0; pydantic.ValidationError naming user_id when user is not a str.
    Example: agent, outbox = lab(model="obey", task="reply", grant=True)
    """
    if isinstance(slow, bool) or not isinstance(slow, int | float) or not 0 <= slow < math.inf:
        raise ValueError(f"slow must be a finite number of seconds >= 0, got {slow!r}")
    session = Session(user_id=user, tasks=USERS.get(user, ()) if isinstance(user, str) else ())
    clock = ManualClock()
    outbox = Outbox()
    registry = lab_registry(outbox)
    gate = ToolGate(registry, default_policy(grant_writes=grant, max_calls_per_run=max_calls))
    client: LLMClient = FakeModel(model)
    if slow > 0:
        client = SlowClient(client, clock, base_s=slow)
    memory = SessionMemory(user or "anonymous", clock)
    agent = Agent(decider or ModelDecider(client), gate, session, task, budget or RunBudget(), clock, Ledger(), memory)
    return agent, outbox


def lab_registry(outbox: Outbox) -> ToolRegistry:
    """The three tools on the agent's tickets and the kit's documents; send_email_draft writes to outbox.

    Raises DataFileError naming a malformed data file. Example: lab_registry(Outbox()).names()
    """
    tickets = TicketStore.from_file(AGENT_DATA / "tickets.json")
    documents = DocumentStore.from_file(DATA_DIR / "documents.json")
    return default_registry(tickets, documents, outbox)


class Limits(BaseModel):
    """The limits a row may set: RunBudget fields, and max_calls for the gate. Strict types; max_cost is
    written as a decimal string ("0.005"), since JSON has no decimal type and a float is never money."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)
    max_steps: int | None = Field(default=None, gt=0)
    max_seconds: float | None = Field(default=None, gt=0)
    max_cost: CreditsText | None = Field(default=None, gt=0)
    max_stuck: int | None = Field(default=None, gt=0)
    max_calls: int | None = Field(default=None, gt=0)



class Expect(BaseModel):
    """What a row expects of its run."""

    model_config = ConfigDict(extra="forbid", strict=True)
    status: Literal["running", "awaiting_approval", "done", "stopped"]
    reason: str
    calls: list[str]
    emails: int = Field(ge=0)

    @field_validator("reason")
    @classmethod
    def known_reason(cls, value: str) -> str:
        if value not in REASONS:
            raise ValueError(f"unknown reason {value!r}")
        return value


class Scenario(BaseModel):
    """One row of scenarios.jsonl. Strict types: "yes" is not a bool and "3" is not an int."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)
    id: str = Field(pattern=r"^s[0-9]{2}$")
    model: str
    user: str
    task: str
    goal: str = Field(min_length=1, max_length=300)
    grant: bool = False
    slow: float = Field(default=0.0, ge=0)
    limits: Limits = Field(default_factory=Limits)
    expect: Expect
    why: str = Field(min_length=1)

    @field_validator("model")
    @classmethod
    def known_model(cls, value: str) -> str:
        return one_of(value, FakeModel.KINDS, "model")

    @field_validator("user")
    @classmethod
    def known_user(cls, value: str) -> str:
        return value and one_of(value, tuple(USERS), "user")  # "" stands for nobody signed in

    @field_validator("task")
    @classmethod
    def known_task(cls, value: str) -> str:
        return one_of(value, TASKS, "task")


def one_of(value: str, known: tuple[str, ...], what: str) -> str:
    """value itself when it is one of known; else ValueError naming what, the value (cut at 40) and the known ones.

    For a table's validators (a pydantic field_validator turns the ValueError into the row's error).
    Example: one_of("triage", ("triage", "reply"), "task") -> "triage"
    """
    if value not in known:
        raise ValueError(f"unknown {what} {value[:40]!r}; known: {', '.join(known)}")
    return value


def load_scenarios(path: str | Path | None = None) -> list[dict[str, Any]]:
    """Read and validate the scenario table, one JSON object per line (blank lines skipped).

    path (str or Path; default kit/data/agent/scenarios.jsonl). Returns the rows as dicts, in order.
    Raises ScenarioError naming the file when it cannot be read as UTF-8 text, and the line number
    and the field for a row that is not strict JSON (see strictjson.parse_json), not a valid
    Scenario (strict types, a known user and task), or a repeated id.
    Example: load_scenarios()[0]["id"] == "s01"
    """
    path = Path(path) if path is not None else AGENT_DATA / "scenarios.jsonl"
    return [row for _, row, _ in read_jsonl(path, Scenario.model_validate, ScenarioError, "scenario table")]


def run_scenario(row: dict[str, Any]) -> tuple[Run, Outbox]:
    """Run one row in a fresh lab. row: a dict as returned by load_scenarios.

    Returns (run, outbox). Raises pydantic.ValidationError naming the field for a malformed row.
    Example: run, outbox = run_scenario(load_scenarios()[0])
    """
    s = Scenario.model_validate(row)
    limits = s.limits.model_dump(exclude_none=True)
    max_calls = limits.pop("max_calls", 10)
    agent, outbox = lab(model=s.model, user=s.user, task=s.task, grant=s.grant, budget=RunBudget(**limits),
                        slow=s.slow, max_calls=max_calls)
    return agent.run(s.goal, run_id=s.id), outbox


def check_scenario(row: dict[str, Any]) -> list[str]:
    """Run a row and list how the run differs from what the row expects (empty list = it matches).

    Compares status, reason, calls (tool names in order) and emails sent.
    Example: check_scenario(load_scenarios()[0]) == []
    """
    expect = Scenario.model_validate(row).expect
    run, outbox = run_scenario(row)
    got = {"status": run.state.status, "reason": run.reason, "calls": list(run.calls), "emails": len(outbox.sent)}
    return [f"{row['id']} {name}: expected {getattr(expect, name)!r}, got {value!r}"
            for name, value in got.items() if getattr(expect, name) != value]
