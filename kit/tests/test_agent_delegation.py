"""Tests of evidencedesk.agent.delegation: hand-offs between agents under one budget, with bounded permissions."""

from __future__ import annotations

from decimal import Decimal

import pytest

from evidencedesk.agent.delegation import Team
from evidencedesk.agent.fakes import FakeModel
from evidencedesk.agent.interrupt import Interrupt
from evidencedesk.agent.loop import FixedPlan, ModelDecider, RunBudget
from evidencedesk.usage import ManualClock, SlowClient

READS = ["get_ticket", "lookup_document"]
WITH_EMAIL = frozenset(READS + ["delegate", "send_email_draft"])  # a coordinator that has the email tool
EMAIL = {"to": "kwame@example.org", "subject": "Re: T-601", "body": "On its way.", "idempotency_key": "t-601-reply-1"}


def hand(to: str, goal: str = "Check T-601.", tools: list[str] | None = None) -> tuple[str, dict]:
    return ("delegate", {"to": to, "goal": goal, "tools": ["get_ticket"] if tools is None else tools})


def plan(*steps: tuple[str, dict]) -> FixedPlan:
    return FixedPlan(list(steps))


def sensible() -> ModelDecider:
    return ModelDecider(FakeModel("sensible"))


def delegations(team: Team) -> list[tuple[str, str]]:
    """(run id, outcome) of every delegate call in the shared audit log."""
    return [(e["run_id"], e["outcome"]) for e in team.audit.events if e["tool"] == "delegate"]


def test_a_hand_off_runs_the_worker_and_the_coordinator_cites_it() -> None:
    team = Team({"lead": plan(hand("reader")), "reader": sensible()})
    run = team.run("Check T-601.", run_id="t1")
    assert (run.state.status, run.calls, run.state.sources) == ("done", ("delegate",), ("o1",))
    (chain, worker), = team.runs
    assert (chain, worker.state.run_id, worker.calls, worker.reason) == (("lead", "reader"), "t1-w1",
                                                                        ("get_ticket",), "done")
    assert '"worker": "reader"' in run.state.observations[0].text and delegations(team) == [("t1", "ok")]


@pytest.mark.parametrize("members, max_depth, code", [
    ({"lead": plan(hand("nobody"))}, 2, "unknown_agent"),
    ({"lead": plan(hand("lead", tools=["delegate"]))}, 2, "cycle"),
    ({"lead": plan(hand("reader"))}, 0, "depth_limit"),
    ({"lead": plan(hand("reader", tools=["send_email_draft"]))}, 2, "escalation"),
    ({"lead": plan(hand("reader", tools=["delegate", "lookup_document", "get_ticket", "x"]))}, 2, "escalation"),
])
def test_a_refused_hand_off_is_an_observation_with_a_named_code(members: dict, max_depth: int, code: str) -> None:
    team = Team({**members, "reader": sensible()}, max_depth=max_depth)
    run = team.run("Check T-601.", run_id="t1")
    assert delegations(team) == [("t1", code)] and team.runs == []  # refused before any worker ran
    assert run.state.observations[0].text.startswith(f"error {code}: ")
    assert (run.state.status, run.reason) == ("stopped", "stuck")  # the plan's finish has nothing to cite


def test_handing_work_back_up_the_chain_is_refused() -> None:
    team = Team({"lead": plan(hand("echo", tools=["delegate"])), "echo": plan(hand("lead", tools=[]))})
    team.run("Check T-601.", run_id="t1")
    assert delegations(team) == [("t1-w1", "cycle"), ("t1", "worker_stopped")]
    assert "lead is already in the chain lead -> echo" in team.runs[0][1].state.observations[0].text


def test_depth_counts_hand_offs_from_the_coordinator() -> None:
    relay = ["delegate", "get_ticket"]
    members = {"lead": plan(hand("a", tools=relay)), "a": plan(hand("b", tools=relay)), "b": plan(hand("c")),
               "c": sensible()}
    team = Team(members, max_depth=2)
    team.run("Check T-601.", run_id="t1")
    assert [chain for chain, _ in team.runs] == [("lead", "a", "b"), ("lead", "a")]  # c never ran
    assert delegations(team)[0] == ("t1-w2", "depth_limit")
    deeper = Team(members, max_depth=3)  # one more hand-off allowed: c runs
    deeper.run("Check T-601.", run_id="t1")
    assert ("lead", "a", "b", "c") in [chain for chain, _ in deeper.runs]


def test_a_worker_gets_exactly_the_tools_it_was_given() -> None:
    team = Team({"lead": plan(hand("reader", goal="What is the status of T-601 and our refund policy?")),
                 "reader": sensible()})
    team.run("Check T-601.", run_id="t1")
    worker = team.runs[0][1]
    assert worker.trace.codes("check") == ["ok", "not_allowed", "not_allowed"]  # lookup_document was not handed on
    assert (worker.reason, delegations(team)) == ("stuck", [("t1", "worker_stopped")])


def test_one_step_budget_for_the_whole_tree() -> None:
    team = Team({"lead": plan(hand("wanderer", goal="Find anything useful.", tools=READS)),
                 "wanderer": ModelDecider(FakeModel("wander"))}, budget=RunBudget(max_steps=4))
    run = team.run("Find anything useful.", run_id="t1")
    worker = team.runs[0][1]
    assert (team.steps, run.state.step, worker.state.step) == (4, 1, 3)  # 1 + 3 decisions, counted once
    assert (worker.reason, run.reason) == ("step_budget", "step_budget")


