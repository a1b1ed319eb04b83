"""The agent subpackage: a controlled loop of state, proposal, check, gated action and observation.

state.py (typed run state, legal transitions, reasons, trace), loop.py (proposals, checks, budgets
and the loop itself), memory.py (bounded session memory with tagged, expiring notes), fakes.py
(scripted fake models that misbehave on purpose), scenarios.py (the lab and the failure table).
On top of the loop: approval.py (a person decides on a parked write), checkpoint.py (a paused run
on disk, signed, resumed once), interrupt.py (cancel between steps), delegation.py (agents handing
subtasks to agents under one budget), boundaries.py (the second scenario table), cli.py (the
same steps from a terminal), identity.py, locks.py, sendlog.py and decisionlog.py (who decides, and
what every copy of a checkpoint shares), proposals.py (memory a model proposes, held for a person)
and poisoning.py (text that tries to become memory, now or for a later run, with its table
kit/data/agent/poisoning.jsonl); attacks.py holds the agent's attack table, kit/data/agent/attacks.jsonl.
Import from the modules directly, e.g. `from evidencedesk.agent.loop import Agent`. Left out: real
models, real people and parallel agents.
"""
