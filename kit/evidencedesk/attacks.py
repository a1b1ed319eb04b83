"""The attack table: known attacks on the kit, one per row, each with the code it must get.

kit/data/attacks.jsonl holds one attack per line: an id, a kind (what the attacker tries), a target
(the part of the kit it hits: memory, gate, agent, context, redact or clock), the input, the
expected code and why. run_attack() plays a row on fresh objects; check_attack() lists how the
outcome differs from the row and which invariant it breaks: an email that left without approval,
the row's secret in a log, or a refusal the gate had to make because the agent's own checks let the
call through. A new attack found in production becomes a new row. Left out: approvals (the next
course page) and attacks on real models.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from evidencedesk import DATA_DIR
from evidencedesk.agent.fakes import FAKE_MODEL, FakeModel
from evidencedesk.agent.loop import Agent, ModelDecider, RunBudget
from evidencedesk.agent.memory import WRITE_CODES, SessionMemory
from evidencedesk.agent.scenarios import lab
from evidencedesk.agent.state import REASONS
from evidencedesk.context import ContextPart, render_untrusted
from evidencedesk.gate import ToolGate, default_policy
from evidencedesk.llm import ScriptedClient
from evidencedesk.security import HIDDEN, redact_log, visible
from evidencedesk.strictjson import read_jsonl
from evidencedesk.tools import (
    CALL_LIMIT,
    DUPLICATE,
    INVALID_ARGUMENTS,
    NEEDS_APPROVAL,
    NOT_ALLOWED,
    NOT_FOUND,
    OK,
    TOO_LARGE,
    TOOL_ERROR,
    Outbox,
    ToolCall,
    kit_tools,
)
from evidencedesk.usage import ManualClock

KINDS = ("injected_instruction", "other_user", "forged_tag", "oversized", "malformed", "secret", "personal_data")
GATE_CODES = (OK, NOT_ALLOWED, INVALID_ARGUMENTS, TOO_LARGE, CALL_LIMIT, NEEDS_APPROVAL, NOT_FOUND, DUPLICATE,
              TOOL_ERROR)
CONTAINED, ESCAPED, REFUSED, REDACTED, LEAKED = "contained", "escaped", "refused", "redacted", "leaked"
# the codes each target can answer with; a row must expect one of its target's codes
CODES: dict[str, tuple[str, ...]] = {
    "memory": WRITE_CODES, "gate": GATE_CODES, "agent": tuple(REASONS), "context": (CONTAINED, ESCAPED, REFUSED),
    "redact": (REDACTED, LEAKED), "clock": (OK, REFUSED)}
# refusals the gate should never have to make for an agent: its own checks catch these first. A tool the task may
# use but whose write grant is missing is the exception: grants are checked by the gate alone.
CHECKED_BEFORE_THE_GATE = (NOT_ALLOWED, INVALID_ARGUMENTS, TOO_LARGE)


class AttackError(ValueError):
    """A row of the attack table is malformed; the message names the line and the field."""


class _Input(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)


class MemoryInput(_Input):
    """A SessionMemory("kwame", ...).write(key, text * repeat, source, about)."""

    key: str
    text: str
    source: str
    about: str | None = None
    repeat: int = Field(default=1, ge=1, le=100_000)


class GateInput(_Input):
    """A ToolGate over the kit's tools: run ToolCall(tool, arguments) for task, run_id and caller.

    repeat: {"argument": n} repeats that (string) argument n times, for oversized input."""

    tool: str
    arguments: dict[str, Any]
    task: str = "triage"
    caller: str = "kwame"
    run_id: str = "run-1"
    grant: bool = False
    repeat: dict[str, int] = Field(default_factory=dict)


class AgentInput(_Input):
    """An agent from agent.scenarios.lab with a fake model, run for one goal."""

    model: str
    goal: str = Field(min_length=1, max_length=300)
    task: str = "triage"
    grant: bool = False
    user: str = "kwame"


class ContextInput(_Input):
    """An untrusted ContextPart("ticket", text * repeat, ...), rendered as a block."""

    text: str
    repeat: int = Field(default=1, ge=1, le=100_000)


class TextInput(_Input):
    """Text for redact_log."""

    text: str


class ClockInput(_Input):
    """ManualClock().advance(float(seconds)); seconds is text because JSON has no NaN or infinity."""

    seconds: str = Field(max_length=40)


INPUTS: dict[str, type[_Input]] = {"memory": MemoryInput, "gate": GateInput, "agent": AgentInput,
                                   "context": ContextInput, "redact": TextInput, "clock": ClockInput}


class Attack(BaseModel):
    """One row of attacks.jsonl. Strict: "yes" is not a bool, and every row's input fits its target.

    secret: text that must not be found, in any case or compatibility form, in anything the row logs.
    """

    model_config = ConfigDict(extra="forbid", strict=True)
    id: str = Field(pattern=r"^a[0-9]{2}$")
    kind: Literal[KINDS]  # type: ignore[valid-type]
    target: Literal[tuple(INPUTS)]  # type: ignore[valid-type]
    input: dict[str, Any]
    expect: str
    secret: str = ""
    why: str = Field(min_length=1)

    @model_validator(mode="after")
    def input_and_expect_fit_the_target(self) -> Attack:
        INPUTS[self.target].model_validate(self.input)
        if self.expect not in CODES[self.target]:
            known = ", ".join(CODES[self.target])
            raise ValueError(f"expect {self.expect!r} is not a code of target {self.target}: {known}")
        if self.target == "redact" and not self.secret:
            raise ValueError("a redact row names the secret that must not reach the log")
        if self.target == "agent" and self.input["model"] not in FakeModel.KINDS:
            raise ValueError(f"unknown model {self.input['model']!r}; known: {', '.join(FakeModel.KINDS)}")
        return self


def load_attacks(path: str | Path | None = None) -> list[Attack]:
    """Read and validate the attack table, one JSON object per line (blank lines skipped).

    path (str or Path; default kit/data/attacks.jsonl). Returns the rows as Attack models, in order.
    Raises AttackError naming the file, and the line and field for a row that is not strict JSON, not a
    valid Attack, or has a repeated id.
    Example: load_attacks()[0].id -> "a01"
    """
    path = Path(path) if path is not None else DATA_DIR / "attacks.jsonl"
    return [attack for _, _, attack in read_jsonl(path, Attack.model_validate, AttackError, "attack table")]


@dataclass(frozen=True)
class Outcome:
    """What one attack did: code, emails sent, logs (every line it left in a log or store), and, for an agent
    run, the refusals the gate made that the agent's checks should have made first (tool, code)."""

    code: str
    emails: int = 0
    logs: tuple[str, ...] = ()
    gate_refusals: tuple[tuple[str, str], ...] = ()


