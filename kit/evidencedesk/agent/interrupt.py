"""Cancel: an interrupt that ends a running agent as "cancelled" at the next step boundary.

A person (or a supervisor process) sets an Interrupt; an InterruptibleAgent checks it before every
step, in the same place as its budgets, so a step that has started (a tool call and its observation)
always completes, and no new step starts. Nothing is left half done: no call is cut off midway and
no parked write runs. A run that waits for approval is cancelled through its request instead
(ApprovalDesk.cancel). Left out: threads and signals; the kit's interrupts are set by code, so tests
stay deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from evidencedesk.agent.loop import Agent
from evidencedesk.agent.state import AgentState
from evidencedesk.llm import LLMRequest

CANCELLED = "cancelled"  # the stop reason (state.REASONS)


class Interrupt:
    """A stop request for one run, or for every agent that shares it (a delegation tree).

    after_step (int or None): simulates a person who presses Stop while that step runs; from then on
    is_set() is true. set() stops at the next boundary, whatever the step.
    Raises ValueError when after_step is not an int >= 0 or None.
    Example: interrupt = Interrupt(); interrupt.set(); interrupt.is_set() is True
    """

    def __init__(self, after_step: int | None = None) -> None:
        if after_step is not None and (type(after_step) is not int or after_step < 0):  # bool is not a step
            raise ValueError(f"after_step must be an int >= 0 or None, got {after_step!r}")
        self.after_step = after_step
        self._set = False

    def set(self) -> None:
        """Ask every run that holds this interrupt to stop at its next step boundary."""
        self._set = True

    def is_set(self, step: int = 0) -> bool:
        """True once set() was called, or once step (int, the steps a run has completed) reaches after_step."""
        return self._set or (self.after_step is not None and step >= self.after_step)


@dataclass
class InterruptibleAgent(Agent):
    """An Agent that also stops as "cancelled" when its interrupt is set, checked before every step.

    interrupt (Interrupt): shared with whoever may cancel. Everything else as Agent.
    Example: agent = InterruptibleAgent.wrap(lab()[0], Interrupt(after_step=1)); agent.run("Check T-601.").reason
    """

    interrupt: Interrupt = field(default_factory=Interrupt)

    @classmethod
    def wrap(cls, agent: Agent, interrupt: Interrupt) -> InterruptibleAgent:
        """The same agent (same gate, clock, ledger, memory and decider) with interrupt (Interrupt) added.

        Example: InterruptibleAgent.wrap(agent, Interrupt(after_step=1)).run("Check T-601.").reason == "cancelled"
        """
        return cls(**{f.name: getattr(agent, f.name) for f in fields(Agent)}, interrupt=interrupt)

    def _over_budget(self, state: AgentState, request: LLMRequest, start: float) -> str:
        """The interrupt first (it outranks every budget), then the agent's own limits."""
        if self.interrupt.is_set(state.step):
            return CANCELLED
        return super()._over_budget(state, request, start)