def test_no_step_left_means_no_worker_starts() -> None:
    team = Team({"lead": plan(hand("reader")), "reader": sensible()}, budget=RunBudget(max_steps=1))
    run = team.run("Check T-601.", run_id="t1")
    assert delegations(team) == [("t1", "budget_spent")] and team.runs == [] and run.reason == "step_budget"


def test_one_clock_for_the_whole_tree() -> None:
    clock = ManualClock()
    slow = ModelDecider(SlowClient(FakeModel("wander"), clock, base_s=2.0))
    team = Team({"lead": plan(hand("wanderer", goal="Find anything useful.", tools=READS)), "wanderer": slow},
                budget=RunBudget(max_seconds=5.0), clock=clock)
    run = team.run("Find anything useful.", run_id="t1")
    assert (team.runs[0][1].reason, run.reason) == ("time_budget", "time_budget") and clock() >= 5.0


def test_one_ledger_for_the_whole_tree() -> None:
    limit = Decimal("0.005")
    team = Team({"lead": ModelDecider(FakeModel("wander")), "reader": sensible()}, budget=RunBudget(max_cost=limit))
    lead_only = team.run("Find anything useful.", run_id="t1")
    assert lead_only.reason == "cost_budget" and team.ledger.summary().cost <= limit
    spent = Team({"lead": plan(hand("wanderer", goal="Find anything useful.", tools=READS)),
                  "wanderer": ModelDecider(FakeModel("wander"))}, budget=RunBudget(max_cost=limit))
    spent.run("Find anything useful.", run_id="t2")
    assert spent.runs[0][1].reason == "cost_budget" and spent.ledger.summary().cost <= limit


def test_a_write_through_a_worker_is_still_parked_for_approval() -> None:
    team = Team({"lead": plan(hand("mailer", tools=["send_email_draft"])),
                 "mailer": plan(("send_email_draft", EMAIL))}, tools=WITH_EMAIL, grant=True)
    team.run("Reply to T-601.", run_id="t1")
    worker = team.runs[0][1]
    assert (worker.state.status, worker.state.pending_id) == ("awaiting_approval", "pa-1")
    assert list(team.pending) == ["pa-1"] and team.outbox.sent == []  # no second path past the approval
    assert delegations(team) == [("t1", "worker_stopped")]


def test_no_write_grant_is_handed_on_that_the_delegator_lacks() -> None:
    team = Team({"lead": plan(hand("mailer", tools=["send_email_draft"])),
                 "mailer": plan(("send_email_draft", EMAIL))}, tools=WITH_EMAIL)
    team.run("Reply to T-601.", run_id="t1")
    assert team.runs[0][1].trace.codes("tool") == ["not_allowed"] and team.pending == {} and team.outbox.sent == []


def test_a_cancel_reaches_every_agent_of_the_tree() -> None:
    interrupt = Interrupt()
    reader = FixedPlan([("get_ticket", {"ticket_id": "T-601"})])

    class PressesStop:  # the person presses Stop while the worker takes its first step
        free = True

        def decide(self, state, request):
            interrupt.set()
            return reader.decide(state, request)

    team = Team({"lead": plan(hand("reader")), "reader": PressesStop()}, interrupt=interrupt)
    run = team.run("Check T-601.", run_id="t1")
    worker = team.runs[0][1]
    assert (worker.reason, worker.calls, worker.state.observations[0].ok) == ("cancelled", ("get_ticket",), True)
    assert (run.reason, team.steps) == ("cancelled", 2)  # the step under way finished; no other started


def test_the_same_hand_off_twice_is_a_repeat() -> None:
    team = Team({"lead": plan(hand("reader"), hand("reader")), "reader": sensible()})
    assert team.run("Check T-601.").reason == "repeated_call" and len(team.runs) == 1


@pytest.mark.parametrize("arguments", [{"to": "Reader", "goal": "x", "tools": []}, {"to": "reader\n", "goal": "x",
                                       "tools": []}, {"to": "reader", "goal": "", "tools": []},
                                       {"to": "reader", "goal": "x", "tools": ["a"] * 6}, {"to": "reader"}])
def test_malformed_hand_offs_never_reach_the_boundary(arguments: dict) -> None:
    team = Team({"lead": plan(("delegate", arguments)), "reader": sensible()})
    run = team.run("Check T-601.")
    assert run.trace.codes("check") == ["invalid_arguments", "unsupported_finish"] and team.runs == []


@pytest.mark.parametrize("members, depth, named", [({}, 2, "members"), ({"Lead": sensible()}, 2, "members"),
                                                   ({"lead": sensible()}, -1, "max_depth"),
                                                   ({"lead": sensible()}, True, "max_depth")])
def test_a_bad_team_is_named(members: dict, depth: object, named: str) -> None:
    with pytest.raises(ValueError, match=named):
        Team(members, max_depth=depth)  # type: ignore[arg-type]


def test_a_delegation_failure_takes_only_the_delegate_tools_own_codes() -> None:
    from evidencedesk.agent.delegation import DELEGATION_CODES, delegation_failure

    assert [delegation_failure(code, "why").code for code in DELEGATION_CODES] == list(DELEGATION_CODES)
    with pytest.raises(ValueError, match="unknown delegation code 'not_found'"):
        delegation_failure("not_found", "a contract code is not a delegation code")
