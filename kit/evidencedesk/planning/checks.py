"""The whole plan checked before step 1: tools, literal arguments, graph, data flow and budget.

check_plan() returns every Problem it finds, in a fixed order, and a plan runs only when there is
none. Per step: a tool outside the task's allowlist, or one that does not exist, is NOT_ALLOWED (one
answer for both, as at the gate); the literal arguments must fit the tool's schema, leaving out those
a reference fills, which the gate checks when the step runs (INVALID_ARGUMENTS); a write must be the
last step (WRITE_NOT_LAST), since the gate parks it and the run then waits for a person. Then the
dependency graph (graph.py). Then the data flow: a reference may fill a GUARDED argument, such as an
email's recipient, only from a TRUSTED field (UNTRUSTED_SOURCE). Last the budget, for the whole plan
at its worst: its tool calls against what the gate still takes in this run (CALL_LIMIT), and the
model calls it implies (the writer and its one repair, plan.writer_worst) against the model calls and
credits left (STEP_BUDGET, COST_BUDGET), each priced with budget.worst_case_cost. Left out: per-tool
call limits (the gate still enforces them) and time, which no plan can know in advance.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from pydantic import ValidationError

from evidencedesk.budget import COST_BUDGET, STEP_BUDGET, worst_case_cost
from evidencedesk.gate import CALL_LIMIT, INVALID_ARGUMENTS, NOT_ALLOWED, ToolGate
from evidencedesk.llm import LLMRequest
from evidencedesk.planning.graph import CYCLE, LATER_STEP, UNKNOWN_FIELD, UNKNOWN_STEP, graph_problems
from evidencedesk.planning.plan import Plan, Problem
from evidencedesk.planning.results import GUARDED, TRUSTED
from evidencedesk.tools import clip
from evidencedesk.usage import Price

WRITE_NOT_LAST = "write_not_last"  # a write with steps after it: they could never run in this run
UNTRUSTED_SOURCE = "untrusted_source"  # a guarded argument filled from a field the application does not vouch for
# every code check_plan can return, in the order it checks
CODES = (NOT_ALLOWED, INVALID_ARGUMENTS, WRITE_NOT_LAST, UNKNOWN_STEP, UNKNOWN_FIELD, CYCLE, LATER_STEP,
         UNTRUSTED_SOURCE, CALL_LIMIT, STEP_BUDGET, COST_BUDGET)


@dataclass(frozen=True)
class Room:
    """What the run may still spend when a plan arrives, and the prices to count it in.

    tool_calls (int, calls the gate still takes in this run), model_calls (int, calls the step budget
    still allows), credits (Decimal, credits left under max_cost), prices (dict model -> usage.Price).
    Example: Room(10, 7, Decimal("0.048"), load_prices())
    """

    tool_calls: int
    model_calls: int
    credits: Decimal
    prices: dict[str, Price]


def tool_problems(plan: Plan, gate: ToolGate, task: str) -> list[Problem]:
    """Each step's tool against the task's allowlist, its literal arguments against the tool's schema, and
    writes before the last step. Args: plan (Plan); gate (ToolGate: registry and policy); task (str).

    Example: [p.code for p in tool_problems(plan, gate, "triage")] -> ["not_allowed"]
    """
    problems = []
    allowed = gate.policy.tools_for(task) & gate.registry.names()
    for step in plan.steps:
        if step.tool not in allowed:  # made-up and forbidden tools get the same answer
            problems.append(Problem(step.id, NOT_ALLOWED, f"tool {clip(step.tool)!r} is not available for this task"))
            continue
        tool = gate.registry.get(step.tool)
        filled = {name for name, _ in step.refs()}
        for name in sorted(filled - set(tool.args.model_fields)):
            problems.append(Problem(step.id, INVALID_ARGUMENTS, f"{name}: {step.tool} takes no such argument"))
        try:
            tool.args.model_validate({k: v for k, v in step.arguments.items() if k not in filled})
        except ValidationError as exc:
            for error in exc.errors():
                where = ".".join(str(part) for part in error["loc"]) or "arguments"
                if not (error["type"] == "missing" and error["loc"][0] in filled):  # a reference fills it later
                    problems.append(Problem(step.id, INVALID_ARGUMENTS, f"{where}: {error['msg']}"))
        if tool.writes and step is not plan.steps[-1]:
            after = f"{step.tool} parks the run; the steps after it never run"
            problems.append(Problem(step.id, WRITE_NOT_LAST, after))
    return problems


def flow_problems(plan: Plan, guarded: frozenset[tuple[str, str]] = GUARDED,
                  trusted: frozenset[tuple[str, str]] = TRUSTED) -> list[Problem]:
    """References that fill a guarded argument (tool, argument) from a field not in trusted (tool, field).

    Example: [p.code for p in flow_problems(plan)] -> ["untrusted_source"]
    """
    problems = []
    for step in plan.steps:
        for name, ref in step.refs():
            source = plan.step(ref.step)
            if (step.tool, name) in guarded and source is not None and (source.tool, ref.field) not in trusted:
                problems.append(Problem(step.id, UNTRUSTED_SOURCE, f"{name} of {step.tool} may come only from a "
                                                                   f"trusted field, not {source.tool}.{ref.field}"))
    return problems


def budget_problems(plan: Plan, implied: tuple[LLMRequest, ...], room: Room) -> list[Problem]:
    """The plan at its worst against what the run has left: tool calls, model calls, credits.

    Args: plan (Plan); implied (the model requests the plan can cause at their largest, e.g.
    plan.writer_worst); room (Room). Raises usage.UnknownModel for a request to an unpriced model.
    Example: budget_problems(plan, writer_worst(goal, plan, "fake-agent-1", 300), room) -> []
    """
    problems = []
    if len(plan.steps) > room.tool_calls:
        problems.append(Problem("", CALL_LIMIT, f"{len(plan.steps)} tool calls; the gate takes {room.tool_calls} "
                                                "more in this run"))
    if len(implied) > room.model_calls:
        problems.append(Problem("", STEP_BUDGET, f"{len(implied)} model calls at most; {room.model_calls} left"))
    worst = sum((worst_case_cost(request, room.prices) for request in implied), Decimal(0))
    if worst > room.credits:
        problems.append(Problem("", COST_BUDGET, f"{worst} credits at worst; {room.credits} left"))
    return problems


def check_plan(plan: Plan, gate: ToolGate, task: str, implied: tuple[LLMRequest, ...], room: Room, *,
               guarded: frozenset[tuple[str, str]] = GUARDED) -> list[Problem]:
    """Every reason to refuse plan before step 1, in CODES order per check; an empty list means it may run.

    Args: plan (Plan); gate (ToolGate); task (str); implied (model requests the plan implies, at their
    largest); room (Room); guarded (the (tool, argument) pairs only a trusted field may fill; frozenset()
    turns the data-flow rule off, to see what it stops). Raises usage.UnknownModel for an unpriced model.
    Example: check_plan(plan, gate, "triage", writer_worst(goal, plan, "fake-agent-1", 300), room) -> []
    """
    return [*tool_problems(plan, gate, task), *graph_problems(plan), *flow_problems(plan, guarded),
            *budget_problems(plan, implied, room)]
