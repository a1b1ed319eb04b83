"""A plan's dependency graph: which step needs which result, checked before anything runs, and drawn.

An edge runs from step A to step B when an argument of B is a Ref to A's result. graph_problems()
names each fault: a reference to a step the plan does not have (UNKNOWN_STEP), or to a field that the
source step's tool never returns (UNKNOWN_FIELD, from results.RESULT_FIELDS); a cycle (CYCLE, found
by a depth-first search; a step that refers to itself is a cycle of one); and a reference to a step
listed later (LATER_STEP). The executor runs steps in the order listed, so a plan whose order does
not follow its dependencies is refused, never reordered behind the reviewer's back: the order a
person reads is the order that runs. mermaid() draws the graph as a Mermaid flowchart. Left out:
running independent steps in parallel.
"""

from __future__ import annotations

from evidencedesk.planning.plan import Plan, Problem
from evidencedesk.planning.results import RESULT_FIELDS

UNKNOWN_STEP = "unknown_step"  # a reference to a step id the plan does not have
UNKNOWN_FIELD = "unknown_field"  # a reference to a field the source step's tool never returns
CYCLE = "cycle"  # steps that need each other's results: no order can run them
LATER_STEP = "later_step"  # a reference to a step listed after the one that needs it


def edges(plan: Plan) -> list[tuple[str, str, str, str]]:
    """(source step, target step, field, argument) for every reference to a step the plan has, in step order.

    Example: edges(plan) -> [("s2", "s3", "on_file", "to")]
    """
    ids = {step.id for step in plan.steps}
    return [(ref.step, step.id, ref.field, name) for step in plan.steps for name, ref in step.refs() if ref.step in ids]


def find_cycle(plan: Plan) -> list[str]:
    """The first cycle found, as the step ids in it, each needing the next (and the last the first); [] if none.

    Example: find_cycle(plan) -> ["s1", "s2"]  # s1 needs s2, which needs s1
    """
    needs: dict[str, list[str]] = {step.id: [] for step in plan.steps}
    for source, target, _field, _name in edges(plan):
        needs[target].append(source)
    done: set[str] = set()
    path: list[str] = []  # the steps being visited, each needing the next

    def visit(node: str) -> list[str]:
        path.append(node)
        for source in needs[node]:
            if source in path:
                return path[path.index(source):]
            if source not in done and (found := visit(source)):
                return found
        path.pop()
        done.add(node)
        return []

    for step in plan.steps:
        if step.id not in done and (found := visit(step.id)):
            return found
    return []


def graph_problems(plan: Plan, fields: dict[str, tuple[str, ...]] = RESULT_FIELDS) -> list[Problem]:
    """Every fault of the plan's dependency graph, in step order, then the cycle, then late references.

    Args: plan (Plan); fields (dict tool -> its result fields; a tool not in it is checked elsewhere).
    Returns: a list of Problem (empty: the graph is sound). Never raises.
    Example: [p.code for p in graph_problems(plan)] -> ["unknown_field"]
    """
    problems = []
    for step in plan.steps:
        for name, ref in step.refs():
            source = plan.step(ref.step)
            if source is None:
                missing = f"{name} refers to {ref.step}, which the plan does not have"
                problems.append(Problem(step.id, UNKNOWN_STEP, missing))
            elif source.tool in fields and ref.field not in fields[source.tool]:
                returns = ", ".join(fields[source.tool])
                problems.append(Problem(step.id, UNKNOWN_FIELD, f"{name} refers to {ref.step}.{ref.field}; "
                                                                f"{source.tool} returns {returns}"))
    cycle = find_cycle(plan)
    if cycle:
        problems.append(Problem(cycle[0], CYCLE, " needs ".join([*cycle, cycle[0]])))
    order = {step.id: position for position, step in enumerate(plan.steps)}
    for source, target, field, name in edges(plan):
        if order[source] >= order[target] and not {source, target} <= set(cycle):
            problems.append(Problem(target, LATER_STEP, f"{name} needs {source}.{field}, but {source} runs after it"))
    return problems


def mermaid(plan: Plan, refused: set[str] | frozenset[str] = frozenset()) -> str:
    """The plan as a Mermaid flowchart: one box per step (id and tool), one arrow per reference (field -> argument).

    refused (set of step ids) are drawn with a thick dashed border. Quotes in a tool name are escaped.
    Returns the diagram text, without the ``` fence. Example: print(mermaid(plan))
    """
    lines = ["flowchart LR"]
    for step in plan.steps:
        lines.append(f'    {step.id}["{step.id}: {step.tool.replace(chr(34), "#quot;")}"]')
    for source, target, field, name in edges(plan):
        lines.append(f'    {source} -- "{field} → {name}" --> {target}')
    if refused:
        lines.append("    classDef refused stroke-width:3px,stroke-dasharray:6 3")
        lines += [f"    class {step.id} refused" for step in plan.steps if step.id in refused]
    return "\n".join(lines)
