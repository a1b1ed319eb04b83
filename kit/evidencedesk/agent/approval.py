"""Human approval of a parked write: who may decide, until when, and what each decision does to the run.

The gate parks a consequential write as a pending action (gate.py) and the run waits in
awaiting_approval (state.py). An ApprovalDesk puts that action to a person, by its id:
- asking holds the gate's action for the desk (ToolGate.hold): from then on the gate runs it for the desk only;
- approve runs it once, through the gate (ToolGate.approve), with the idempotency key it was parked with;
- decline, expiry and cancel close it without running anything;
- the person deciding is a signed-in Session (security.py), never a bare name; only a listed approver for
  that tool may decide, and never the person whose run asked for it;
- a request expires ttl_s seconds after it was asked, on the injected clock;
- every decision, refused ones included, is appended to the gate's audit log.
Bad input (unknown id, a second decision, the wrong person, too late) gets a named code, never an
exception. settle() turns the decided request into the run's next state. Left out: notifications, a
user interface, quorums of several approvers, and persistence (checkpoint.py saves the desk with the run).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from evidencedesk.agent.state import AWAITING, AgentState
from evidencedesk.gate import DECLINED as GATE_DECLINED
from evidencedesk.gate import PENDING as GATE_PENDING
from evidencedesk.gate import AuditLog, ToolGate
from evidencedesk.security import Session
from evidencedesk.tools import OK, ToolResult, clip

# The life of a request: pending, then exactly one of the others.
PENDING = "pending"
APPROVED = "approved"
DECLINED = "declined"
EXPIRED = "expired"
CANCELLED = "cancelled"

# Refusals: the decision is not taken and nothing changes (except that a late decision marks the request expired).
UNKNOWN_ID = "unknown_id"  # no request with that id was asked
NOT_SIGNED_IN = "not_signed_in"  # the decider is not a signed-in Session (a bare name proves nothing)
ALREADY_DECIDED = "already_decided"  # the request is no longer pending
OWN_REQUEST = "own_request"  # separation of duties: the requester may not decide on their own action
NOT_APPROVER = "not_approver"  # not on the approver list for this tool
ASKED = "asked"  # audit outcome when a pending action is put to the approvers

# How a closed request ends a waiting run: request status -> the stop reason (state.REASONS).
ENDS = {DECLINED: "denied", EXPIRED: "denied", CANCELLED: "cancelled"}

APPROVERS: dict[str, frozenset[str]] = {"send_email_draft": frozenset({"maria", "kwame"})}  # tool -> who may approve
TTL_S = 600.0  # seconds a request stays open on the clock before it expires


class Request(BaseModel):
    """One pending action put to the approvers, and what became of it.

    Fields: id ("pa-1"), run_id, tool, task, requester (user whose run parked it), asked_at and
    expires_at (seconds on the clock), status (PENDING, APPROVED, DECLINED, EXPIRED, CANCELLED),
    decided_by and decided_at (who closed it and when; "" and None while pending), outcome (the
    gate's code when an approval ran the action) and result (what the gate returned, as text).
    Raises pydantic.ValidationError naming the field when a value is malformed.
    Example: Request(id="pa-1", run_id="b01", tool="send_email_draft", task="reply", requester="kwame",
    asked_at=0.0, expires_at=600.0)
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)
    id: str = Field(pattern=r"^pa-[1-9][0-9]{0,5}$")
    run_id: str = Field(pattern=r"^[a-z0-9-]{1,20}$")
    tool: str = Field(min_length=1, max_length=40)
    task: str = Field(min_length=1, max_length=40)
    requester: str = Field(min_length=1, max_length=40)
    asked_at: float = Field(ge=0)
    expires_at: float = Field(ge=0)
    status: Literal["pending", "approved", "declined", "expired", "cancelled"] = PENDING
    decided_by: str = Field(default="", max_length=40)
    decided_at: float | None = Field(default=None, ge=0)
    outcome: str = Field(default="", max_length=40)
    result: str = Field(default="", max_length=400)


class Verdict(NamedTuple):
    """The answer to one decision: ok (bool), code (the new status, or a refusal code) and, when an
    approval ran the action, the gate's ToolResult.

    Example: Verdict(False, "own_request", None)
    """

    ok: bool
    code: str
    result: ToolResult | None = None


