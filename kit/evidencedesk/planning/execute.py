"""Plan, check, execute: the model proposes the whole plan once, code checks it, the gate runs its steps.

PlanAgent.run asks the planner for a typed plan (plan.py; one repair at most) and checks it whole
before step 1 (checks.py). It then runs the steps in the order listed, each through the same
ToolGate.run as every call in the kit, with each reference filled from an earlier step's result
(fill). A write is parked by the gate and the run waits for a person, as the loop's does. When a step
fails, the planner is asked again, told only which step failed and its code, never what a tool
returned, and the new plan is checked whole again, at most max_replans times; then the run stops
with REPLAN_LIMIT. After the last step, one model call (the writer) turns the results into an answer
that cites them. Every model call goes through budget.BudgetedClient, which refuses, before it is
made, a call that could cross the run's limits. Left out: running steps in parallel, keeping results
across a replan (a new plan starts again at its first step), and time spent in tools (the kit's tools
take none on the clock).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from evidencedesk.agent.loop import RunBudget
from evidencedesk.budget import BudgetedClient, BudgetExceeded
from evidencedesk.calling.structured import OutputRefused, ask_structured
from evidencedesk.gate import NEEDS_APPROVAL, ToolGate
from evidencedesk.llm import LLMClient
from evidencedesk.planning.checks import Room, check_plan
from evidencedesk.planning.plan import (
    FAILURE,
    Answer,
    Plan,
    Problem,
    Ref,
    Step,
    planner_request,
    tool_lines,
    writer_request,
    writer_worst,
)
from evidencedesk.planning.results import GUARDED
from evidencedesk.security import Session
from evidencedesk.tools import ToolCall, ToolResult, result_text
from evidencedesk.usage import Ledger

MAX_REPLANS = 2  # new plans after a failed step, per run
RUNNING, AWAITING, DONE, STOPPED = "running", "awaiting_approval", "done", "stopped"
REASONS: dict[str, str] = {  # every way a plan-then-execute run ends, with what it means
    "done": "every step ran, and the writer's answer cites their results",
    "needs_approval": "the plan's write is parked until a person approves it",
    "no_plan": "the planner's reply was not a plan, even after its one repair",
    "plan_refused": "the plan failed a check before its first step; nothing of it ran",
    "replan_limit": "a step failed and no replan was left",
    "no_answer": "the writer's reply was not an answer citing this run's results",
    "step_budget": "the next model call would go past the run's model calls",
    "time_budget": "the run's clock passed its time limit before a model call",
    "cost_budget": "the next model call could push the cost past the limit",
    "unauthenticated": "no signed-in user, so nothing ran",
    "forbidden_task": "the user may not run this task",
}


@dataclass(frozen=True)
class PlanRun:
    """How a run ended: status (done, awaiting_approval, stopped), reason (a key of REASONS), the plans
    proposed in order, problems (why the last plan was refused; empty otherwise), calls (tools that reached
    the gate, in order), answer and sources (step ids), pending_id, and trace (one line per event).

    Example: run.status, run.reason, [p.code for p in run.problems]
    """

    status: str
    reason: str
    plans: tuple[Plan, ...] = ()
    problems: tuple[Problem, ...] = ()
    calls: tuple[str, ...] = ()
    answer: str = ""
    sources: tuple[str, ...] = ()
    pending_id: str = ""
    trace: tuple[str, ...] = ()


def fill(step: Step, results: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """step's arguments with each Ref replaced by that field of that step's result data.

    results: step id -> the tool's data, for the steps that ran. A field the data lacks fills None,
    which the gate's schema check then refuses. Example: fill(step, {"s2": {"on_file": "kwame@example.org"}})
    """
    return {name: (results.get(value.step, {}).get(value.field) if isinstance(value, Ref) else value)
            for name, value in step.arguments.items()}


@dataclass
class PlanAgent:
    """Plan-then-execute around a planner: one plan, checked whole, run through the gate, replanned at most
    max_replans times.

    client (LLMClient: planner and writer), gate (ToolGate), session (Session: user and allowed tasks),
    task (str), budget (agent.loop.RunBudget; max_steps counts model calls), clock (callable, seconds),
    ledger (Ledger, credits), max_replans (int >= 0), guarded (the (tool, argument) pairs only a trusted
    field may fill; frozenset() turns that rule off), model (str), max_tokens (int, output allowance per
    model call, tokens).
    Example: agent, outbox = lab("typo"); agent.run("Check T-601 and the refund policy.").reason == "done"
    """

    client: LLMClient
    gate: ToolGate
    session: Session
    task: str
    budget: RunBudget
    clock: Callable[[], float]
    ledger: Ledger
    max_replans: int = MAX_REPLANS
    guarded: frozenset[tuple[str, str]] = GUARDED
    model: str = "fake-agent-1"
    max_tokens: int = 300
    _events: list[str] = field(default_factory=list, init=False, repr=False)

    def _log(self, where: str, code: str, detail: str = "") -> None:
        self._events.append(f"{where:<7} {code:<16} {detail}".rstrip())

    def _end(self, reason: str, plans: list[Plan], calls: list[str], **found: Any) -> PlanRun:
        status = DONE if reason == "done" else AWAITING if reason == NEEDS_APPROVAL else STOPPED
        self._log("stop", reason, status)
        return PlanRun(status, reason, tuple(plans), calls=tuple(calls), trace=tuple(self._events), **found)

    def run(self, goal: str, run_id: str = "plan-1") -> PlanRun:
        """Plan once, check the whole plan, run it step by step; replan a failed step at most max_replans times.

        goal (str, 1-300 characters), run_id (str, ^[a-z0-9-]{1,20}$). Returns a PlanRun.
        Raises ValueError naming goal or run_id when it is malformed. Example: lab()[0].run("Check T-601.").reason
        """
        if not isinstance(goal, str) or not 1 <= len(goal) <= 300:
            raise ValueError(f"goal must be a str of 1 to 300 characters, got {str(goal)[:40]!r}")
        if not isinstance(run_id, str) or not re.fullmatch(r"[a-z0-9-]{1,20}", run_id):
            raise ValueError(f"run_id must match ^[a-z0-9-]{{1,20}}$, got {str(run_id)[:40]!r}")
        self._events = []
        plans: list[Plan] = []
        calls: list[str] = []
        if not self.session.user_id:
            return self._end("unauthenticated", plans, calls)
        if self.task not in self.session.tasks:
            return self._end("forbidden_task", plans, calls)
        client = BudgetedClient(self.client, self.budget, self.ledger, self.clock, run_id)
        failure = ""
        while True:
            request = planner_request(goal, tool_lines(self.gate, self.task), self.model, self.max_tokens, failure,
                                      plans[-1] if plans else None)
            try:
                proposed = ask_structured(client, request, Plan, native=False)
            except BudgetExceeded as refused:  # checked before the call: nothing was spent on it
                return self._end(refused.reason, plans, calls)
            except OutputRefused:
                return self._end("no_plan", plans, calls)
            plans.append(proposed.value)
            plan = proposed.value
            asked = f"{proposed.attempts} model call" + ("s" if proposed.attempts > 1 else "")
            self._log(f"plan {len(plans)}", "ok", f"{len(plan.steps)} steps, proposed in {asked}")
            spent = self.ledger.summary().cost
            room = Room(self.gate.policy.max_calls_per_run - len(calls), self.budget.max_steps - client.calls,
                        self.budget.max_cost - spent, self.ledger.table)
            implied = writer_worst(goal, plan, self.model, self.max_tokens)
            if problems := check_plan(plan, self.gate, self.task, implied, room, guarded=self.guarded):
                for problem in problems:
                    self._log("check", problem.code, f"{problem.step or 'plan'}: {problem.detail}")
                return self._end("plan_refused", plans, calls, problems=tuple(problems))
            self._log("check", "ok", f"plan {len(plans)}, before step 1")
            results: dict[str, dict[str, Any]] = {}
            for step in plan.steps:  # in the order listed, which the check proved follows the references
                call = ToolCall(f"{run_id}-p{len(plans)}-{step.id}", step.tool, fill(step, results))
                calls.append(step.tool)
                result = self.gate.run(call, self.task, run_id, caller=self.session.user_id)
                self._log(step.id, result.code, step.tool)
                if result.code == NEEDS_APPROVAL:
                    return self._end(NEEDS_APPROVAL, plans, calls, pending_id=result.error["pending_id"])
                if not result.ok:
                    failure = FAILURE.format(step=step.id, tool=step.tool, code=result.code)
                    break
                results[step.id] = result.data or {}
            else:
                return self._write(client, goal, plan, results, plans, calls)
            if len(plans) > self.max_replans:
                return self._end("replan_limit", plans, calls)

    def _write(self, client: BudgetedClient, goal: str, plan: Plan, results: dict[str, dict[str, Any]],
               plans: list[Plan], calls: list[str]) -> PlanRun:
        """The one model call after the last step: an answer from the results, citing only steps that ran."""
        texts = [(step.id, step.tool, result_text(ToolResult.success(results[step.id]))) for step in plan.steps]
        try:
            written = ask_structured(client, writer_request(goal, texts, self.model, self.max_tokens), Answer,
                                     native=False)
        except BudgetExceeded as refused:
            return self._end(refused.reason, plans, calls)
        except OutputRefused:
            return self._end("no_answer", plans, calls)
        answer = written.value
        if not set(answer.sources) <= set(results):
            return self._end("no_answer", plans, calls)
        self._log("writer", "ok", f"cites {', '.join(answer.sources)}")
        return self._end("done", plans, calls, answer=answer.answer, sources=tuple(answer.sources))
