"""Delegation: a coordinator agent hands a subtask to a worker agent, under limits that hold for the whole tree.

Delegation is a tool, "delegate", so a request to delegate passes the same checks as every call
(the task's allowlist, the argument schema, repeats, the gate's call limits). The tool's function
is the boundary. Before any worker runs, it refuses with a named code, which comes back to the
delegator as an observation:
- UNKNOWN_AGENT: no member of the team has that name;
- CYCLE: the worker is already in the chain, so work would be handed back (A -> B -> A);
- DEPTH_LIMIT: the chain would grow longer than max_depth hand-offs;
- ESCALATION: the worker would get a tool its delegator does not have;
- BUDGET_SPENT: the tree's budget has nothing left for another agent.
All agents of a Team share one clock, one ledger, one audit log, one set of pending actions, one
interrupt and one RunBudget, so steps, time and cost are counted once for the whole tree, a cancel
reaches every agent, and a worker's write is parked for approval like any other.
Left out: agents running in parallel or on other machines, and workers that report progress.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from evidencedesk.agent.interrupt import Interrupt, InterruptibleAgent
from evidencedesk.agent.loop import Decider, Run, RunBudget
from evidencedesk.agent.scenarios import lab_registry
from evidencedesk.agent.state import DONE, AgentState
from evidencedesk.gate import AuditLog, PendingAction, Policy, ToolGate
from evidencedesk.helpdesk import Outbox
from evidencedesk.llm import LLMRequest, LLMResponse
from evidencedesk.security import Session
from evidencedesk.tools import Tool, ToolResult
from evidencedesk.usage import Ledger, ManualClock

DELEGATE = "delegate"  # the tool's name
UNKNOWN_AGENT = "unknown_agent"
CYCLE = "cycle"
DEPTH_LIMIT = "depth_limit"
ESCALATION = "escalation"
BUDGET_SPENT = "budget_spent"
WORKER_STOPPED = "worker_stopped"  # the worker ran but did not finish (its reason is in the message)
REFUSALS = (UNKNOWN_AGENT, CYCLE, DEPTH_LIMIT, ESCALATION, BUDGET_SPENT)
DELEGATION_CODES = (*REFUSALS, WORKER_STOPPED)  # the delegate tool's own codes, next to tools.RESULT_CODES
NAME = re.compile(r"^[a-z][a-z0-9-]{0,19}\Z")  # a member's name


def delegation_failure(code: str, message: str) -> ToolResult:
    """A failed delegate call: code (one of DELEGATION_CODES), message (str).

    tools.ToolResult.failure takes only the contract's own RESULT_CODES; these codes belong to the
    delegate tool, so they are checked against DELEGATION_CODES here instead.

    Raises: ValueError naming the code when it is not one of DELEGATION_CODES.
    Example: delegation_failure(CYCLE, "lead is already in the chain").code -> "cycle"
    """
    if code not in DELEGATION_CODES:
        raise ValueError(f"unknown delegation code {code!r}; expected one of {', '.join(DELEGATION_CODES)}")
    return ToolResult(False, error={"code": code, "message": message})


class DelegateArgs(BaseModel):
    """Arguments of the delegate tool: to (a member's name), goal (the subtask), tools (what the worker may use).

    Example: DelegateArgs(to="reader", goal="Check T-601.", tools=["get_ticket"])
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    to: str = Field(pattern=r"^[a-z][a-z0-9-]{0,19}$", max_length=20)  # pydantic: $ here allows no final newline
    goal: str = Field(min_length=1, max_length=300)
    tools: list[str] = Field(max_length=5)


@dataclass
class Counted:
    """A decider whose every decision is counted once, in the team's shared step count.

    inner (Decider), team (Team). free is the inner decider's. Example: Counted(FixedPlan(plan), team)
    """

    inner: Decider
    team: Team

    @property
    def free(self) -> bool:
        return self.inner.free

    def decide(self, state: AgentState, request: LLMRequest) -> LLMResponse:
        self.team.steps += 1
        return self.inner.decide(state, request)


@dataclass
class TeamAgent(InterruptibleAgent):
    """An agent of a Team: before every step, its interrupt and own limits, then the tree's budget."""

    team: Team | None = None

    def _over_budget(self, state: AgentState, request: LLMRequest, start: float) -> str:
        own = super()._over_budget(state, request, start)  # cancel, own steps and time, cost on the shared ledger
        return own or (self.team.spent() if self.team is not None else "")


@dataclass
class Team:
    """Agents that may hand subtasks to each other, under one budget, one audit log and one interrupt.

    members (dict name -> Decider; the first is the coordinator), user (str, the person all agents act
    for), tools (the coordinator's tools; workers get at most their delegator's), grant (bool, the
    coordinator's write grant), budget (RunBudget for the whole tree), max_depth (int, hand-offs from the
    coordinator), clock, interrupt, outbox, ledger, audit (shared by every agent).
    Attributes after a run: steps (int, decisions of all agents), runs (list of (chain, Run) per worker).
    Raises ValueError naming the field for no members, a bad member name, or max_depth not an int >= 0.
    Example: Team({"lead": FixedPlan([("delegate", {"to": "reader", "goal": "Check T-601.",
    "tools": ["get_ticket"]})]), "reader": ModelDecider(FakeModel())}).run("Check T-601.").reason == "done"
    """

    members: dict[str, Decider]
    user: str = "kwame"
    tools: frozenset[str] = frozenset({"get_ticket", "lookup_document", DELEGATE})
    grant: bool = False
    budget: RunBudget = field(default_factory=RunBudget)
    max_depth: int = 2
    clock: ManualClock = field(default_factory=ManualClock)
    interrupt: Interrupt = field(default_factory=Interrupt)
    outbox: Outbox = field(default_factory=Outbox)
    ledger: Ledger = field(default_factory=Ledger)
    audit: AuditLog = field(default_factory=AuditLog)
    pending: dict[str, PendingAction] = field(default_factory=dict)
    steps: int = 0
    runs: list[tuple[tuple[str, ...], Run]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.members or not all(isinstance(n, str) and NAME.match(n) for n in self.members):
            raise ValueError(f"members: need at least one, each named like 'reader', got {list(self.members)[:5]!r}")
        if isinstance(self.max_depth, bool) or not isinstance(self.max_depth, int) or self.max_depth < 0:
            raise ValueError(f"max_depth must be an int >= 0, got {self.max_depth!r}")
        self.tools = frozenset(self.tools)
        self._start, self._run_id, self._workers = self.clock(), "run-1", 0

    def run(self, goal: str, run_id: str = "run-1") -> Run:
        """The coordinator runs goal; each worker runs inside the delegate call that started it.

        goal (str), run_id (str; workers get run_id-w1, -w2, ...). Returns the coordinator's Run.
        Example: team.run("Check T-601.", run_id="b12").state.status
        """
        self._start, self._run_id = self.clock(), run_id
        coordinator = next(iter(self.members))
        return self.agent((coordinator,), self.tools, self.grant).run(goal, run_id)

    def spent(self) -> str:
        """The tree's reason to stop, or "": steps by every agent, or time since the tree started.

        Cost needs no check here: every agent checks the shared ledger against budget.max_cost itself.
        Example: Team(members, budget=RunBudget(max_steps=1)).spent() == ""  # before any step
        """
        if self.steps >= self.budget.max_steps:
            return "step_budget"
        if self.clock() - self._start >= self.budget.max_seconds:
            return "time_budget"
        return ""

    def agent(self, chain: tuple[str, ...], tools: frozenset[str], may_write: bool) -> TeamAgent:
        """The agent at the end of chain, allowed exactly tools (and writes if may_write), on shared parts.

        chain (tuple of member names, coordinator first), tools (frozenset of tool names), may_write (bool).
        Example: team.agent(("lead",), team.tools, False).run("Check T-601.")
        """
        task = "coordinate" if len(chain) == 1 else "delegated"
        registry = lab_registry(self.outbox)
        registry.register(Tool(DELEGATE, DelegateArgs, partial(self.delegate, chain, tools, may_write),
                               description="Hand a subtask to another agent of the team."))
        gate = ToolGate(registry, Policy(allow={task: tools}, write_tasks={task} if may_write else set()), self.audit)
        gate.pending = self.pending  # one numbering of parked writes for the whole tree
        return TeamAgent(Counted(self.members[chain[-1]], self), gate, Session(self.user, (task,)), task,
                         self.budget, self.clock, self.ledger, interrupt=self.interrupt, team=self)

    def delegate(self, chain: tuple[str, ...], tools: frozenset[str], may_write: bool,
                 arguments: dict[str, Any], caller: str) -> ToolResult:
        """The delegation boundary: refuse with a named code, or run the worker and report how it ended.

        chain (the agents so far, coordinator first), tools and may_write (the delegator's permissions),
        arguments (validated DelegateArgs as a dict), caller (user id). Returns success {"worker",
        "answer", "calls"} when the worker finished, else a failure: one of REFUSALS or WORKER_STOPPED.
        """
        to, wanted = arguments["to"], frozenset(arguments["tools"])
        if to not in self.members:
            return delegation_failure(UNKNOWN_AGENT, f"no agent called {to}")
        if to in chain:
            return delegation_failure(CYCLE, f"{to} is already in the chain {' -> '.join(chain)}")
        if len(chain) > self.max_depth:
            return delegation_failure(DEPTH_LIMIT, f"{' -> '.join(chain)} is already {len(chain) - 1} hand-offs deep;"
                                                    f" the limit is {self.max_depth}")
        if extra := sorted(wanted - tools):
            return delegation_failure(ESCALATION, f"{chain[-1]} cannot give {', '.join(extra)}: it does not have it")
        if reason := self.spent():
            return delegation_failure(BUDGET_SPENT, f"the tree's {reason} is used up")
        self._workers += 1
        run = self.agent((*chain, to), wanted, may_write).run(arguments["goal"], f"{self._run_id}-w{self._workers}")
        self.runs.append(((*chain, to), run))
        if run.state.status == DONE:
            return ToolResult.success({"worker": to, "answer": run.state.answer, "calls": list(run.calls)})
        return delegation_failure(WORKER_STOPPED, f"{to} ended {run.state.status}: {run.reason}")
