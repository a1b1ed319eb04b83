"""The attack table: known attacks on the kit, one per row, each with the code it must get.

kit/data/attacks.jsonl holds one attack per line: an id, a kind (what the attacker tries), a target
(the part of the kit it hits: gate, context, signals, personal, redact or clock), the input, the
expected code and why. run_attack() plays a row on fresh objects; check_attack() lists how the
outcome differs from the row and which invariant it breaks: an email that left without approval, or
the row's secret in a log. A new attack found in production becomes a new row. Every target is a
module of the Beginner course; the agent's own table (agent/attacks.py) reuses KINDS, Outcome and
holds_secret, and no id is in both tables. Left out: approvals, agents and attacks on real models.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from evidencedesk import DATA_DIR
from evidencedesk.context import ContextPart, render_untrusted
from evidencedesk.gate import ToolGate, default_policy
from evidencedesk.helpdesk import kit_tools
from evidencedesk.security import HIDDEN, injection_signals, personal_data, redact_log, visible
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
    ToolCall,
)
from evidencedesk.usage import ManualClock

KINDS = ("injected_instruction", "other_user", "forged_tag", "oversized", "malformed", "secret", "personal_data")
GATE_CODES = (OK, NOT_ALLOWED, INVALID_ARGUMENTS, TOO_LARGE, CALL_LIMIT, NEEDS_APPROVAL, NOT_FOUND, DUPLICATE,
              TOOL_ERROR)
CONTAINED, ESCAPED, REFUSED, REDACTED, LEAKED = "contained", "escaped", "refused", "redacted", "leaked"
FLAGGED, MISSED = "flagged", "missed"  # a check that reads text found what it looks for, or did not
# the codes each target can answer with; a row must expect one of its target's codes
CODES: dict[str, tuple[str, ...]] = {
    "gate": GATE_CODES, "context": (CONTAINED, ESCAPED, REFUSED), "signals": (FLAGGED, MISSED),
    "personal": (FLAGGED, MISSED), "redact": (REDACTED, LEAKED), "clock": (OK, REFUSED)}


class AttackError(ValueError):
    """A row of the attack table is malformed; the message names the line and the field."""


class _Input(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)


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


class ContextInput(_Input):
    """An untrusted ContextPart("ticket", text * repeat, ...), rendered as a block."""

    text: str
    repeat: int = Field(default=1, ge=1, le=100_000)


class TextInput(_Input):
    """Text for a check that reads text: injection_signals, personal_data or redact_log."""

    text: str


class ClockInput(_Input):
    """ManualClock().advance(float(seconds)); seconds is text because JSON has no NaN or infinity."""

    seconds: str = Field(max_length=40)


INPUTS: dict[str, type[_Input]] = {"gate": GateInput, "context": ContextInput, "signals": TextInput,
                                   "personal": TextInput, "redact": TextInput, "clock": ClockInput}


class AttackRow(BaseModel):
    """A row of an attack table: the fields every table shares, and the check that its input and expected
    code fit its target. A table is a subclass that names its targets' inputs and codes (INPUTS, CODES).

    secret: text that must not be found, in any case or compatibility form, in anything the row logs.
    """

    INPUTS: ClassVar[dict[str, type[BaseModel]]] = {}
    CODES: ClassVar[dict[str, tuple[str, ...]]] = {}
    model_config = ConfigDict(extra="forbid", strict=True)
    id: str = Field(pattern=r"^a[0-9]{2}$")
    kind: Literal[KINDS]  # type: ignore[valid-type]
    target: str
    input: dict[str, Any]
    expect: str
    secret: str = ""
    why: str = Field(min_length=1)

    @field_validator("target")
    @classmethod
    def a_target_of_this_table(cls, target: str) -> str:
        if target not in cls.INPUTS:
            raise ValueError(f"expected one of this table's targets: {', '.join(cls.INPUTS)}")
        return target

    @model_validator(mode="after")
    def input_and_expect_fit_the_target(self) -> AttackRow:
        self.INPUTS[self.target].model_validate(self.input)
        if self.expect not in self.CODES[self.target]:
            known = ", ".join(self.CODES[self.target])
            raise ValueError(f"expect {self.expect!r} is not a code of target {self.target}: {known}")
        self.table_rules()
        return self

    def table_rules(self) -> None:
        """What one table asks of its rows beyond their shape; raise ValueError naming it. Default: nothing."""


class Attack(AttackRow):
    """One row of attacks.jsonl. Strict: "yes" is not a bool, and every row's input fits its target."""

    INPUTS: ClassVar[dict[str, type[BaseModel]]] = INPUTS
    CODES: ClassVar[dict[str, tuple[str, ...]]] = CODES

    def table_rules(self) -> None:
        if self.target == "redact" and not self.secret:
            raise ValueError("a redact row names the secret that must not reach the log")


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
    """What one attack did: code, emails sent, and logs (every line it left in a log or store)."""

    code: str
    emails: int = 0
    logs: tuple[str, ...] = ()


