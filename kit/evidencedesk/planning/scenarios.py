"""The plan-then-execute lab, and its table of scenarios.

lab() wires one PlanAgent the way the course page uses it: a ManualClock, the agent page's synthetic
tickets and the kit's documents, four tools behind a ToolGate (the help desk's three, and
get_contact from results.py, which the "reply" task may also use), a ledger and a FakePlanner.
kit/data/planning/scenarios.jsonl holds runs one per line, each naming a planner kind, a user, a
task, a goal, limits, and what it expects: status, reason, the codes of a refused plan, the tools
that reached the gate, model calls, emails sent and the recipient of a parked email; check_row() says
how a run differs from its row. Left out: real users, real models, and approving a parked write (the
approval desk of agent/approval.py does that for this run as for any other).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from evidencedesk import DATA_DIR
from evidencedesk.agent.loop import RunBudget
from evidencedesk.agent.scenarios import AGENT_DATA, USERS, one_of
from evidencedesk.gate import Policy, ToolGate
from evidencedesk.helpdesk import DocumentStore, Outbox, TicketStore, default_registry
from evidencedesk.planning.checks import CODES
from evidencedesk.planning.execute import MAX_REPLANS, REASONS, PlanAgent, PlanRun
from evidencedesk.planning.fakes import FakePlanner
from evidencedesk.planning.results import GUARDED, PLANNING_DATA, contact_tool
from evidencedesk.security import Session
from evidencedesk.strictjson import read_jsonl
from evidencedesk.tools import ToolRegistry
from evidencedesk.usage import CreditsText, Ledger, ManualClock

TASKS = ("triage", "reply")
READS = frozenset({"get_ticket", "lookup_document"})


class RowError(ValueError):
    """A row of the planning scenario table is malformed; the message names the line and the field."""


def planning_registry(outbox: Outbox) -> ToolRegistry:
    """The help desk's three tools on the agent page's tickets, plus get_contact; the email tool writes to outbox.

    Raises DataFileError naming a malformed data file. Example: planning_registry(Outbox()).names()
    """
    tickets = TicketStore.from_file(AGENT_DATA / "tickets.json")
    registry = default_registry(tickets, DocumentStore.from_file(DATA_DIR / "documents.json"), outbox)
    registry.register(contact_tool(tickets))
    return registry


def planning_policy(grant_writes: bool = False, max_calls_per_run: int = 10) -> Policy:
    """"triage" reads tickets and documents; "reply" may also read a ticket's contact and draft an email.

    Args: grant_writes (bool: give "reply" the write grant); max_calls_per_run (int, calls).
    Example: "get_contact" in planning_policy().tools_for("reply") -> True
    """
    return Policy(allow={"triage": READS, "reply": READS | {"get_contact", "send_email_draft"}},
                  write_tasks={"reply"} if grant_writes else set(), max_calls_per_run=max_calls_per_run)


def lab(planner: str = "sensible", *, user: str = "kwame", task: str = "triage", grant: bool = False,
        budget: RunBudget | None = None, max_calls: int = 10, max_replans: int = MAX_REPLANS,
        guarded: frozenset[tuple[str, str]] = GUARDED) -> tuple[PlanAgent, Outbox]:
    """A fresh plan-then-execute agent on synthetic data, and the outbox its email tool writes to.

    planner (str, a FakePlanner kind), user (str, "" = not signed in; "kwame" or "lena"), task ("triage"
    or "reply"), grant (bool, the write grant for "reply"), budget (RunBudget; default limits when None),
    max_calls (int, gate limit on tool calls per run), max_replans (int >= 0), guarded (see PlanAgent).
    Returns (agent, outbox). Raises ValueError naming the planner kind when it is unknown, or naming
    max_replans when it is not an int >= 0.
    Example: agent, outbox = lab("careless", task="reply", grant=True)
    """
    if isinstance(max_replans, bool) or not isinstance(max_replans, int) or max_replans < 0:
        raise ValueError(f"max_replans must be an int >= 0, got {max_replans!r}")
    session = Session(user_id=user, tasks=USERS.get(user, ()) if isinstance(user, str) else ())
    outbox = Outbox()
    gate = ToolGate(planning_registry(outbox), planning_policy(grant_writes=grant, max_calls_per_run=max_calls))
    agent = PlanAgent(FakePlanner(planner), gate, session, task, budget or RunBudget(), ManualClock(), Ledger(),
                      max_replans=max_replans, guarded=guarded)
    return agent, outbox


class Limits(BaseModel):
    """The limits a row may set: max_steps (model calls), max_cost (a decimal string, credits), max_calls
    (tool calls, for the gate), max_replans. Strict types."""

    model_config = ConfigDict(extra="forbid", strict=True)
    max_steps: int | None = Field(default=None, gt=0)
    max_cost: CreditsText | None = Field(default=None, gt=0)
    max_calls: int | None = Field(default=None, gt=0)
    max_replans: int | None = Field(default=None, ge=0)



class Expect(BaseModel):
    """What a row expects of its run."""

    model_config = ConfigDict(extra="forbid", strict=True)
    status: Literal["done", "awaiting_approval", "stopped"]
    reason: str
    codes: list[str]
    calls: list[str]
    model_calls: int = Field(ge=0)
    emails: int = Field(ge=0)
    parked_to: str

    @field_validator("reason")
    @classmethod
    def known_reason(cls, value: str) -> str:
        return one_of(value, tuple(REASONS), "reason")

    @field_validator("codes")
    @classmethod
    def known_codes(cls, value: list[str]) -> list[str]:
        return [one_of(code, CODES, "code") for code in value]


class Row(BaseModel):
    """One row of scenarios.jsonl. Strict types: "yes" is not a bool and "3" is not an int."""

    model_config = ConfigDict(extra="forbid", strict=True)
    id: str = Field(pattern=r"^p[0-9]{2}$")
    planner: str
    user: str
    task: str
    goal: str = Field(min_length=1, max_length=300)
    grant: bool = False
    guarded: bool = True
    limits: Limits = Field(default_factory=Limits)
    expect: Expect
    why: str = Field(min_length=1)

    @field_validator("planner")
    @classmethod
    def known_planner(cls, value: str) -> str:
        return one_of(value, FakePlanner.KINDS, "planner")

    @field_validator("user")
    @classmethod
    def known_user(cls, value: str) -> str:
        return value and one_of(value, tuple(USERS), "user")  # "" stands for nobody signed in

    @field_validator("task")
    @classmethod
    def known_task(cls, value: str) -> str:
        return one_of(value, TASKS, "task")


def load_rows(path: str | Path | None = None) -> list[dict[str, Any]]:
    """Read and validate the table, one JSON object per line (blank lines skipped).

    path (str or Path; default kit/data/planning/scenarios.jsonl). Returns the rows as dicts, in order.
    Raises RowError naming the file when it cannot be read as UTF-8, and the line and the field for a row
    that is not strict JSON, not a valid Row, or repeats an id. Example: load_rows()[0]["id"] == "p01"
    """
    path = Path(path) if path is not None else PLANNING_DATA / "scenarios.jsonl"
    return [row for _, row, _ in read_jsonl(path, Row.model_validate, RowError, "planning scenario table")]


def run_row(row: dict[str, Any]) -> tuple[PlanRun, PlanAgent, Outbox]:
    """Run one row in a fresh lab. Returns (run, agent, outbox).

    Raises pydantic.ValidationError naming the field for a malformed row. Example: run_row(load_rows()[0])[0].reason
    """
    r = Row.model_validate(row)
    limits = r.limits.model_dump(exclude_none=True)
    max_calls, max_replans = limits.pop("max_calls", 10), limits.pop("max_replans", MAX_REPLANS)
    agent, outbox = lab(r.planner, user=r.user, task=r.task, grant=r.grant, budget=RunBudget(**limits),
                        max_calls=max_calls, max_replans=max_replans, guarded=GUARDED if r.guarded else frozenset())
    return agent.run(r.goal, run_id=r.id), agent, outbox


def observed(run: PlanRun, agent: PlanAgent, outbox: Outbox) -> dict[str, Any]:
    """What a row compares: status, reason, codes, calls, model_calls, emails, parked_to ("" when nothing is parked).

    Example: observed(*run_row(load_rows()[0]))["reason"] -> "done"
    """
    parked = agent.gate.pending.get(run.pending_id)
    return {"status": run.status, "reason": run.reason, "codes": [p.code for p in run.problems],
            "calls": list(run.calls), "model_calls": agent.ledger.summary().calls, "emails": len(outbox.sent),
            "parked_to": parked.call.arguments.get("to", "") if parked else ""}


def check_row(row: dict[str, Any]) -> list[str]:
    """Run a row and list how the run differs from what the row expects (empty list: it matches).

    Example: check_row(load_rows()[0]) == []
    """
    expect = Row.model_validate(row).expect
    got = observed(*run_row(row))
    return [f"{row['id']} {name}: expected {getattr(expect, name)!r}, got {value!r}"
            for name, value in got.items() if getattr(expect, name) != value]
