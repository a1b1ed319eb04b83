"""The agent's attack table: known attacks on the agent loop and its memory, each with the code it must get.

kit/data/agent/attacks.jsonl holds one attack per line, in the format of the kit's own attack table
(attacks.py, kit/data/attacks.jsonl): an id, a kind (attacks.KINDS), a target (memory or agent), the
input, the expected code and why; no id is in both tables. run_attack() plays a row on fresh
objects: a SessionMemory write, or an agent from scenarios.lab with a fake model. check_attack()
lists how the outcome differs from the row and which invariant it breaks: an email that left without
approval, the row's secret in a log, the trace or memory, or a refusal the gate had to make because
the agent's own checks let the call through. run_replies() plays any model replies through the
agent, for property tests. Left out: approvals (approval.py) and attacks on real models.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, fields
from pathlib import Path
from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field

from evidencedesk.agent.fakes import FAKE_MODEL, FakeModel
from evidencedesk.agent.loop import Agent, ModelDecider, RunBudget
from evidencedesk.agent.memory import WRITE_CODES, SessionMemory
from evidencedesk.agent.scenarios import AGENT_DATA, lab
from evidencedesk.agent.state import REASONS
from evidencedesk.attacks import AttackError, AttackRow, Outcome, held
from evidencedesk.helpdesk import Outbox
from evidencedesk.llm import ScriptedClient
from evidencedesk.strictjson import read_jsonl
from evidencedesk.tools import INVALID_ARGUMENTS, NOT_ALLOWED, TOO_LARGE
from evidencedesk.usage import ManualClock

# the codes each target can answer with; a row must expect one of its target's codes
CODES: dict[str, tuple[str, ...]] = {"memory": WRITE_CODES, "agent": tuple(REASONS)}
# refusals the gate should never have to make for an agent: its own checks catch these first. A tool the task may
# use but whose write grant is missing is the exception: grants are checked by the gate alone.
CHECKED_BEFORE_THE_GATE = (NOT_ALLOWED, INVALID_ARGUMENTS, TOO_LARGE)
REPLIES_GOAL = "Read T-602 and reply to it."  # the goal run_replies gives the agent


class _Input(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)


class MemoryInput(_Input):
    """A SessionMemory("kwame", ...).write(key, text * repeat, source, about)."""

    key: str
    text: str
    source: str
    about: str | None = None
    repeat: int = Field(default=1, ge=1, le=100_000)


class AgentInput(_Input):
    """An agent from scenarios.lab with a fake model (a FakeModel kind), run for one goal."""

    model: str
    goal: str = Field(min_length=1, max_length=300)
    task: str = "triage"
    grant: bool = False
    user: str = "kwame"


INPUTS: dict[str, type[_Input]] = {"memory": MemoryInput, "agent": AgentInput}


class Attack(AttackRow):
    """One row of agent/attacks.jsonl. Strict, like attacks.Attack: every row's input fits its target.

    secret: text that must not be found, in any case or compatibility form, in anything the row logs.
    Example: Attack(id="a98", kind="malformed", target="agent", input={"model": "garbage", "goal": "Hi."},
    expect="stuck", why="not JSON")
    """

    INPUTS: ClassVar[dict[str, type[BaseModel]]] = INPUTS
    CODES: ClassVar[dict[str, tuple[str, ...]]] = CODES

    def table_rules(self) -> None:
        if self.target == "agent" and self.input["model"] not in FakeModel.KINDS:
            raise ValueError(f"unknown model {self.input['model']!r}; known: {', '.join(FakeModel.KINDS)}")


def load_attacks(path: str | Path | None = None) -> list[Attack]:
    """Read and validate the agent's attack table, one JSON object per line (blank lines skipped).

    path (str or Path; default kit/data/agent/attacks.jsonl). Returns the rows as Attack models, in order.
    Raises attacks.AttackError naming the file, and the line and field for a row that is not strict JSON,
    not a valid Attack, or has a repeated id.
    Example: load_attacks()[0].id -> "a01"
    """
    path = Path(path) if path is not None else AGENT_DATA / "attacks.jsonl"
    return [attack for _, _, attack in read_jsonl(path, Attack.model_validate, AttackError, "agent attack table")]


@dataclass(frozen=True)
class AgentOutcome(Outcome):
    """An Outcome plus, for an agent run, the refusals the gate made that the agent's checks should have
    made first, as (tool, code) pairs."""

    gate_refusals: tuple[tuple[str, str], ...] = ()


def _memory(i: MemoryInput) -> AgentOutcome:
    memory = SessionMemory("kwame", ManualClock())
    code = memory.write(i.key, i.text * i.repeat, i.source, i.about).code
    return AgentOutcome(code, logs=tuple(n.text for n in memory.notes()))


def _agent(i: AgentInput, agent_class: type[Agent]) -> AgentOutcome:
    built, outbox = lab(model=i.model, user=i.user, task=i.task, grant=i.grant)
    return _run_agent(built, outbox, agent_class, i.goal)


def _run_agent(built: Agent, outbox: Outbox, agent_class: type[Agent], goal: str) -> AgentOutcome:
    """Rebuild built as an agent_class with the same parts, run it for goal, and collect its AgentOutcome."""
    agent = agent_class(**{f.name: getattr(built, f.name) for f in fields(Agent)})
    run = agent.run(goal)
    events = agent.gate.audit.events
    memory = agent.memory.notes() if agent.memory is not None else []
    logs = (*run.trace.lines(), *(v for e in events for v in e.values()), *(n.text for n in memory))
    usable = agent.gate.policy.tools_for(agent.task) & agent.gate.registry.names()
    refusals = tuple((e["tool"], e["outcome"]) for e in events if e["outcome"] in CHECKED_BEFORE_THE_GATE
                     and not (e["outcome"] == NOT_ALLOWED and e["tool"] in usable))  # usable: a missing grant
    return AgentOutcome(run.reason, len(outbox.sent), logs, refusals)


def run_replies(replies: list[str], task: str = "reply", grant: bool = True,
                agent_class: type[Agent] = Agent) -> AgentOutcome:
    """Run an agent whose model answers with replies, in order: any text a model could send back.

    The run may take at most len(replies) steps, so the script never runs out. replies (list of str);
    task ("triage" or "reply"); grant (bool, the email write for "reply"); agent_class (Agent or a subclass).
    Returns the AgentOutcome: the run's reason, emails sent, logs, and the gate's refusals.
    Example: run_replies(['{"action": "call", "tool": "get_ticket", "arguments": {}}']).code -> "step_budget"
    """
    decider = ModelDecider(ScriptedClient(list(replies), model=FAKE_MODEL))
    built, outbox = lab(decider=decider, task=task, grant=grant, budget=RunBudget(max_steps=max(1, len(replies))))
    return _run_agent(built, outbox, agent_class, REPLIES_GOAL)


def run_attack(row: Attack, agent_class: type[Agent] = Agent) -> AgentOutcome:
    """Play one row on fresh objects and return its AgentOutcome.

    row (Attack); agent_class (a subclass of Agent, for agent rows; use it to test a changed agent).
    Example: run_attack(load_attacks()[0]).code -> "done"
    """
    i = INPUTS[row.target].model_validate(row.input)
    if isinstance(i, AgentInput):
        return _agent(i, agent_class)
    return _memory(i)  # type: ignore[arg-type]


def check_attack(row: Attack, agent_class: type[Agent] = Agent) -> list[str]:
    """Play a row and list every way its outcome is wrong (an empty list means the attack was held).

    Checks: the code is the row's expected code; no email was sent (no row approves anything); the row's
    secret is in no log; and for agent rows, the gate refused nothing that the agent's checks should have
    refused first (a second layer that does all the work means the first one is gone).
    Example: [check_attack(row) for row in load_attacks()] == [[], [], ...]
    """
    outcome = run_attack(row, agent_class)
    problems = held(row, outcome)
    problems += [f"{row.id} gate refused {tool} as {code} ({times}x): the agent's checks let it through"
                 for (tool, code), times in Counter(outcome.gate_refusals).items()]
    return problems
