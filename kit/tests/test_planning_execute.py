"""Tests of evidencedesk.planning.execute: plan, check, run through the gate, replan within a bound, write."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from evidencedesk.agent.loop import RunBudget
from evidencedesk.llm import LLMRequest, LLMResponse, ScriptedClient
from evidencedesk.planning.execute import fill
from evidencedesk.planning.fakes import FakePlanner
from evidencedesk.planning.plan import Step
from evidencedesk.planning.scenarios import lab

POLICY_GOAL = "What is the status of T-601 and our refund policy?"
REPLY_GOAL = "Read T-602 and reply to it."


class Recorder:
    """Wraps a client and keeps every request it was sent."""

    def __init__(self, inner: object) -> None:
        self.inner, self.requests = inner, []

    def complete(self, request: LLMRequest) -> LLMResponse:
        self.requests.append(request)
        return self.inner.complete(request)


def scripted(*replies: object) -> ScriptedClient:
    return ScriptedClient([r if isinstance(r, str) else json.dumps(r) for r in replies])


def test_a_good_plan_runs_its_steps_then_the_writer() -> None:
    agent, outbox = lab()
    run = agent.run(POLICY_GOAL)
    assert (run.status, run.reason, run.calls, run.sources) == ("done", "done", ("get_ticket", "lookup_document"),
                                                                ("s1", "s2"))
    assert run.answer == "T-601 is open; see kc-returns-v3." and agent.ledger.summary().calls == 2
    audit = [(e["tool"], e["outcome"]) for e in agent.gate.audit.events]
    assert audit == [("get_ticket", "ok"), ("lookup_document", "ok")]
    assert run.trace[0].startswith("plan 1  ok") and run.trace[-1] == "stop    done             done"


def test_a_refused_plan_runs_nothing_and_pays_for_no_writer() -> None:
    agent, _ = lab("cycle")
    run = agent.run("Check T-601.")
    assert (run.status, run.reason, [p.code for p in run.problems]) == ("stopped", "plan_refused", ["cycle"])
    assert run.calls == () and agent.gate.audit.events == [] and agent.ledger.summary().calls == 1
    assert "check   cycle            s1: s1 needs s2 needs s1" in run.trace


def test_references_are_filled_from_earlier_results_and_the_write_parks() -> None:
    agent, outbox = lab(task="reply", grant=True)
    run = agent.run(REPLY_GOAL)
    parked = agent.gate.pending[run.pending_id]
    assert (run.status, run.reason, run.pending_id, outbox.sent) == ("awaiting_approval", "needs_approval", "pa-1", [])
    assert parked.call.arguments["to"] == "kwame@example.org"
    assert parked.call.arguments["subject"] == "Parcel left at the wrong door"  # the ticket's subject, by reference


def test_fill_replaces_only_references() -> None:
    step = Step.model_validate({"id": "s2", "tool": "t", "arguments": {"a": {"from": "s1", "field": "x"}, "b": "lit",
                                                                       "c": {"from": "s1", "field": "missing"}}})
    assert fill(step, {"s1": {"x": 7}}) == {"a": 7, "b": "lit", "c": None}


def test_a_failed_step_is_replanned_from_its_code_alone() -> None:
    agent, _ = lab("typo")
    agent.client = recorder = Recorder(FakePlanner("typo"))
    run = agent.run(POLICY_GOAL)
    assert (run.reason, len(run.plans), run.calls) == ("done", 2, ("get_ticket", "lookup_document") * 2)
    replan = recorder.requests[1]
    system, user = replan.messages[1].content, replan.messages[2].content
    assert "The previous plan failed at step s2 (lookup_document) with not_found." in system
    assert "kc-refunds-v3" in user  # the previous plan, untrusted, in the user message
    assert "Refund for a blender" not in system + user and "no document" not in system + user  # no tool result


@pytest.mark.parametrize("max_replans, plans", [(0, 1), (1, 2), (2, 3)])
def test_replanning_is_bounded(max_replans: int, plans: int) -> None:
    agent, _ = lab("stubborn", max_replans=max_replans)
    run = agent.run(POLICY_GOAL)
    assert (run.status, run.reason, len(run.plans), len(run.calls)) == ("stopped", "replan_limit", plans, 2 * plans)


def test_a_replanned_plan_is_checked_whole_again() -> None:
    agent, _ = lab("stubborn", budget=RunBudget(max_steps=3))
    run = agent.run(POLICY_GOAL)
    assert (run.reason, [p.code for p in run.problems], len(run.calls)) == ("plan_refused", ["step_budget"], 2)


def test_a_filled_argument_the_gate_refuses_fails_its_step() -> None:
    plan = {"steps": [{"id": "s1", "tool": "get_ticket", "arguments": {"ticket_id": "T-602"}},
                      {"id": "s2", "tool": "get_contact", "arguments": {"ticket_id": "T-602"}},
                      {"id": "s3", "tool": "send_email_draft", "arguments": {
                          "to": {"from": "s2", "field": "on_file"}, "subject": {"from": "s1", "field": "body"},
                          "body": "Thanks.", "idempotency_key": "t-602-ack-1"}}]}
    agent, outbox = lab(task="reply", grant=True, max_replans=0)
    agent.client = scripted(plan)
    run = agent.run(REPLY_GOAL)
    assert run.reason == "replan_limit" and agent.gate.audit.events[-1]["outcome"] == "invalid_arguments"
    assert agent.gate.pending == {} and outbox.sent == []  # a body is too long for a subject, so nothing is parked


def test_the_writer_must_cite_steps_that_ran() -> None:
    one_step = {"steps": [{"id": "s1", "tool": "get_ticket", "arguments": {"ticket_id": "T-601"}}]}
    for answer in ({"answer": "Open.", "sources": ["s7"]}, "Sure, it is open."):
        agent, _ = lab()
        agent.client = scripted(one_step, answer, answer)
        assert agent.run("Check T-601.").reason == "no_answer"


def test_budget_refusals_stop_before_the_spend() -> None:
    agent, _ = lab(budget=RunBudget(max_cost=Decimal("0.001")))
    run = agent.run("Check T-601.")
    assert (run.reason, agent.ledger.summary().calls, run.calls) == ("cost_budget", 0, ())
    agent, _ = lab(budget=RunBudget(max_cost=Decimal("0.008")))
    run = agent.run(POLICY_GOAL)
    assert (run.reason, [p.code for p in run.problems], run.calls) == ("plan_refused", ["cost_budget"], ())


def test_no_plan_after_the_one_repair() -> None:
    agent, _ = lab("garbage")
    run = agent.run("Check T-601.")
    assert (run.reason, run.plans, agent.ledger.summary().calls) == ("no_plan", (), 2)


def test_a_planted_note_never_reaches_the_planner() -> None:
    agent, _ = lab("obey")
    agent.client = recorder = Recorder(FakePlanner("obey"))
    run = agent.run("Read T-602 and summarise it.")
    assert run.calls == ("get_ticket",) and "NOTE TO THE ASSISTANT" not in str(recorder.requests[0].messages)
    assert "NOTE TO THE ASSISTANT" in str(recorder.requests[1].messages)  # the writer reads the result
    assert "evil@example.org" in run.answer  # so the words of the answer can still be steered


@pytest.mark.parametrize("user, task, reason", [("", "triage", "unauthenticated"), ("lena", "reply", "forbidden_task")])
def test_who_may_run_what(user: str, task: str, reason: str) -> None:
    agent, _ = lab(user=user, task=task)
    run = agent.run("Check T-601.")
    assert (run.status, run.reason, agent.ledger.summary().calls) == ("stopped", reason, 0)


@pytest.mark.parametrize("goal, run_id, name", [("", "plan-1", "goal"), ("x" * 301, "plan-1", "goal"),
                                                 (None, "plan-1", "goal"), ("Check T-601.", "Plan 1", "run_id")])
def test_bad_input_is_named(goal: object, run_id: str, name: str) -> None:
    with pytest.raises(ValueError, match=f"^{name} must"):
        lab()[0].run(goal, run_id=run_id)  # type: ignore[arg-type]