class ApprovalDesk:
    """Puts parked writes to people and carries out their decisions, once each.

    gate (ToolGate holding the pending actions; its audit log receives every decision), clock
    (callable returning seconds), approvers (mapping tool name -> set of user ids who may approve),
    ttl_s (float, seconds a request stays open), requests (dict id -> Request, to continue a saved desk;
    the gate's actions of the pending ones are held for this desk).
    Example: desk = ApprovalDesk(agent.gate, agent.clock); desk.ask("pa-1"); desk.approve("pa-1", by=Session("maria"))
    """

    def __init__(self, gate: ToolGate, clock: Callable[[], float],
                 approvers: Mapping[str, frozenset[str]] = APPROVERS, ttl_s: float = TTL_S,
                 requests: dict[str, Request] | None = None) -> None:
        self.gate, self.clock, self.ttl_s = gate, clock, ttl_s
        self.approvers = {tool: frozenset(people) for tool, people in approvers.items()}
        self.requests: dict[str, Request] = dict(requests or {})
        for request in self.requests.values():
            if request.status == PENDING:
                gate.hold(request.id, self)

    def ask(self, pending_id: str) -> Verdict:
        """Put a pending action of the gate to the approvers; its expiry starts now. Never raises.

        Asking again for the same id changes nothing (the first expiry stands) and returns its status.
        Returns Verdict(True, "asked"), Verdict(True, <status>) for an id already asked, or
        Verdict(False, UNKNOWN_ID) when the gate holds no pending action with that id.
        Example: desk.ask("pa-1").code == "asked"
        """
        if isinstance(pending_id, str) and pending_id in self.requests:
            return Verdict(True, self.requests[pending_id].status)
        action = self.gate.pending.get(pending_id) if isinstance(pending_id, str) else None
        if action is None or action.status != GATE_PENDING:
            return Verdict(False, UNKNOWN_ID)
        now = self.clock()
        self.gate.hold(action.id, self)  # from now on the gate runs or declines it for this desk only
        self.requests[action.id] = Request(id=action.id, run_id=action.run_id, tool=action.call.name, task=action.task,
                                           requester=action.caller, asked_at=now, expires_at=now + self.ttl_s)
        self._audit(self.requests[action.id], action.caller, ASKED, f"expires at {now + self.ttl_s:.1f} s")
        return Verdict(True, ASKED)

    def approve(self, pending_id: str, by: Session) -> Verdict:
        """Approve a request: the gate runs the parked call now, once. Never raises.

        by (Session): the signed-in person deciding. Returns Verdict(True, "approved", gate result) or a
        refusal: UNKNOWN_ID, NOT_SIGNED_IN, EXPIRED, ALREADY_DECIDED, OWN_REQUEST, NOT_APPROVER.
        Example: desk.approve("pa-1", by=Session("maria")).result.data["idempotency_key"]
        """
        if refused := self._refusal(pending_id, by):
            return refused
        self._close(pending_id, APPROVED, by.user_id)  # the decision is on record before anything runs
        result = self.gate.approve(pending_id, holder=self)  # the one place a parked write runs; the gate audits it
        self._record(pending_id, result)
        return Verdict(True, APPROVED, result)

    def decline(self, pending_id: str, by: Session) -> Verdict:
        """Decline a request: nothing runs, and the gate will not run it later either. Never raises.

        by (Session). Returns Verdict(True, "declined") or a refusal (the same checks as approve).
        Example: desk.decline("pa-1", by=Session("maria")).code == "declined"
        """
        if refused := self._refusal(pending_id, by):
            return refused
        self._close(pending_id, DECLINED, by.user_id)
        return Verdict(True, DECLINED)

    def cancel(self, pending_id: str, by: Session) -> Verdict:
        """Withdraw a request (an interrupt): nothing runs. The requester or an approver may cancel. Never raises.

        by (Session). Returns Verdict(True, "cancelled"), or UNKNOWN_ID, NOT_SIGNED_IN, EXPIRED, ALREADY_DECIDED,
        NOT_APPROVER. Example: desk.cancel("pa-1", by=Session("kwame")).code == "cancelled"
        """
        if refused := self._refusal(pending_id, by, requester_may=True):
            return refused
        self._close(pending_id, CANCELLED, by.user_id)
        return Verdict(True, CANCELLED)

    def expire(self, pending_id: str) -> bool:
        """Close a pending request whose time is up (status EXPIRED, audited). Never raises.

        Returns True when the request is expired (now or before), False otherwise (unknown ids included).
        Example: clock.advance(601); desk.expire("pa-1") is True
        """
        request = self.requests.get(pending_id) if isinstance(pending_id, str) else None
        if request is None:
            return False
        if request.status == PENDING and self.clock() >= request.expires_at:
            self._close(request.id, EXPIRED, "")
        return self.requests[request.id].status == EXPIRED

    def _refusal(self, pending_id: str, by: Session, requester_may: bool = False) -> Verdict | None:
        """The checks every decision passes, in order; the first that fails is audited and returned."""
        request = self.requests.get(pending_id) if isinstance(pending_id, str) else None
        who = by.user_id if isinstance(by, Session) and by.user_id else None  # a bare name is nobody
        if request is None:
            self._audit(None, who or by, UNKNOWN_ID, f"no request {clip(pending_id)}")
            return Verdict(False, UNKNOWN_ID)
        may = self.approvers.get(request.tool, frozenset()) | ({request.requester} if requester_may else set())
        if who is None:  # checked before the clock: someone not signed in changes nothing
            self._audit(request, by, NOT_SIGNED_IN, f"{request.id} is {request.status}")
            return Verdict(False, NOT_SIGNED_IN)
        if self.expire(request.id):  # a decision that comes too late finds the request expired
            code = EXPIRED
        elif request.status != PENDING:
            code = ALREADY_DECIDED
        elif who == request.requester and not requester_may:
            code = OWN_REQUEST  # separation of duties: never approve or decline your own action
        elif who not in may:
            code = NOT_APPROVER
        else:
            return None
        self._audit(request, who, code, f"{request.id} is {self.requests[request.id].status}")
        return Verdict(False, code)

    def _close(self, pending_id: str, status: str, by: str) -> None:
        """Record the decision, keep the gate from running a closed action later, and audit it."""
        request = Request.model_validate({**self.requests[pending_id].model_dump(), "status": status,
                                          "decided_by": by, "decided_at": self.clock()})
        self.requests[pending_id] = request
        action = self.gate.pending.get(pending_id)
        if status != APPROVED and action is not None and action.status == GATE_PENDING:
            action.status = GATE_DECLINED  # ToolGate.approve refuses a declined action: no second path
        self._audit(request, by or "clock", status, f"at {self.clock():.1f} s")

    def _record(self, pending_id: str, result: ToolResult) -> None:
        """Keep what the gate returned for an approved request: its code and its data (or error) as text."""
        error = f"error {result.code}: {(result.error or {}).get('message', '')}"
        text = json.dumps(result.data, sort_keys=True) if result.ok else error
        done = {**self.requests[pending_id].model_dump(), "outcome": result.code, "result": text[:400]}
        self.requests[pending_id] = Request.model_validate(done)

    def _audit(self, request: Request | None, by: object, outcome: str, detail: str) -> None:
        audit(self.gate.audit, request, by, outcome, detail)


