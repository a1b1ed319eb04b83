"""Typed task state for one agent run, and the trace of its decisions.

AgentState is a frozen pydantic model: a run moves forward only by asking for the next state
(next_step, observe, finish, stop, wait, resume), and every new state is validated again, so an
illegal move or a "done" without evidence fails at once. Trace keeps one short, redacted line per
decision. Left out: chat history (see memory.py) and checkpoints on disk (see checkpoint.py).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from evidencedesk.security import redact_log

RUNNING = "running"
AWAITING = "awaiting_approval"
DONE = "done"
STOPPED = "stopped"

REASONS: dict[str, str] = {  # every way a run may end, with what it means
    "done": "finished with an answer that cites successful observations",
    "needs_approval": "a consequential write is parked until a person approves it",
    "step_budget": "the run used all the steps it was allowed",
    "time_budget": "the run's clock passed its time limit",
    "cost_budget": "the next model call could push the cost past the limit",
    "repeated_call": "the model asked for a call that already ran with the same arguments",
    "stuck": "too many rejected or failed steps in a row",
    "call_limit": "the gate refused: too many tool calls in this run",
    "unauthenticated": "no signed-in user, so nothing ran",
    "forbidden_task": "the user may not run this task",
    "denied": "a person declined the parked action",
    "cancelled": "the run was interrupted on purpose",
}

TRANSITIONS: dict[str, frozenset[str]] = {  # legal moves only; done and stopped never change again
    RUNNING: frozenset({RUNNING, AWAITING, DONE, STOPPED}), AWAITING: frozenset({RUNNING, STOPPED}),
    DONE: frozenset(), STOPPED: frozenset()}


class BadTransition(Exception):
    """Raised when a state is asked for a move that TRANSITIONS does not allow.

    Example: AgentState(run_id="r1", user_id="u", task="t", goal="g").stop("stuck").next_step()
    """


class Observation(BaseModel):
    """What one step brought back: a tool result or a rejection, kept as untrusted text.

    Fields: id ("o1", "o2", ... in order), step (int, the step that produced it), tool (name, or
    "rejected"), ok (bool, whether it succeeded), text (at most 400 characters).
    Raises pydantic.ValidationError on a bad field.
    Example: Observation(id="o1", step=1, tool="get_ticket", ok=True, text='{"id": "T-601"}')
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = Field(pattern=r"^o[1-9][0-9]{0,3}$")
    step: int = Field(ge=0)
    tool: str = Field(min_length=1, max_length=40)
    ok: bool
    text: str = Field(max_length=400)


class AgentState(BaseModel):
    """The facts one run depends on, typed and checked. Chat turns live in memory.py instead."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    run_id: str = Field(pattern=r"^[a-z0-9-]{1,20}$")
    user_id: str
    task: str
    goal: str = Field(min_length=1, max_length=300)
    status: Literal["running", "awaiting_approval", "done", "stopped"] = RUNNING
    step: int = Field(default=0, ge=0)
    observations: tuple[Observation, ...] = ()
    answer: str = Field(default="", max_length=600)
    sources: tuple[str, ...] = ()
    reason: str = ""
    pending_id: str = ""

    @model_validator(mode="after")
    def required_fields(self) -> AgentState:
        # each status has fields it must have and fields it must not have
        if self.status == RUNNING and (self.reason or self.answer or self.pending_id):
            raise ValueError("a running state has no reason, answer or pending action")
        if self.status == DONE and not (self.reason == "done" and self.answer.strip() and self.sources):
            raise ValueError("done needs an answer and the observations that support it")
        if self.status == STOPPED and (self.reason not in REASONS or self.reason in {"done", "needs_approval"}):
            raise ValueError(f"stopped needs a known reason, got {self.reason!r}")
        if self.status == AWAITING and not (self.reason == "needs_approval" and self.pending_id):
            raise ValueError("awaiting_approval needs a pending action id")
        succeeded = {o.id for o in self.observations if o.ok}
        if not set(self.sources) <= succeeded:
            raise ValueError("every source must be a successful observation of this run")
        return self

    def _to(self, status: str, **changes: object) -> AgentState:
        if status not in TRANSITIONS[self.status]:
            raise BadTransition(f"{self.status} -> {status}")
        # build a fresh object rather than copy, so the validator runs on the result
        return type(self).model_validate({**self.model_dump(), **changes, "status": status})

    def next_step(self) -> AgentState:
        return self._to(RUNNING, step=self.step + 1)

    def observe(self, ok: bool, tool: str, text: str) -> tuple[AgentState, Observation]:
        obs = Observation(id=f"o{len(self.observations) + 1}", step=self.step, ok=ok, tool=tool[:40], text=text[:400])
        return self._to(RUNNING, observations=(*self.observations, obs)), obs

    def finish(self, answer: str, sources: list[str]) -> AgentState:
        return self._to(DONE, reason="done", answer=answer, sources=tuple(sources))

    def stop(self, reason: str) -> AgentState:
        return self._to(STOPPED, reason=reason)

    def wait(self, pending_id: str) -> AgentState:
        return self._to(AWAITING, reason="needs_approval", pending_id=pending_id)

    def resume(self) -> AgentState:  # used by the next page; only a waiting run may resume
        if self.status != AWAITING:
            raise BadTransition(f"{self.status} -> running by resume")
        return self._to(RUNNING, reason="", pending_id="")


class Trace:
    """One short line per decision of a run, for debugging and tests.

    Each entry is (step, kind, code, detail); kind is one of KINDS. Details are redacted with
    security.redact_log and clipped to 60 characters when formatted.
    Example: t = Trace(); t.add(1, "tool", "ok", "get_ticket"); t.lines() == [" 1 tool   ok                 get_ticket"]
    """

    KINDS = ("model", "check", "tool", "memory", "stop")

    def __init__(self) -> None:
        self.entries: list[tuple[int, str, str, str]] = []

    def add(self, step: int, kind: str, code: str, detail: str = "") -> None:
        """Record one decision. step: int >= 0; kind: one of Trace.KINDS; code: short result code.

        Raises ValueError naming the kind when it is not one of Trace.KINDS.
        Example: trace.add(2, "check", "not_allowed", "call send_email_draft")
        """
        if kind not in self.KINDS:
            raise ValueError(f"unknown trace kind {kind!r}; use one of {self.KINDS}")
        self.entries.append((step, kind, code, detail))

    def lines(self) -> list[str]:
        """The entries as aligned text lines: step, kind, code, redacted detail (max 60 chars).

        Example: Trace().lines() == []
        """
        return [f"{step:>2} {kind:<6} {code:<18} {redact_log(detail)[:60]}".rstrip()
                for step, kind, code, detail in self.entries]

    def codes(self, kind: str) -> list[str]:
        """The codes recorded for one kind, in order.

        Example: run.trace.codes("check") == ["ok", "not_allowed", "ok"]
        """
        return [code for _, k, code, _ in self.entries if k == kind]
