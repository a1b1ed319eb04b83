"""Tests of evidencedesk.trajectories.record: a trajectory read from a run's trace and ledger, and kept as data."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from evidencedesk.agent.loop import Run
from evidencedesk.agent.scenarios import load_scenarios, run_scenario
from evidencedesk.agent.state import Trace
from evidencedesk.trajectories.record import Trajectory, path, trajectory_of

ROWS = {row["id"]: row for row in load_scenarios()}


def test_the_normal_path_reads_two_calls_the_reason_the_steps_and_the_ledgers_credits() -> None:
    run, _ = run_scenario(ROWS["s01"])
    got = trajectory_of(run)
    assert (got.tools, got.outcomes, got.reason, got.steps) == (("get_ticket", "lookup_document"), ("ok", "ok"),
                                                                "done", 3)
    assert got.cost == run.ledger.summary().cost == Decimal("0.002367")
    assert got.line() == "get_ticket > lookup_document | done | 3 steps | 0.002367"


@pytest.mark.parametrize("row_id", list(ROWS))
def test_the_trace_holds_every_call_that_reached_the_gate_and_the_runs_own_reason(row_id: str) -> None:
    run, outbox = run_scenario(ROWS[row_id])
    got = trajectory_of(run)
    assert got.tools == run.calls and got.reason == run.reason and got.steps == run.state.step
    assert got.completed("send_email_draft") == len(outbox.sent) == 0


def test_a_parked_email_is_called_but_not_completed() -> None:
    got = trajectory_of(run_scenario(ROWS["s10"])[0])
    assert got.outcomes == ("ok", "needs_approval") and got.completed("send_email_draft") == 0
    assert got.completed("get_ticket") == 1


def test_a_run_stopped_before_its_first_step_has_no_tool_no_step_and_no_cost() -> None:
    got = trajectory_of(run_scenario(ROWS["s12"])[0])
    assert got.line() == "(no tool) | unauthenticated | 0 steps | 0"


def test_a_trajectory_saves_to_json_and_loads_back_equal_with_its_cost_as_a_decimal_string() -> None:
    got = trajectory_of(run_scenario(ROWS["s03"])[0])
    data = json.loads(got.model_dump_json())
    assert data["cost"] == "0.003447" and data["tools"] == ["lookup_document"] * 4
    assert Trajectory.model_validate(data) == got
    assert got.line() == "lookup_document x4 | step_budget | 4 steps | 0.003447"


def test_a_trace_without_its_stop_line_is_refused() -> None:
    run, _ = run_scenario(ROWS["s01"])
    cut = Trace()
    cut.entries = [e for e in run.trace.entries if e[1] != "stop"]
    with pytest.raises(ValueError, match="one stop line naming the run's reason 'done', found \\[\\]"):
        trajectory_of(Run(run.state, cut, run.calls, run.ledger))
    other = Trace()
    other.add(2, "stop", "stuck")
    with pytest.raises(ValueError, match="found \\['stuck'\\]"):
        trajectory_of(Run(run.state, other, run.calls, run.ledger))


GOOD = {"tools": ["get_ticket"], "outcomes": ["ok"], "reason": "done", "steps": 2, "cost": "0.0013"}


@pytest.mark.parametrize("change, field", [
    ({"reason": "finished"}, "reason"),
    ({"outcomes": []}, "1 tools but 0 outcomes"),
    ({"cost": 0.0013}, "cost"),
    ({"cost": "1e-3"}, "cost"),
    ({"cost": "-0.1"}, "cost"),
    ({"steps": "2"}, "steps"),
    ({"tools": ["Get Ticket"]}, "tools"),
    ({"answer": "yes"}, "answer"),
])
def test_a_malformed_trajectory_is_refused_naming_the_field(change: dict, field: str) -> None:
    with pytest.raises(ValidationError, match=field):
        Trajectory.model_validate({**GOOD, **change})


def test_path_writes_a_run_of_one_tool_once_with_its_count() -> None:
    assert path([]) == "(no tool)"
    assert path(["get_ticket"] * 8) == "get_ticket x8"
    assert path(["lookup_document", "lookup_document", "get_ticket", "lookup_document"]) == (
        "lookup_document x2 > get_ticket > lookup_document")


@given(st.lists(st.sampled_from(["get_ticket", "lookup_document", "send_email_draft"]), max_size=12))
def test_path_loses_no_call(tools: list[str]) -> None:
    expanded = []
    for part in path(tools).split(" > "):
        name, _, times = part.partition(" x")
        expanded += [name] * int(times or 1)
    assert expanded == (tools or ["(no tool)"])


def test_a_recording_gate_keeps_each_calls_arguments_in_the_trajectory() -> None:
    from evidencedesk.trajectories.candidates import CONFIGS
    from evidencedesk.trajectories.cases import golden_set
    from evidencedesk.trajectories.runner import build_agent

    golden = golden_set()
    case = next(c for c in golden.cases if c.id == "t13")
    agent = build_agent(case, CONFIGS["baseline"], golden.tickets)
    run = agent.run(case.goal, run_id="t13-r0")
    got = trajectory_of(run, agent.gate.calls)
    assert got.arguments == ({"ticket_id": "T-702"}, {"doc_id": "kc-returns-v3"})
    assert trajectory_of(run).arguments == ()  # not recorded
    with pytest.raises(ValueError, match="are not the trace's tools"):
        trajectory_of(run, agent.gate.calls[:1])


def test_arguments_are_one_per_call_or_none() -> None:
    with pytest.raises(ValidationError, match="2 tools but 1 argument sets"):
        Trajectory(tools=("get_ticket", "get_ticket"), outcomes=("ok", "ok"), reason="done", steps=3,
                   cost=Decimal("0.002"), arguments=({"ticket_id": "T-701"},))
    kept = Trajectory(tools=("get_ticket",), outcomes=("ok",), reason="done", steps=2, cost=Decimal("0.001"),
                      arguments=({"ticket_id": "T-701"},))
    assert Trajectory.model_validate(json.loads(json.dumps(kept.model_dump(mode="json")))) == kept