def audit(log: AuditLog, request: Request | None, by: object, outcome: str, detail: str) -> None:
    """Append one event about a request to log, with the same fields as the gate's events.

    The call id is the pending id ("pa-1"), caller is who acted (a user id, or a Session's user id),
    outcome a status or code; every field is clipped, redacted and kept on one line (AuditLog.add), so no
    value can forge a line of its own. request None (an unknown id) gives "?" for the request's fields.
    Example: audit(gate.audit, desk.requests["pa-1"], "kwame", "resumed", "status done")
    """
    who = by.user_id if isinstance(by, Session) else by
    log.add(request.run_id if request else "?", request.id if request else "?", request.tool if request else "?",
            request.task if request else "?", who, outcome, detail)


def settle(state: AgentState, request: Request) -> AgentState:
    """The run's next state once its parked action is decided. A pending request leaves it waiting.

    state (AgentState, normally awaiting_approval with request.id pending), request (Request).
    approved: the run resumes, records what the gate returned as an observation and finishes citing
    it; if the gate refused (say the key was first used for another email), the run stops as "stuck".
    declined or expired: stops as "denied"; cancelled: stops as "cancelled" (see ENDS).
    A state that is not waiting for this request is returned unchanged.
    Example: settle(run.state, desk.requests["pa-1"]).status == "done"
    """
    if state.status != AWAITING or state.pending_id != request.id or request.status == PENDING:
        return state
    if request.status in ENDS:
        return state.stop(ENDS[request.status])
    state, obs = state.resume().observe(request.outcome == OK, request.tool, request.result)
    if not obs.ok:
        return state.stop("stuck")
    return state.finish(f"{request.tool} ran once, approved by {request.decided_by}.", [obs.id])
