"""The planning subpackage: plan-then-execute, where the model proposes a whole typed plan once.

results.py (what each tool returns, which fields the application vouches for, and the get_contact
tool), plan.py (the typed plan, references between steps, and what the planner and the writer see),
graph.py (the plan's dependency graph: unknown steps and fields, cycles, late references, a Mermaid
drawing), checks.py (the whole plan checked before step 1: allowlist, literal arguments, data flow,
graph, worst-case budget), fakes.py (scripted fake planners, good and bad), execute.py (the run:
check, execute through the gate, bounded replanning, the writer), scenarios.py (the lab and the
table kit/data/planning/scenarios.jsonl) and compare.py (the same tasks as the agent loop's, run
both ways). It builds on the agent subpackage. Import from the modules directly, e.g.
`from evidencedesk.planning.execute import PlanAgent`. Left out: real models, plans with branches,
and steps run in parallel.
"""
