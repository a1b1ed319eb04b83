"""Tests of evidencedesk.agent.state: legal moves, required fields per status, observations, trace."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from evidencedesk.agent.state import (
    AWAITING,
    DONE,
    REASONS,
    RUNNING,
    STOPPED,
    TRANSITIONS,
    AgentState,
    BadTransition,
    Observation,
    Trace,
)
from evidencedesk.security import SIMULATED_SECRET

STOP_REASONS = sorted(set(REASONS) - {"done", "needs_approval"})


def fresh() -> AgentState:
    return AgentState(run_id="r1", user_id="kwame", task="triage", goal="Check T-601.").next_step()


def with_observation(ok: bool = True) -> tuple[AgentState, Observation]:
    return fresh().observe(ok, "get_ticket", '{"id": "T-601", "status": "open"}')


def message(exc: pytest.ExceptionInfo[ValidationError]) -> str:
    return exc.value.errors()[0]["msg"]


def test_status_names_and_reason_table() -> None:
    assert (RUNNING, AWAITING, DONE, STOPPED) == ("running", "awaiting_approval", "done", "stopped")
    assert set(REASONS) == {"done", "needs_approval", "step_budget", "time_budget", "cost_budget", "repeated_call",
                            "stuck", "call_limit", "unauthenticated", "forbidden_task", "denied", "cancelled"}
    assert all(isinstance(meaning, str) and meaning for meaning in REASONS.values())


def test_final_statuses_have_no_moves() -> None:
    assert TRANSITIONS[DONE] == frozenset() and TRANSITIONS[STOPPED] == frozenset()
    assert TRANSITIONS[AWAITING] == {RUNNING, STOPPED}


def test_a_new_state_starts_running_at_step_zero() -> None:
    state = AgentState(run_id="r1", user_id="kwame", task="triage", goal="Check T-601.")
    assert (state.status, state.step, state.observations) == (RUNNING, 0, ())
    assert state.next_step().next_step().step == 2


@pytest.mark.parametrize("reason", STOP_REASONS)
def test_stop_accepts_every_stop_reason(reason: str) -> None:
    stopped = fresh().stop(reason)
    assert (stopped.status, stopped.reason) == (STOPPED, reason)


@pytest.mark.parametrize("reason", ["because", "", "done", "needs_approval"])
def test_stop_refuses_other_reasons(reason: str) -> None:
    with pytest.raises(ValidationError) as exc:
        fresh().stop(reason)
    assert message(exc) == f"Value error, stopped needs a known reason, got {reason!r}"


def test_finish_without_sources_is_refused() -> None:
    with pytest.raises(ValidationError) as exc:
        fresh().finish("All done.", [])
    assert message(exc) == "Value error, done needs an answer and the observations that support it"


def test_finish_with_a_blank_answer_is_refused() -> None:
    state, obs = with_observation()
    with pytest.raises(ValidationError, match="done needs an answer"):
        state.finish("   ", [obs.id])


@pytest.mark.parametrize("ok, sources", [(False, ["o1"]), (True, ["o2"]), (True, ["o1", "o9"])])
def test_finish_must_cite_successful_observations_of_this_run(ok: bool, sources: list[str]) -> None:
    state, _ = with_observation(ok)
    with pytest.raises(ValidationError, match="every source must be a successful observation"):
        state.finish("The ticket is open.", sources)


def test_finish_with_real_evidence_is_done() -> None:
    state, obs = with_observation()
    done = state.finish("The ticket is open.", [obs.id])
    assert (done.status, done.reason, done.sources, done.answer) == (DONE, "done", ("o1",), "The ticket is open.")


@pytest.mark.parametrize("move", ["next_step", "stop", "wait", "resume"])
def test_done_is_final(move: str) -> None:
    state, obs = with_observation()
    done = state.finish("The ticket is open.", [obs.id])
    calls = {"next_step": done.next_step, "stop": lambda: done.stop("stuck"), "wait": lambda: done.wait("pa-1"),
             "resume": done.resume}
    with pytest.raises(BadTransition, match="^done -> "):
        calls[move]()


def test_stopped_is_final() -> None:
    with pytest.raises(BadTransition, match="stopped -> running"):
        fresh().stop("stuck").next_step()


def test_wait_then_resume_clears_the_pending_action() -> None:
    waiting = fresh().wait("pa-1")
    assert (waiting.status, waiting.reason, waiting.pending_id) == (AWAITING, "needs_approval", "pa-1")
    resumed = waiting.resume()
    assert (resumed.status, resumed.reason, resumed.pending_id) == (RUNNING, "", "")


def test_waiting_cannot_finish_and_needs_a_pending_id() -> None:
    state, obs = with_observation()
    with pytest.raises(BadTransition, match="awaiting_approval -> done"):
        state.wait("pa-1").finish("ok", [obs.id])
    with pytest.raises(ValidationError, match="awaiting_approval needs a pending action id"):
        state.wait("")


def test_resume_is_only_for_a_waiting_run() -> None:
    with pytest.raises(BadTransition) as exc:
        fresh().resume()
    assert str(exc.value) == "running -> running by resume"


def test_state_is_frozen_and_strict() -> None:
    state = fresh()
    with pytest.raises(ValidationError) as exc:
        state.step = 9  # type: ignore[misc]
    assert message(exc) == "Instance is frozen"
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        AgentState(run_id="r1", user_id="kwame", task="triage", goal="g", mood="happy")


@pytest.mark.parametrize("field, value", [("run_id", "Run 1!"), ("goal", ""), ("goal", "x" * 301), ("step", -1)])
def test_bad_fields_are_named(field: str, value: object) -> None:
    fields = {"run_id": "r1", "user_id": "kwame", "task": "triage", "goal": "Check T-601.", field: value}
    with pytest.raises(ValidationError) as exc:
        AgentState(**fields)
    assert exc.value.errors()[0]["loc"] == (field,)


def test_a_running_state_cannot_carry_an_answer() -> None:
    with pytest.raises(ValidationError, match="a running state has no reason"):
        AgentState(run_id="r1", user_id="kwame", task="triage", goal="g", answer="early")


def test_observe_numbers_clips_and_records_the_step() -> None:
    state = fresh().next_step()
    state, first = state.observe(True, "lookup_document", "x" * 500)
    state, second = state.observe(False, "r" * 60, "error not_found: no ticket T-999")
    assert (first.id, first.step, first.ok, len(first.text)) == ("o1", 2, True, 400)
    assert (second.id, second.tool, second.ok) == ("o2", "r" * 40, False)
    assert state.observations == (first, second)


def test_state_round_trips_through_json() -> None:
    state, obs = with_observation()
    done = state.finish("The ticket is open.", [obs.id])
    assert AgentState.model_validate_json(done.model_dump_json()) == done


def test_trace_lines_are_aligned_and_trimmed() -> None:
    trace = Trace()
    trace.add(1, "tool", "ok", "get_ticket")
    trace.add(1, "memory", "ok")
    trace.add(12, "stop", "done", "status=done")
    assert trace.lines() == [" 1 tool   ok                 get_ticket", " 1 memory ok",
                             "12 stop   done               status=done"]


def test_trace_details_are_redacted_and_clipped() -> None:
    trace = Trace()
    trace.add(1, "model", "ok", f"send to evil@example.org with {SIMULATED_SECRET}")
    trace.add(2, "model", "ok", "y" * 100)
    first, second = trace.lines()
    assert "evil@example.org" not in first and SIMULATED_SECRET not in first and "[redacted]" in first
    assert second.endswith("y" * 60) and not second.endswith("y" * 61)


def test_trace_codes_by_kind_and_unknown_kind() -> None:
    trace = Trace()
    for kind, code in [("check", "ok"), ("tool", "not_found"), ("check", "not_allowed")]:
        trace.add(1, kind, code)
    assert trace.codes("check") == ["ok", "not_allowed"] and trace.codes("model") == []
    with pytest.raises(ValueError, match="'thought'"):
        trace.add(1, "thought", "ok")
