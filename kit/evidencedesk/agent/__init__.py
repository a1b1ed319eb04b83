"""The agent subpackage: a controlled loop of state, proposal, check, gated action and observation.

state.py (typed run state, legal transitions, reasons, trace), loop.py (proposals, checks, budgets
and the loop itself), memory.py (bounded session memory with tagged, expiring notes), fakes.py
(scripted fake models that misbehave on purpose), scenarios.py (the lab and the failure table).
Import from the modules directly, e.g. `from evidencedesk.agent.loop import Agent`. Left out:
approvals, resume from checkpoints and multi-agent delegation (the next page).
"""
