"""Checkpoints: a paused run saved to a JSON file, so that another process can decide on it and resume it.

A checkpoint holds what the run needs after a restart: its state (AgentState), the parked call (the
gate's pending action) and its approval request, the desk's approver list and time limit, the
highest pending id handed out, the memory, the ledger's usage records, the audit log, the clock
reading, and the user, task and write grant the run had. The file is signed with an HMAC (SHA-256)
under a key that the application keeps outside the file, so load() refuses a file edited by hand
as TAMPERED before reading anything in it; then every part is validated strictly (BAD_CHECKPOINT)
and the memory notes go through the write rules again, as for a memory file. save() validates the
same way before it writes, so a file it wrote always loads.

decide() and resume() each load the file, act once and save it again. The decision and what it ran
are written into the file, so resuming it a second time finds the run finished and runs nothing.
Two processes may act on one file at the same moment: save() replaces the file only if it is still
the one that was loaded (compared under a lock on the folder, locks.py), and otherwise refuses as
CHANGED; decide() and resume() then start again from the newer file. The email a loaded checkpoint
sends goes through the folder's send log (sendlog.py), and every decision is recorded in the folder's
decision log (decisionlog.py), both shared by every process and every copy of the file in that folder:
a request declined on one copy cannot be approved on another. Left out: encryption of the contents, and rotating the key.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from evidencedesk.agent.approval import (
    ALREADY_DECIDED,
    APPROVED,
    APPROVERS,
    CANCELLED,
    DECLINED,
    ApprovalDesk,
    Request,
    Verdict,
    audit,
    settle,
)
from evidencedesk.agent.decisionlog import DECISION_LOG, DecisionLog, DecisionLogError
from evidencedesk.agent.locks import locked
from evidencedesk.agent.loop import Agent
from evidencedesk.agent.memory import MemoryFileError, SessionMemory
from evidencedesk.agent.scenarios import lab_registry
from evidencedesk.agent.sendlog import SEND_LOG, SendLog
from evidencedesk.agent.state import AWAITING, AgentState
from evidencedesk.gate import LINE_BREAKING, AuditLog, PendingAction, ToolGate, default_policy
from evidencedesk.helpdesk import Outbox
from evidencedesk.security import Session
from evidencedesk.strictjson import read_json
from evidencedesk.tools import ToolCall
from evidencedesk.usage import Ledger, ManualClock, UsageRecord

FORMAT = "evidencedesk-checkpoint/2"  # /2 adds the approver list, the time limit and the highest pending id
MAX_AUDIT_EVENTS = 100_000  # audit events a checkpoint may carry; save() refuses more by name, load() too
MAX_TRIES = 5  # times decide() and resume() start again when another process saved the file first
HMAC_HEX = re.compile(r"^[0-9a-f]{64}$")  # the shape of a signature: anything else is tampered, not a crash
AUDIT_FIELDS = frozenset({"run_id", "call_id", "tool", "task", "caller", "outcome", "detail"})
# Invented for the course: a real key comes from a secret store, never from the code or the file.
SIMULATED_CHECKPOINT_KEY = b"simulated-checkpoint-key-not-for-production"

# Why a file is refused (CheckpointError.code)
UNREADABLE = "unreadable"  # missing, not UTF-8, or not strict JSON
TAMPERED = "tampered"  # no signature, or one that does not match the contents
BAD_CHECKPOINT = "bad_checkpoint"  # signed, but a part is malformed or the parts disagree
CHANGED = "changed"  # another process saved the file after this one loaded it: nothing was overwritten

# What resume() did (Resumed.code)
RESUMED = "resumed"  # the decision was applied: the run is done or stopped now
UNDECIDED = "undecided"  # nobody has decided and time is left: the run keeps waiting, nothing runs
ALREADY_FINISHED = "already_finished"  # resumed before (or never waiting): nothing runs again


class CheckpointError(ValueError):
    """A checkpoint file that is refused. code: UNREADABLE, TAMPERED or BAD_CHECKPOINT; the message
    starts with the file's name (never its full path) and the code.

    Example: CheckpointError("tampered", "run.json", "the signature does not match").code == "tampered"
    """

    def __init__(self, code: str, name: str, problem: str) -> None:
        super().__init__(f"{name}: {code}: {problem}")
        self.code = code


class _Saved(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, frozen=True)


class SavedCall(_Saved):
    """The parked ToolCall: id, tool name and arguments (validated by the tool's schema when it runs)."""

    id: str = Field(min_length=1, max_length=40)
    name: str = Field(min_length=1, max_length=40)
    arguments: dict[str, Any]


class SavedPending(_Saved):
    """The gate's PendingAction for the parked call."""

    id: str = Field(pattern=r"^pa-[1-9][0-9]{0,5}$")
    call: SavedCall
    run_id: str = Field(max_length=20)
    task: str = Field(max_length=40)
    caller: str = Field(max_length=40)
    status: Literal["pending", "sent", "declined", "failed"]


class SavedUsage(_Saved):
    """One UsageRecord of the ledger (tokens)."""

    call_id: str = Field(max_length=40)
    model: str = Field(max_length=80)
    input_tokens: int = Field(ge=0)
    output_tokens: int = Field(ge=0)


class Body(BaseModel):
    """Everything a checkpoint holds, checked as a whole; the parts must agree with each other."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, frozen=True)
    user: str = Field(min_length=1, max_length=40, strict=True)
    task: str = Field(min_length=1, max_length=40, strict=True)
    grant: bool = Field(strict=True)
    clock: float = Field(ge=0, strict=True)
    state: AgentState
    pending: SavedPending | None
    request: Request | None
    approvers: dict[str, list[str]]
    ttl_s: float = Field(gt=0, strict=True)
    issued: int = Field(ge=0, strict=True)
    memory: dict[str, Any] | None
    ledger: list[SavedUsage]
    audit: list[dict[str, str]] = Field(max_length=MAX_AUDIT_EVENTS)

    @model_validator(mode="after")
    def parts_agree(self) -> Body:
        if any(set(event) != AUDIT_FIELDS or any(LINE_BREAKING.search(v) for v in event.values())
               for event in self.audit):
            raise ValueError("an audit event has other fields, or a value that breaks its line")
        if (self.state.user_id, self.state.task) != (self.user, self.task):
            raise ValueError("the state belongs to another user or task")
        if self.state.status == AWAITING and not (self.request and self.request.id == self.state.pending_id):
            raise ValueError("a waiting run needs the request for its pending action")
        if (self.pending is None) != (self.request is None):
            raise ValueError("a pending action and its request come together")
        if self.pending and self.request and (self.pending.id, self.pending.run_id, self.pending.call.name) != (
                self.request.id, self.request.run_id, self.request.tool):
            raise ValueError("the pending action and its request disagree")
        if self.pending and int(self.pending.id.removeprefix("pa-")) > self.issued:
            raise ValueError("the pending action has an id that was never handed out")
        return self


def _signature(body: dict[str, Any], key: bytes) -> str:
    """HMAC-SHA256 of the body's canonical JSON (sorted keys, no spaces), as hex."""
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hmac.new(key, canonical.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()


@dataclass
class Checkpoint:
    """A paused run, in memory: what save() writes and load() gives back, with a desk to decide on it.

    state (AgentState), desk (ApprovalDesk over a gate that holds the pending action and the audit
    log), memory (SessionMemory or None), ledger (Ledger), clock (ManualClock), user, task (str),
    loaded (str or None: the signature of the file it was loaded from; save() replaces only that file).
    Example: Checkpoint.of(agent, run.state, desk).save(path)
    """

    state: AgentState
    desk: ApprovalDesk
    memory: SessionMemory | None
    ledger: Ledger
    clock: ManualClock
    user: str
    task: str
    loaded: str | None = None

    @classmethod
    def of(cls, agent: Agent, state: AgentState, desk: ApprovalDesk) -> Checkpoint:
        """The checkpoint of a live run: agent (its gate, memory, ledger and clock), state, desk.

        Raises TypeError when the agent's clock is not a ManualClock (the kit's only clock).
        """
        if not isinstance(agent.clock, ManualClock):
            raise TypeError(f"a checkpoint needs the agent's ManualClock, got {type(agent.clock).__name__}")
        return cls(state, desk, agent.memory, agent.ledger, agent.clock, agent.session.user_id, agent.task)

    def body(self) -> dict[str, Any]:
        """The JSON data of this checkpoint, before signing."""
        request = self.desk.requests.get(self.state.pending_id) or next(
            (r for r in self.desk.requests.values() if r.run_id == self.state.run_id), None)
        action = self.desk.gate.pending.get(request.id) if request else None
        return {
            "user": self.user, "task": self.task, "grant": self.desk.gate.policy.may_write(self.task),
            "clock": self.clock(), "state": self.state.model_dump(mode="json"),
            "pending": action and {"id": action.id, "run_id": action.run_id, "task": action.task,
                                   "caller": action.caller, "status": action.status,
                                   "call": {"id": action.call.id, "name": action.call.name,
                                            "arguments": action.call.arguments}},
            "request": request and request.model_dump(mode="json"),
            "approvers": {tool: sorted(people) for tool, people in sorted(self.desk.approvers.items())},
            "ttl_s": float(self.desk.ttl_s), "issued": self.desk.gate.issued,
            "memory": self.memory.dump() if self.memory is not None else None,
            "ledger": [{"call_id": r.call_id, "model": r.model, "input_tokens": r.input_tokens,
                        "output_tokens": r.output_tokens} for r in self.ledger.records],
            "audit": list(self.desk.gate.audit.events),
        }

    def save(self, path: str | Path, key: bytes = SIMULATED_CHECKPOINT_KEY) -> None:
        """Write the signed checkpoint to path, atomically (a temporary file, then a rename).

        The body is validated as load() validates it first, so a file save() wrote always loads. A
        checkpoint that was loaded replaces its file only if the file is still the one it was loaded
        from; the check and the rename happen under a lock on the folder (locks.py).
        Raises CheckpointError naming the file: BAD_CHECKPOINT (nothing written) when the body would not
        load, CHANGED (nothing written) when another process saved the file since; OSError when the
        folder cannot be written.
        Example: checkpoint.save(Path(folder) / "run.json")
        """
        path = Path(path)
        body = self.body()
        _validated(body, path.name, "cannot save it: ")
        signature = _signature(body, key)
        text = json.dumps({"format": FORMAT, "body": body, "hmac": signature}, indent=1, sort_keys=True,
                          ensure_ascii=True)  # any text, lone surrogates included, writes as ASCII
        with locked(path.parent):  # no other save in this folder compares or renames until this one is done
            if self.loaded is not None and _signature_on_disk(path) != self.loaded:
                raise CheckpointError(CHANGED, path.name, "another process saved it after it was loaded; "
                                                          "nothing was overwritten")
            scratch = path.with_name(path.name + ".tmp")
            scratch.write_text(text + "\n", encoding="ascii")
            os.replace(scratch, path)  # a reader sees the old file or the new one, never half of one
        self.loaded = signature

    @classmethod
    def load(cls, path: str | Path, *, outbox: Outbox | None = None, approvers: dict[str, frozenset[str]] = APPROVERS,
             key: bytes = SIMULATED_CHECKPOINT_KEY) -> Checkpoint:
        """Read, verify and rebuild a checkpoint written by save().

        outbox (Outbox or None): the mail service this process sends through (default: a new one); the
        rebuilt email tool reaches it only through the folder's send log (SendLog, SEND_LOG), which every
        process shares. approvers (mapping tool -> user ids): the application's list; the desk gets the
        saved list narrowed to it, so a checkpoint never widens who may approve.
        The signature is checked before anything else is read; then the body is validated strictly
        and the memory notes pass through the write rules again (refused notes are in memory.refused).
        Raises CheckpointError naming the file: UNREADABLE, TAMPERED or BAD_CHECKPOINT.
        Example: Checkpoint.load(Path(folder) / "run.json").state.status == "awaiting_approval"
        """
        path = Path(path)
        try:
            data = read_json(path)
        except (OSError, ValueError) as exc:  # UnicodeDecodeError is a ValueError
            raise CheckpointError(UNREADABLE, path.name, f"cannot read it as JSON ({type(exc).__name__})") from exc
        if not (isinstance(data, dict) and set(data) == {"format", "body", "hmac"} and data["format"] == FORMAT
                and isinstance(data["body"], dict) and isinstance(data["hmac"], str)):
            raise CheckpointError(UNREADABLE, path.name, f"not a {FORMAT} file")
        if not (HMAC_HEX.fullmatch(data["hmac"])
                and hmac.compare_digest(data["hmac"], _signature(data["body"], key))):
            raise CheckpointError(TAMPERED, path.name, "the signature does not match the contents")
        body = _validated(data["body"], path.name)
        mail = SendLog(path.parent / SEND_LOG, outbox if outbox is not None else Outbox())
        checkpoint = cls._rebuild(body, path.name, mail, approvers)
        checkpoint.loaded = data["hmac"]
        return checkpoint

    @classmethod
    def _rebuild(cls, body: Body, name: str, outbox: Outbox | SendLog,
                 approvers: dict[str, frozenset[str]]) -> Checkpoint:
        """Live objects from a validated body: clock, memory, ledger, a gate with the pending action, a desk."""
        clock = ManualClock(body.clock)
        try:
            memory = None if body.memory is None else SessionMemory.restore(
                body.memory, clock, owner=body.user, where=f"{name}: memory")
        except MemoryFileError as exc:
            raise CheckpointError(BAD_CHECKPOINT, name, str(exc).removeprefix(f"{name}: ")) from exc
        ledger = Ledger()
        try:
            for usage in body.ledger:
                ledger.add(UsageRecord(usage.call_id, usage.model, usage.input_tokens, usage.output_tokens))
        except LookupError as exc:  # UnknownModel: a model the price table no longer lists
            raise CheckpointError(BAD_CHECKPOINT, name, f"ledger: {exc}") from exc
        gate = ToolGate(lab_registry(outbox), default_policy(grant_writes=body.grant),  # type: ignore[arg-type]
                        AuditLog(list(body.audit)))
        gate.issued = body.issued  # a write parked after the load gets an id no saved request names
        requests = {}
        if body.pending and body.request:
            p = body.pending
            gate.pending[p.id] = PendingAction(p.id, ToolCall(p.call.id, p.call.name, dict(p.call.arguments)),
                                               p.run_id, p.task, p.caller, p.status)
            requests[body.request.id] = body.request
        narrowed = {tool: frozenset(people) & approvers.get(tool, frozenset()) for tool, people in body.approvers.items()}
        desk = ApprovalDesk(gate, clock, approvers=narrowed, ttl_s=body.ttl_s, requests=requests)
        return cls(body.state, desk, memory, ledger, clock, body.user, body.task)


def _validated(body: object, name: str, prefix: str = "") -> Body:
    """body checked as a Body; raises CheckpointError(BAD_CHECKPOINT) naming the file and the first field."""
    try:
        return Body.model_validate(body)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "body"
        raise CheckpointError(BAD_CHECKPOINT, name, f"{prefix}{field}: {first['msg']}") from exc


def _signature_on_disk(path: Path) -> str | None:
    """The hmac field of the file at path now, or None when there is no readable checkpoint there."""
    try:
        data = read_json(path)
    except (OSError, ValueError):
        return None
    return data.get("hmac") if isinstance(data, dict) and isinstance(data.get("hmac"), str) else None


class Resumed(NamedTuple):
    """What resume() did: code (RESUMED, UNDECIDED or ALREADY_FINISHED) and the run's state now."""

    code: str
    state: AgentState


def resume(path: str | Path, *, after_s: float = 0.0, key: bytes = SIMULATED_CHECKPOINT_KEY) -> Resumed:
    """Continue a paused run from its checkpoint file, apply the decision once, and save the file again.

    path (checkpoint file), after_s (float, seconds that pass on the run's clock before resuming).
    A waiting run whose request was decided (or has expired) settles: approved -> done, citing what
    the approval ran; declined or expired -> denied; cancelled -> cancelled. Nothing runs here: the
    approval ran the action. Every resume is audited. When another process saved the file meanwhile
    (a decision, say), the resume starts again from that file, so the decision is never overwritten.
    Returns Resumed. Raises CheckpointError naming the file when it is refused (CHANGED after MAX_TRIES).
    Example: resume(Path(folder) / "run.json").state.status == "done"
    """
    return _again(lambda: _resume_once(path, after_s, key), path)


def _resume_once(path: str | Path, after_s: float, key: bytes) -> Resumed:
    checkpoint = Checkpoint.load(path, key=key)
    checkpoint.clock.advance(after_s)
    state, desk = checkpoint.state, checkpoint.desk
    if state.status != AWAITING:
        code = ALREADY_FINISHED
    else:
        desk.expire(state.pending_id)  # the time may have run out while nobody decided
        checkpoint.state = settle(state, desk.requests[state.pending_id])
        code = UNDECIDED if checkpoint.state.status == AWAITING else RESUMED
    request = desk.requests.get(state.pending_id) or next(iter(desk.requests.values()), None)
    audit(desk.gate.audit, request, state.user_id, code, f"status {checkpoint.state.status}")
    checkpoint.save(path, key)
    return Resumed(code, checkpoint.state)


def _again(attempt: Any, path: str | Path) -> Any:
    """attempt() until its save is not refused as CHANGED, at most MAX_TRIES times."""
    for _ in range(MAX_TRIES - 1):
        try:
            return attempt()
        except CheckpointError as exc:
            if exc.code != CHANGED:
                raise
    return attempt()  # the last try: a CHANGED refusal now reaches the caller, by name


VERDICTS = ("approve", "decline", "cancel")
DECIDED = {"approve": APPROVED, "decline": DECLINED, "cancel": CANCELLED}  # the status each verdict leaves


def decide(path: str | Path, pending_id: str, verdict: str, by: Session, *, after_s: float = 0.0,
           outbox: Outbox | None = None, key: bytes = SIMULATED_CHECKPOINT_KEY) -> Verdict:
    """A person's decision on the pending action of a checkpoint file, then the file saved again.

    pending_id (str), verdict ("approve", "decline" or "cancel"), by (Session, the signed-in person),
    after_s (float, seconds that pass on the run's clock before the decision), outbox (the mail service
    an approved email goes to, through the folder's send log). When another process saved the file
    meanwhile, the decision starts again from that file (a second send is a replay of the send log).
    Returns the desk's Verdict (refusals included: unknown_id, not_signed_in, already_decided, expired,
    own_request, not_approver). Raises ValueError naming the verdict when it is not one of VERDICTS, and
    CheckpointError naming the file when it is refused.
    Example: decide(path, "pa-1", "approve", by=Session("maria"), after_s=120).code == "approved"
    """
    if verdict not in VERDICTS:
        raise ValueError(f"verdict must be one of {', '.join(VERDICTS)}, got {str(verdict)[:20]!r}")
    decisions = DecisionLog(Path(path).parent / DECISION_LOG)
    with locked(decisions.path):  # one decider at a time in this folder, for every copy of the file
        return _again(lambda: _decide_once(path, pending_id, verdict, by, after_s, outbox, key, decisions), path)


def _decide_once(path: str | Path, pending_id: str, verdict: str, by: Session, after_s: float,
                 outbox: Outbox | None, key: bytes, decisions: DecisionLog) -> Verdict:
    checkpoint = Checkpoint.load(path, outbox=outbox, key=key)
    try:
        earlier = decisions.decided(checkpoint.state.run_id, pending_id)
    except DecisionLogError as error:
        raise CheckpointError(BAD_CHECKPOINT, Path(path).name, str(error)) from error
    user = by.user_id if isinstance(by, Session) else None
    checkpoint.clock.advance(after_s)
    if earlier is not None and earlier != (DECIDED[verdict], user):
        result = Verdict(False, ALREADY_DECIDED)  # decided on another copy: a copy never undoes a decision
        audit(checkpoint.desk.gate.audit, checkpoint.desk.requests.get(pending_id), by, ALREADY_DECIDED,
              f"{pending_id} was {earlier[0]} by {earlier[1]} on another copy in this folder")
    else:
        result = getattr(checkpoint.desk, verdict)(pending_id, by)
        if result.ok and earlier is None and result.code == DECIDED[verdict]:
            decisions.record(checkpoint.state.run_id, pending_id, result.code, user)  # before the file is saved
    checkpoint.save(path, key)
    return result
