"""Tests of evidencedesk.resilience.breaker: the transition table, opening, cooling down, the trial, the history."""

from __future__ import annotations

import threading

import pytest

from evidencedesk.resilience.breaker import (
    CLOSED,
    COOLED,
    FAILURE,
    HALF_OPEN,
    LATE,
    OPEN,
    PROBE_BUSY,
    REFUSED,
    SUCCESS,
    TRANSITIONS,
    TRIAL_FAILED,
    TRIAL_OK,
    TRIP,
    BreakerError,
    Change,
    CircuitBreaker,
)
from evidencedesk.usage import ManualClock


def call(breaker: CircuitBreaker, ok: bool) -> bool:
    """One call through the breaker: False when it was refused, else its outcome is recorded."""
    if not breaker.allow():
        return False
    breaker.record(ok)
    return True


def opened(clock: ManualClock) -> CircuitBreaker:
    breaker = CircuitBreaker("alpha", clock, failures_to_open=3, cool_down_s=30.0)
    for _ in range(3):
        call(breaker, ok=False)
    return breaker


def test_the_table_is_the_whole_machine() -> None:
    states = {CLOSED, OPEN, HALF_OPEN}
    assert {s for s, _ in TRANSITIONS} == states and set(TRANSITIONS.values()) == states
    assert TRANSITIONS[CLOSED, TRIP] == OPEN and TRANSITIONS[OPEN, COOLED] == HALF_OPEN
    assert TRANSITIONS[HALF_OPEN, TRIAL_OK] == CLOSED and TRANSITIONS[HALF_OPEN, TRIAL_FAILED] == OPEN
    assert all(TRANSITIONS[s, e] == s for s, e in ((CLOSED, SUCCESS), (CLOSED, FAILURE), (OPEN, REFUSED)))


def test_it_opens_after_n_failures_in_a_row_and_a_success_resets_the_count() -> None:
    clock = ManualClock()
    breaker = CircuitBreaker("alpha", clock, failures_to_open=3)
    for ok in (False, False, True, False, False):
        call(breaker, ok)
    assert (breaker.state, breaker.failures) == (CLOSED, 2)
    call(breaker, ok=False)
    assert breaker.state == OPEN and breaker.history[-1] == Change(0.0, TRIP, OPEN)


def test_open_refuses_without_calling_until_the_cool_down_is_over() -> None:
    clock = ManualClock()
    breaker = opened(clock)
    clock.advance(29.9)
    assert not call(breaker, ok=True) and breaker.state == OPEN
    clock.advance(0.1)
    assert breaker.allow() and breaker.state == HALF_OPEN
    breaker.record(ok=True)
    assert breaker.state == CLOSED and breaker.failures == 0


def test_a_failed_trial_opens_it_again_for_a_whole_new_cool_down() -> None:
    clock = ManualClock()
    breaker = opened(clock)
    clock.advance(30.0)
    call(breaker, ok=False)
    assert breaker.state == OPEN and breaker.opened_at == 30.0
    clock.advance(29.0)
    assert not breaker.allow()
    clock.advance(1.0)
    assert breaker.allow() and breaker.state == HALF_OPEN


def test_history_holds_every_event_with_its_time() -> None:
    clock = ManualClock()
    breaker = opened(clock)
    clock.advance(10)
    breaker.allow()
    clock.advance(25)
    call(breaker, ok=True)
    assert [(c.at_s, c.event, c.state) for c in breaker.history] == [
        (0.0, FAILURE, CLOSED), (0.0, FAILURE, CLOSED), (0.0, TRIP, OPEN), (10.0, REFUSED, OPEN),
        (35.0, COOLED, HALF_OPEN), (35.0, TRIAL_OK, CLOSED)]


def test_recording_while_open_is_an_error_and_ok_must_be_a_bool() -> None:
    breaker = opened(ManualClock())
    with pytest.raises(BreakerError, match="alpha: no call was let through"):
        breaker.record(ok=True)
    with pytest.raises(BreakerError, match="no call was let through"):
        breaker.release()
    with pytest.raises(TypeError, match="ok must be a bool"):
        CircuitBreaker("beta", ManualClock()).record(1)  # type: ignore[arg-type]


@pytest.mark.parametrize("settings, name", [
    ({"failures_to_open": 0}, "failures_to_open"), ({"failures_to_open": True}, "failures_to_open"),
    ({"failures_to_open": 2.0}, "failures_to_open"), ({"cool_down_s": 0}, "cool_down_s"),
    ({"cool_down_s": float("nan")}, "cool_down_s"), ({"cool_down_s": "30"}, "cool_down_s"),
    ({"half_open_probes": 0}, "half_open_probes"), ({"half_open_probes": True}, "half_open_probes"),
])
def test_bad_settings_are_named(settings: dict, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        CircuitBreaker("alpha", ManualClock(), **settings)


def test_half_open_admits_one_probe_and_refuses_the_rest_until_its_result() -> None:
    clock = ManualClock()
    breaker = opened(clock)
    clock.advance(30.0)
    assert [breaker.allow() for _ in range(4)] == [True, False, False, False]  # four callers at once
    assert [c.event for c in breaker.history[-4:]] == [COOLED, PROBE_BUSY, PROBE_BUSY, PROBE_BUSY]
    breaker.record(ok=True)  # the probe's result
    assert breaker.state == CLOSED and breaker.allow() and breaker.allow()


def test_a_configured_number_of_probes_and_a_released_probe_frees_its_place() -> None:
    clock = ManualClock()
    breaker = CircuitBreaker("alpha", clock, failures_to_open=1, cool_down_s=5.0, half_open_probes=2)
    call(breaker, ok=False)
    clock.advance(5.0)
    assert [breaker.allow() for _ in range(3)] == [True, True, False]
    breaker.release()  # one probe ends with no verdict
    assert breaker.state == HALF_OPEN and breaker.allow()
    breaker.record(ok=False)
    assert breaker.state == OPEN
    breaker.record(ok=True)  # the other probe, late: the breaker is open again and stays so
    assert breaker.state == OPEN and breaker.history[-1].event == LATE


def test_concurrent_callers_on_threads_get_exactly_one_probe() -> None:
    clock = ManualClock()
    breaker = opened(clock)
    clock.advance(30.0)
    callers = 16
    start, admitted, lock = threading.Barrier(callers), [], threading.Lock()

    def caller() -> None:
        start.wait()  # all callers ask at the same moment
        allowed = breaker.allow()
        with lock:
            admitted.append(allowed)

    threads = [threading.Thread(target=caller) for _ in range(callers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert admitted.count(True) == 1 and admitted.count(False) == callers - 1 and breaker.in_flight == 1
    breaker.record(ok=False)
    assert breaker.state == OPEN and breaker.in_flight == 0