def _memory(i: MemoryInput) -> Outcome:
    memory = SessionMemory("kwame", ManualClock())
    code = memory.write(i.key, i.text * i.repeat, i.source, i.about).code
    return Outcome(code, logs=tuple(n.text for n in memory.notes()))


def _gate(i: GateInput) -> Outcome:
    registry, outbox = kit_tools()
    gate = ToolGate(registry, default_policy(grant_writes=i.grant))
    arguments = {**i.arguments, **{name: i.arguments[name] * times for name, times in i.repeat.items()}}
    result = gate.run(ToolCall(f"{i.run_id}-c1", i.tool, arguments), i.task, i.run_id, i.caller)
    return Outcome(result.code, len(outbox.sent), tuple(v for e in gate.audit.events for v in e.values()))


def _agent(i: AgentInput, agent_class: type[Agent]) -> Outcome:
    built, outbox = lab(model=i.model, user=i.user, task=i.task, grant=i.grant)
    return _run_agent(built, outbox, agent_class, i.goal)


def _run_agent(built: Agent, outbox: Outbox, agent_class: type[Agent], goal: str) -> Outcome:
    """Rebuild built as an agent_class with the same parts, run it for goal, and collect its Outcome."""
    agent = agent_class(**{f.name: getattr(built, f.name) for f in fields(Agent)})
    run = agent.run(goal)
    events = agent.gate.audit.events
    memory = agent.memory.notes() if agent.memory is not None else []
    logs = (*run.trace.lines(), *(v for e in events for v in e.values()), *(n.text for n in memory))
    usable = agent.gate.policy.tools_for(agent.task) & agent.gate.registry.names()
    refusals = tuple((e["tool"], e["outcome"]) for e in events if e["outcome"] in CHECKED_BEFORE_THE_GATE
                     and not (e["outcome"] == NOT_ALLOWED and e["tool"] in usable))  # usable: a missing grant
    return Outcome(run.reason, len(outbox.sent), logs, refusals)


