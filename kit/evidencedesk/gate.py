"""Tool permissions and failure handling: the one place where a proposed call becomes an action.

ToolGate.run asks the questions of DECISION_ORDER, in that order, and the first one that stops a call
answers it: are the inputs of the right types, is the tool available for this task, are the
arguments small enough and valid, is the run within its call limits, is it a write (then it needs the
task's grant, and even with one it is parked as a pending action until approve() or decline()).
Every decision is written to an audit log with secrets and addresses redacted. Bad input of any kind
comes back as an error result; nothing escapes run() as an exception.
An action is approved at most once: a second approve, or one on a declined action, runs nothing.
Left out: who approves and when (the Human Approval page), and persistence of the log and the pending
actions.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Literal

from pydantic import Field
from pydantic.dataclasses import dataclass as checked_dataclass

from evidencedesk.security import redact_log
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
    ToolRegistry,
    ToolResult,
    clip,
    fingerprint,
)

__all__ = [
    "CALL_LIMIT", "DUPLICATE", "INVALID_ARGUMENTS", "NEEDS_APPROVAL", "NOT_ALLOWED", "NOT_FOUND", "OK",
    "TOO_LARGE", "TOOL_ERROR", "DECISION_ORDER", "MAX_ARGUMENT_CHARS", "AuditLog", "Check", "PendingAction", "Policy",
    "ToolGate", "default_policy",
]
MAX_ARGUMENT_CHARS = 8000  # the whole arguments object as JSON; bigger is refused before parsing (too_large)
# The life of a pending action: pending, then exactly one of the others. An approval is used once: the tool's
# answer closes the action as sent (ok) or failed (any refusal of the tool, DUPLICATE included).
PENDING, SENT, DECLINED, FAILED = "pending", "sent", "declined", "failed"
# Characters that would break an audit line, or hide in one: control characters (C0, DEL, C1) and the Unicode
# line and paragraph separators. Audit values carry them escaped ("\\n"), so one event is always one line.
LINE_BREAKING = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


@checked_dataclass(frozen=True)
class Policy:
    """Which tools each task may use, which tasks may write, and how many calls a run may make.

    Args: allow (dict task -> set of tool names); write_tasks (set of tasks granted consequential writes);
    max_calls_per_run (int, calls, >= 0); max_calls_per_tool (dict tool -> int, calls per run).
    Raises: pydantic.ValidationError naming the field for a wrong type or a negative limit.
    Example: Policy({"triage": {"get_ticket"}}, max_calls_per_run=3).tools_for("triage") -> {"get_ticket"}
    """

    allow: dict[str, frozenset[str]]
    write_tasks: frozenset[str] = frozenset()
    max_calls_per_run: Annotated[int, Field(ge=0, strict=True)] = 10
    max_calls_per_tool: dict[str, Annotated[int, Field(ge=0, strict=True)]] = field(default_factory=dict)

    def tools_for(self, task: str) -> set[str]:
        """The tools task (str) may use; an unknown task gets an empty set. Example: policy.tools_for("x") -> set()"""
        return set(self.allow.get(task, ())) if isinstance(task, str) else set()

    def may_write(self, task: str) -> bool:
        """True if task (str) holds the write grant. Example: default_policy().may_write("reply") -> False"""
        return isinstance(task, str) and task in self.write_tasks


def default_policy(grant_writes: bool = False, max_calls_per_run: int = 10) -> Policy:
    """The course policy: "triage" reads tickets and documents; "reply" may also draft e-mail.

    Args: grant_writes (bool) -- give "reply" the write grant; max_calls_per_run (int, calls).
    Example: default_policy(grant_writes=True).may_write("reply") -> True
    """
    reads = {"get_ticket", "lookup_document"}
    return Policy(allow={"triage": reads, "reply": reads | {"send_email_draft"}},
                  write_tasks={"reply"} if grant_writes else set(), max_calls_per_run=max_calls_per_run)


@dataclass
class PendingAction:
    """A write parked until a person decides. status: "pending", then "sent", "failed" or "declined".

    held_by: the approval desk the action was put to (None: nobody); while it is held, only that desk's
    decision runs or declines it.
    Example: gate.pending["pa-1"].status -> "pending"
    """

    id: str
    call: ToolCall
    run_id: str
    task: str
    caller: str
    status: str = PENDING
    held_by: object = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Check:
    """One question the gate asks of every call, in DECISION_ORDER.

    question (str); stops_when ("yes" or "no": the answer that stops the call); code (str, the result code
    of a call it stops); ask (a ToolGate method taking call, task, run_id, caller and returning the refusal
    as a ToolResult, or None to go on).
    Example: DECISION_ORDER[1].code -> "not_allowed"
    """

    question: str
    stops_when: Literal["yes", "no"]
    code: str
    ask: Callable[[ToolGate, ToolCall, str, str, str], ToolResult | None]


def one_line(text: str) -> str:
    """text with every character of LINE_BREAKING escaped as Python writes it ("\\n", "\\u2028"): one line.

    Args: text (str). Returns: str. Example: one_line("maria\\nok") -> "maria\\\\nok" (a backslash, then n)
    """
    return LINE_BREAKING.sub(lambda m: m.group(0).encode("unicode_escape").decode("ascii"), text)


def _short(value: object, limit: int = 40) -> str:
    """A clipped, redacted, one-line form of any value, safe for messages and logs; never raises.

    Redacted whole, then clipped: clipping first could cut a key short enough to escape redaction.
    """
    return clip(one_line(redact_log(clip(value, None))), limit)


@dataclass
class AuditLog:
    """Every gate decision, in order: {"run_id", "call_id", "tool", "task", "caller", "outcome", "detail"}.

    Values are clipped, redacted and kept on one line (see one_line); arguments are never copied in.
    Example: [(e["tool"], e["outcome"]) for e in gate.audit.events] -> [("get_ticket", "ok")]
    """

    events: list[dict[str, str]] = field(default_factory=list)

    def add(self, run_id: object, call_id: object, tool: object, task: object, caller: object, outcome: object,
            detail: object) -> None:
        """Append one event from any values: each clipped (detail to 200 characters, the rest to 40),
        redacted and kept on one line. Never raises. Example: log.add("r1", "pa-1", "send_email_draft",
        "reply", "maria", "approved", "at 120.0 s")
        """
        self.events.append({
            "run_id": _short(run_id), "call_id": _short(call_id), "tool": _short(tool), "task": _short(task),
            "caller": _short(caller), "outcome": _short(outcome), "detail": _short(detail, 200),
        })

    def record(self, call: object, run_id: object, task: object, caller: object, result: ToolResult,
               detail: str = "") -> None:
        """Append one event for result (ToolResult) about call (normally a ToolCall).

        detail (str): what happened, when the result alone does not say; default "ran" for a success,
        else the error message.
        """
        detail = detail or ("ran" if result.ok else str((result.error or {}).get("message", "")))
        call_id, tool = (call.id, call.name) if isinstance(call, ToolCall) else ("?", "?")
        self.add(run_id, call_id, tool, task, caller, result.code, detail)


class ToolGate:
    """Runs tool calls only if the policy allows them, and audits every decision.

    Args: registry (ToolRegistry); policy (Policy); audit (AuditLog or None for a new one).
    Attributes: registry, policy, audit, pending (dict pending id -> PendingAction), issued (int: the
    highest pa-N handed out; a parked write gets pa-<issued + 1>, so no id is ever given twice).
    Example: ToolGate(registry, default_policy()).run(call, "triage", "run-1", caller="kwame").code -> "ok"
    """

    def __init__(self, registry: ToolRegistry, policy: Policy, audit: AuditLog | None = None) -> None:
        self.registry, self.policy = registry, policy
        self.audit = audit if audit is not None else AuditLog()
        self.pending: dict[str, PendingAction] = {}
        self.issued = 0  # the highest pending id number handed out so far
        self._calls: Counter[str] = Counter()  # run_id -> calls that reached the limit check
        self._tool_calls: Counter[tuple[str, str]] = Counter()  # (run_id, tool) -> calls

    def run(self, call: ToolCall, task: str, run_id: str, caller: str) -> ToolResult:
        """Check a call and run it, or refuse it with a code. Never raises.

        Args: call (ToolCall); task (str, a key of policy.allow); run_id (str); caller (str, user id).
        Returns: the tool's result, or failure NOT_ALLOWED (tool not available, or a write without the
        grant), INVALID_ARGUMENTS, TOO_LARGE, CALL_LIMIT, NEEDS_APPROVAL (with error["pending_id"]),
        TOOL_ERROR. A made-up tool and a forbidden tool get the same answer. Checks run in DECISION_ORDER.
        Example: gate.run(ToolCall("c1", "delete_all", {}), "triage", "run-1", "kwame").code -> "not_allowed"
        """
        try:
            result = self._decide(call, task, run_id, caller)
        except Exception as exc:  # last resort: input so odd that checking it raised; answered and audited
            result = ToolResult.failure(INVALID_ARGUMENTS, f"call: could not be checked ({type(exc).__name__})")
        self.audit.record(call, run_id, task, caller, result)
        return result

    def _decide(self, call: ToolCall, task: str, run_id: str, caller: str) -> ToolResult:
        for check in DECISION_ORDER:  # the first check that stops the call answers it
            if (stopped := check.ask(self, call, task, run_id, caller)) is not None:
                return stopped
        return self.registry.execute(call, caller)  # every check passed: a read runs now

    # The checks of DECISION_ORDER. Each returns the refusal, or None to let the call go on to the next.
    def _check_types(self, call: ToolCall, task: str, run_id: str, caller: str) -> ToolResult | None:
        problem = _bad_input(call, task, run_id, caller)
        return ToolResult.failure(INVALID_ARGUMENTS, problem) if problem else None

    def _check_allowlist(self, call: ToolCall, task: str, run_id: str, caller: str) -> ToolResult | None:
        if isinstance(call.name, str) and call.name in self.policy.tools_for(task) & self.registry.names():
            return None
        # the same answer whether the tool is forbidden here or does not exist at all
        return ToolResult.failure(NOT_ALLOWED, f"tool {_short(call.name)!r} is not available for this task")

    def _check_size(self, call: ToolCall, task: str, run_id: str, caller: str) -> ToolResult | None:
        if len(fingerprint(call)) > MAX_ARGUMENT_CHARS:  # refused before pydantic spends time on it
            return ToolResult.failure(TOO_LARGE, f"arguments are longer than {MAX_ARGUMENT_CHARS} characters")
        return None

    def _check_schema(self, call: ToolCall, task: str, run_id: str, caller: str) -> ToolResult | None:
        problems = self.registry.validate(call)
        return ToolResult.failure(INVALID_ARGUMENTS, "; ".join(problems)) if problems else None

    def _check_limits(self, call: ToolCall, task: str, run_id: str, caller: str) -> ToolResult | None:
        # count this call first: only calls that got this far count, so refused ones use up nothing
        self._calls[run_id] += 1
        self._tool_calls[(run_id, call.name)] += 1
        if self._calls[run_id] > self.policy.max_calls_per_run:
            message = f"run {_short(run_id)} is over its limit of {self.policy.max_calls_per_run} calls"
            return ToolResult.failure(CALL_LIMIT, message)
        per_tool = self.policy.max_calls_per_tool.get(call.name)
        if per_tool is not None and self._tool_calls[(run_id, call.name)] > per_tool:
            message = f"run {_short(run_id)} is over its limit of {per_tool} calls to {call.name}"
            return ToolResult.failure(CALL_LIMIT, message)
        return None

    def _check_grant(self, call: ToolCall, task: str, run_id: str, caller: str) -> ToolResult | None:
        if self.registry.get(call.name).writes and not self.policy.may_write(task):
            return ToolResult.failure(NOT_ALLOWED, f"no write grant for {call.name} in this task")
        return None

    def _park(self, call: ToolCall, task: str, run_id: str, caller: str) -> ToolResult | None:
        """A write with the grant: park it as pa-N for a person to decide. Nothing is sent here."""
        if not self.registry.get(call.name).writes:
            return None
        self.issued = max([self.issued, *(_number(i) for i in self.pending)]) + 1  # never an id already in use
        pending_id = f"pa-{self.issued}"
        self.pending[pending_id] = PendingAction(pending_id, call, run_id, task, caller)
        return ToolResult.failure(NEEDS_APPROVAL, f"{call.name} is parked as {pending_id} for approval",
                                  pending_id=pending_id)

    def hold(self, pending_id: str, holder: object) -> bool:
        """Put a pending action to holder (an approval desk): from now on only holder may approve or decline it.

        Returns True when the action is pending and now held by holder, False otherwise (unknown id, already
        decided, held by another). Never raises. Example: gate.hold("pa-1", desk) -> True
        """
        action = self.pending.get(pending_id) if isinstance(pending_id, str) else None
        if action is None or action.status != PENDING or action.held_by not in (None, holder):
            return False
        action.held_by = holder
        return True

    def approve(self, pending_id: str, holder: object = None) -> ToolResult:
        """Run a parked write now, once: the tool's answer closes it as "sent" (ok) or "failed". Never raises.

        holder: the desk deciding, for an action put to one (see hold); a held action is never run by anyone else.
        Returns: the tool's result; NOT_FOUND for an unknown id; NOT_ALLOWED, with nothing run, for an action that
        was declined, was approved before, or waits for its desk's decision.
        Example: gate.approve("pa-1").data -> {"queued": True, "idempotency_key": "t-502-reply-1"}
        """
        action = self.pending.get(pending_id) if isinstance(pending_id, str) else None
        if action is None:
            return ToolResult.failure(NOT_FOUND, f"no pending action {_short(pending_id)}")
        if (refused := _closed(action, holder)) is not None:
            result = refused
        else:
            result = self.registry.execute(action.call, action.caller)
            action.status = SENT if result.ok else FAILED  # an approval is used once, whatever the tool answered
        detail = f"{action.id} approved, ran" if result.ok else ""
        self.audit.record(action.call, action.run_id, action.task, action.caller, result, detail)
        return result

    def decline(self, pending_id: str, holder: object = None) -> ToolResult:
        """Refuse a parked write (status becomes "declined"); nothing is sent. Never raises.

        holder: as for approve. Returns: success {"pending_id", "status"}; NOT_FOUND for an unknown id;
        NOT_ALLOWED if it already ran or was declined, or waits for its desk's decision.
        Example: gate.decline("pa-1").data -> {"pending_id": "pa-1", "status": "declined"}
        """
        action = self.pending.get(pending_id) if isinstance(pending_id, str) else None
        if action is None:
            return ToolResult.failure(NOT_FOUND, f"no pending action {_short(pending_id)}")
        if (refused := _closed(action, holder)) is not None:
            result = refused
        else:
            action.status = DECLINED
            result = ToolResult.success({"pending_id": action.id, "status": DECLINED})
        detail = f"{action.id} declined, nothing sent" if result.ok else ""
        self.audit.record(action.call, action.run_id, action.task, action.caller, result, detail)
        return result


def _closed(action: PendingAction, holder: object) -> ToolResult | None:
    """The refusal for a decision on action by holder, or None when holder may decide it now."""
    if action.status == DECLINED:
        return ToolResult.failure(NOT_ALLOWED, f"{action.id} was declined")
    if action.status != PENDING:
        return ToolResult.failure(NOT_ALLOWED, f"{action.id} was already approved ({action.status}); nothing ran")
    if action.held_by is not None and action.held_by is not holder:
        return ToolResult.failure(NOT_ALLOWED, f"{action.id} waits for the decision of its approval desk")
    return None


def _number(pending_id: str) -> int:
    """N of a pending id "pa-N", 0 for any other key."""
    head, _, digits = pending_id.partition("pa-") if isinstance(pending_id, str) else ("x", "", "")
    return int(digits) if not head and digits.isdigit() and digits.isascii() else 0


# The gate's decision order, as data: _decide asks these in turn, and the course page draws its diagram from them.
DECISION_ORDER: tuple[Check, ...] = (
    Check("inputs of the right types?", "no", INVALID_ARGUMENTS, ToolGate._check_types),
    Check("tool allowed for the task?", "no", NOT_ALLOWED, ToolGate._check_allowlist),
    Check(f"arguments within {MAX_ARGUMENT_CHARS} characters?", "no", TOO_LARGE, ToolGate._check_size),
    Check("arguments fit the schema?", "no", INVALID_ARGUMENTS, ToolGate._check_schema),
    Check("within the call limits?", "no", CALL_LIMIT, ToolGate._check_limits),
    Check("a write without the grant?", "yes", NOT_ALLOWED, ToolGate._check_grant),
    Check("a write with the grant?", "yes", NEEDS_APPROVAL, ToolGate._park),
)


def _bad_input(call: object, task: object, run_id: object, caller: object) -> str:
    """A message naming the first input of the wrong type, or "" when all are fine."""
    if not isinstance(call, ToolCall):
        return f"call: expected a ToolCall, got {type(call).__name__}"
    for name, value in (("call.id", call.id), ("task", task), ("run_id", run_id), ("caller", caller)):
        if not isinstance(value, str):
            return f"{name}: expected a str, got {type(value).__name__}"
    return ""
