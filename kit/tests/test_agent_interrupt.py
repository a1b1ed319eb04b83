"""Tests of evidencedesk.agent.interrupt: cancel ends a run at the next step boundary, with nothing half done."""

from __future__ import annotations

import pytest

from evidencedesk.agent.interrupt import Interrupt, InterruptibleAgent
from evidencedesk.agent.loop import FixedPlan, RunBudget
from evidencedesk.agent.scenarios import lab
from evidencedesk.tools import Tool, ToolResult

EMAIL = {"to": "kwame@example.org", "subject": "Re: T-601", "body": "On its way.", "idempotency_key": "t-601-reply-1"}
REPLY = [("get_ticket", {"ticket_id": "T-601"}), ("send_email_draft", EMAIL)]
GOAL = "What is the status of T-601 and our refund policy?"


def test_set_before_the_run_stops_it_before_any_step() -> None:
    interrupt = Interrupt()
    interrupt.set()
    agent = InterruptibleAgent.wrap(lab()[0], interrupt)
    run = agent.run(GOAL)
    assert (run.reason, run.state.step, run.calls, run.ledger.summary().calls) == ("cancelled", 0, (), 0)


def test_a_stop_during_a_step_lets_that_step_finish_and_starts_no_other() -> None:
    agent = InterruptibleAgent.wrap(lab()[0], Interrupt(after_step=1))
    run = agent.run(GOAL)
    assert (run.state.status, run.reason, run.calls) == ("stopped", "cancelled", ("get_ticket",))
    assert [o.tool for o in run.state.observations] == ["get_ticket"]  # the call that started has its observation
    assert run.trace.lines()[-2:] == [" 1 memory ok", " 1 stop   cancelled          status=stopped"]


def test_an_interrupt_set_while_a_tool_runs_takes_effect_after_it() -> None:
    agent, _ = lab()
    interrupt = Interrupt()
    tool = agent.gate.registry.get("get_ticket")

    def slow_read(arguments: dict, caller: str) -> ToolResult:  # the person presses Stop mid-call
        interrupt.set()
        return tool.function(arguments, caller)

    agent.gate.registry._tools["get_ticket"] = Tool("get_ticket", tool.args, slow_read)
    run = InterruptibleAgent.wrap(agent, interrupt).run(GOAL)
    assert (run.reason, run.calls, run.state.observations[-1].ok) == ("cancelled", ("get_ticket",), True)


def test_a_cancelled_run_never_proposes_or_parks_its_write() -> None:
    agent, outbox = lab(decider=FixedPlan(REPLY), task="reply", grant=True)
    run = InterruptibleAgent.wrap(agent, Interrupt(after_step=1)).run("Reply to T-601.")
    assert (run.reason, run.calls, agent.gate.pending, outbox.sent) == ("cancelled", ("get_ticket",), {}, [])


def test_the_interrupt_outranks_a_budget_that_is_also_spent() -> None:
    agent, _ = lab(budget=RunBudget(max_steps=1))
    assert InterruptibleAgent.wrap(agent, Interrupt(after_step=1)).run(GOAL).reason == "cancelled"
    assert InterruptibleAgent.wrap(lab(budget=RunBudget(max_steps=1))[0], Interrupt()).run(GOAL).reason == \
        "step_budget"


def test_without_an_interrupt_the_run_is_the_plain_agents() -> None:
    plain = lab()[0].run(GOAL)
    wrapped = InterruptibleAgent.wrap(lab()[0], Interrupt()).run(GOAL)
    assert wrapped.trace.lines() == plain.trace.lines() and wrapped.state == plain.state


def test_wrap_keeps_the_agents_parts() -> None:
    agent, _ = lab()
    wrapped = InterruptibleAgent.wrap(agent, Interrupt())
    assert (wrapped.gate, wrapped.ledger, wrapped.memory, wrapped.clock) == (agent.gate, agent.ledger, agent.memory,
                                                                             agent.clock)


@pytest.mark.parametrize("after_step", [-1, True, 1.5, "1"])
def test_a_bad_after_step_is_named(after_step: object) -> None:
    with pytest.raises(ValueError, match="after_step"):
        Interrupt(after_step=after_step)  # type: ignore[arg-type]