def run_replies(replies: list[str], task: str = "reply", grant: bool = True,
                agent_class: type[Agent] = Agent) -> Outcome:
    """Run an agent whose model answers with replies, in order: any text a model could send back.

    The run may take at most len(replies) steps, so the script never runs out. replies (list of str);
    task ("triage" or "reply"); grant (bool, the email write for "reply"); agent_class (Agent or a subclass).
    Returns the Outcome: the run's reason, emails sent, logs, and the gate's refusals.
    Example: run_replies(['{"action": "call", "tool": "get_ticket", "arguments": {}}']).code -> "step_budget"
    """
    decider = ModelDecider(ScriptedClient(list(replies), model=FAKE_MODEL))
    built, outbox = lab(decider=decider, task=task, grant=grant, budget=RunBudget(max_steps=max(1, len(replies))))
    return _run_agent(built, outbox, agent_class, "Read T-602 and reply to it.")


def _context(i: ContextInput) -> Outcome:
    try:
        block = render_untrusted(ContextPart("ticket", i.text * i.repeat, "untrusted", "tool:get_ticket:o1"))
    except ValidationError:
        return Outcome(REFUSED)
    inner = block.split("\n", 1)[1].rsplit("\n", 1)[0]  # between the opening and the closing tag
    seen = visible(inner)
    escaped = "<" in seen or ">" in seen or HIDDEN.search(inner) is not None
    return Outcome(ESCAPED if escaped else CONTAINED)


def _redact(i: TextInput, secret: str) -> Outcome:
    logged = redact_log(i.text)
    return Outcome(LEAKED if _holds(logged, secret) else REDACTED, logs=(logged,))


def _clock(i: ClockInput) -> Outcome:
    try:
        ManualClock().advance(float(i.seconds))
    except (TypeError, ValueError):
        return Outcome(REFUSED)
    return Outcome(OK)


def _holds(text: str, secret: str) -> bool:
    """True if text holds secret, compared in visible form and without case."""
    return bool(secret) and visible(secret).casefold() in visible(text).casefold()


def run_attack(row: Attack, agent_class: type[Agent] = Agent) -> Outcome:
    """Play one row on fresh objects and return its Outcome.

    row (Attack); agent_class (a subclass of Agent, for agent rows; use it to test a changed agent).
    Example: run_attack(load_attacks()[0]).code -> "done"
    """
    i = INPUTS[row.target].model_validate(row.input)
    if isinstance(i, AgentInput):
        return _agent(i, agent_class)
    if isinstance(i, TextInput):
        return _redact(i, row.secret)
    run = {MemoryInput: _memory, GateInput: _gate, ContextInput: _context, ClockInput: _clock}[type(i)]
    return run(i)  # type: ignore[operator]


def check_attack(row: Attack, agent_class: type[Agent] = Agent) -> list[str]:
    """Play a row and list every way its outcome is wrong (an empty list means the attack was held).

    Checks: the code is the row's expected code; no email was sent (no row approves anything); the row's
    secret is in no log; and for agent rows, the gate refused nothing that the agent's checks should have
    refused first (a second layer that does all the work means the first one is gone).
    Example: [check_attack(row) for row in load_attacks()] == [[], [], ...]
    """
    outcome = run_attack(row, agent_class)
    problems = []
    if outcome.code != row.expect:
        problems.append(f"{row.id} code: expected {row.expect!r}, got {outcome.code!r}")
    if outcome.emails:
        problems.append(f"{row.id} emails: {outcome.emails} sent without approval")
    if any(_holds(line, row.secret) for line in outcome.logs):
        problems.append(f"{row.id} secret: found in a log")
    problems += [f"{row.id} gate refused {tool} as {code} ({times}x): the agent's checks let it through"
                 for (tool, code), times in Counter(outcome.gate_refusals).items()]
    return problems