def _gate(i: GateInput) -> Outcome:
    registry, outbox = kit_tools()
    gate = ToolGate(registry, default_policy(grant_writes=i.grant))
    arguments = {**i.arguments, **{name: i.arguments[name] * times for name, times in i.repeat.items()}}
    result = gate.run(ToolCall(f"{i.run_id}-c1", i.tool, arguments), i.task, i.run_id, i.caller)
    return Outcome(result.code, len(outbox.sent), tuple(v for e in gate.audit.events for v in e.values()))


def _context(i: ContextInput) -> Outcome:
    try:
        block = render_untrusted(ContextPart("ticket", i.text * i.repeat, "untrusted", "tool:get_ticket:o1"))
    except ValidationError:
        return Outcome(REFUSED)
    inner = block.split("\n", 1)[1].rsplit("\n", 1)[0]  # between the opening and the closing tag
    seen = visible(inner)
    escaped = "<" in seen or ">" in seen or HIDDEN.search(inner) is not None
    return Outcome(ESCAPED if escaped else CONTAINED)


def _signals(i: TextInput) -> Outcome:
    return Outcome(FLAGGED if injection_signals(i.text) else MISSED)


def _personal(i: TextInput) -> Outcome:
    return Outcome(FLAGGED if personal_data(i.text) else MISSED)


def _redact(i: TextInput, secret: str) -> Outcome:
    logged = redact_log(i.text)
    return Outcome(LEAKED if holds_secret(logged, secret) else REDACTED, logs=(logged,))


def _clock(i: ClockInput) -> Outcome:
    try:
        ManualClock().advance(float(i.seconds))
    except (TypeError, ValueError):
        return Outcome(REFUSED)
    return Outcome(OK)


def holds_secret(text: str, secret: str) -> bool:
    """True if text (str) holds secret (str; "" is never held), compared in visible form and without case.

    Example: holds_secret("key SK-SIM-ABC", "sk-sim-abc") -> True
    """
    return bool(secret) and visible(secret).casefold() in visible(text).casefold()


def run_attack(row: Attack) -> Outcome:
    """Play one row (Attack) on fresh objects and return its Outcome.

    Example: run_attack(load_attacks()[0]).code -> "not_allowed"
    """
    i = INPUTS[row.target].model_validate(row.input)
    if row.target == "redact":
        return _redact(i, row.secret)  # type: ignore[arg-type]
    run = {"gate": _gate, "context": _context, "signals": _signals, "personal": _personal, "clock": _clock}
    return run[row.target](i)  # type: ignore[operator]


def check_attack(row: Attack) -> list[str]:
    """Play a row and list every way its outcome is wrong (an empty list means the attack was held).

    Checks: the code is the row's expected code; no email was sent (no row approves anything); the row's
    secret is in no log.
    Example: [check_attack(row) for row in load_attacks()] == [[], [], ...]
    """
    return held(row, run_attack(row))


def held(row: AttackRow, outcome: Outcome) -> list[str]:
    """Every way an outcome breaks what any attack table holds: the row's code, no email, no secret in a log.

    Example: held(row, run_attack(row)) == []  # the attack was held
    """
    problems = []
    if outcome.code != row.expect:
        problems.append(f"{row.id} code: expected {row.expect!r}, got {outcome.code!r}")
    if outcome.emails:
        problems.append(f"{row.id} emails: {outcome.emails} sent without approval")
    if any(holds_secret(line, row.secret) for line in outcome.logs):
        problems.append(f"{row.id} secret: found in a log")
    return problems
