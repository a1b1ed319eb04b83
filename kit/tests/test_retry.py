"""Tests for evidencedesk.retry: capped exponential backoff, only for retryable errors, within the budget."""

from __future__ import annotations

from decimal import Decimal

import pytest
from pydantic import ValidationError

from evidencedesk.budget import COST_BUDGET, TIME_BUDGET, BudgetedClient, BudgetExceeded, RunBudget
from evidencedesk.llm import (
    BadRequest,
    LLMRequest,
    LLMTimeout,
    MalformedResponse,
    Message,
    RateLimited,
    ScriptedClient,
)
from evidencedesk.providers import RATE_LIMIT, SLOW, AlphaClient, BetaClient, FakeAlphaServer, FakeBetaServer, Fault
from evidencedesk.retry import RetryClient, RetryPolicy
from evidencedesk.usage import CallTimeout, Ledger, ManualClock, SlowClient, TimeoutClient

REQUEST = LLMRequest("small-model-1", [Message("user", "Can I return a kettle?")], max_tokens=100)


def test_backoff_doubles_from_base_and_stops_at_the_cap() -> None:
    policy = RetryPolicy(max_attempts=8, base_s=0.5, cap_s=4.0)
    assert [policy.backoff(n) for n in range(1, 8)] == [0.5, 1.0, 2.0, 4.0, 4.0, 4.0, 4.0]


@pytest.mark.parametrize("kwargs", [{"max_attempts": 0}, {"max_attempts": 21}, {"base_s": 0}, {"cap_s": float("inf")},
                                    {"base_s": 2.0, "cap_s": 1.0}, {"max_attempts": "3"}, {"jitter": True}])
def test_retry_policy_is_strict(kwargs: dict) -> None:
    with pytest.raises(ValidationError):
        RetryPolicy(**kwargs)


@pytest.mark.parametrize(("server", "adapter"), [(FakeAlphaServer, AlphaClient), (FakeBetaServer, BetaClient)])
def test_rate_limits_and_timeouts_are_retried_until_an_answer(server: type, adapter: type) -> None:
    clock = ManualClock()
    retry = RetryClient(adapter(server([Fault(RATE_LIMIT, 0.2), Fault(SLOW), "Yes."])), clock)
    assert retry.complete(REQUEST).text == "Yes."
    assert [str(a) for a in retry.log] == ["attempt 1: rate_limited -> wait 0.50 s",
                                           "attempt 2: timeout -> wait 1.00 s", "attempt 3: ok -> done"]
    assert clock() == 1.5  # waits move the manual clock; nothing sleeps


def test_the_providers_wait_wins_when_it_is_longer_than_the_backoff() -> None:
    clock = ManualClock()
    retry = RetryClient(ScriptedClient([RateLimited("busy", retry_after_s=3.0), "ok"]), clock)
    retry.complete(REQUEST)
    assert clock() == 3.0


def test_a_wait_longer_than_the_cap_gives_up_with_the_providers_error() -> None:
    clock = ManualClock()
    scripted = ScriptedClient([RateLimited("busy", retry_after_s=30.0), "ok"])
    retry = RetryClient(scripted, clock, RetryPolicy(cap_s=4.0))
    with pytest.raises(RateLimited):
        retry.complete(REQUEST)
    assert clock() == 0.0 and len(scripted.requests) == 1
    assert str(retry.log[-1]) == "attempt 1: rate_limited -> give up: asked to wait 30.00 s, over the 4.00 s cap"


@pytest.mark.parametrize("error", [BadRequest("too long"), MalformedResponse("half a body")])
def test_errors_that_would_repeat_are_not_retried(error: Exception) -> None:
    scripted = ScriptedClient([error, "never reached"])
    retry = RetryClient(scripted, ManualClock())
    with pytest.raises(type(error)):
        retry.complete(REQUEST)
    assert len(scripted.requests) == 1 and retry.log[-1].then == "give up: not retryable"


def test_attempts_run_out_with_the_last_error() -> None:
    scripted = ScriptedClient([LLMTimeout("slow")] * 5)
    retry = RetryClient(scripted, ManualClock(), RetryPolicy(max_attempts=3))
    with pytest.raises(LLMTimeout):
        retry.complete(REQUEST)
    assert len(scripted.requests) == 3 and retry.log[-1].then == "give up: out of attempts"


def test_one_attempt_means_no_retry() -> None:
    retry = RetryClient(ScriptedClient([RateLimited("busy"), "ok"]), ManualClock(), RetryPolicy(max_attempts=1))
    with pytest.raises(RateLimited):
        retry.complete(REQUEST)


def chain(replies: list, budget: RunBudget, timeout_s: float = 2.0) -> tuple[RetryClient, BudgetedClient, ManualClock]:
    """Retry -> per-call timeout -> budget (which records every paid call) -> slow fake model."""
    clock = ManualClock()
    slow = SlowClient(ScriptedClient(replies, model="small-model-1"), clock, base_s=0.5, per_output_token_s=0.01)
    paid = BudgetedClient(slow, budget, Ledger(), clock)
    return RetryClient(TimeoutClient(paid, clock, timeout_s), clock, budget=paid), paid, clock


def test_retries_stop_before_the_cost_budget_would_be_crossed() -> None:
    limit = Decimal("0.0015")
    retry, paid, _ = chain(["x" * 400] * 10, RunBudget(max_cost=limit))  # 100 tokens: 1.5 s, over the 1 s limit
    retry.policy = RetryPolicy(max_attempts=10)
    retry.inner.timeout_s = 1.0
    with pytest.raises(BudgetExceeded) as stopped:
        retry.complete(REQUEST)
    assert stopped.value.reason == COST_BUDGET and isinstance(stopped.value.__cause__, CallTimeout)
    assert paid.ledger.summary().cost <= limit and retry.log[-1].then == f"stop: {COST_BUDGET}"
    assert len(paid.ledger.records) == paid.calls == len(retry.log)  # every timed-out attempt was paid for


def test_retries_stop_when_the_wait_would_cross_the_time_budget() -> None:
    retry, paid, clock = chain([RateLimited("busy", retry_after_s=3.0), "ok"], RunBudget(max_seconds=2.0))
    with pytest.raises(BudgetExceeded) as stopped:
        retry.complete(REQUEST)
    assert stopped.value.reason == TIME_BUDGET and clock() == 0.0  # it did not wait 3 s for nothing
    assert str(retry.log[-1]) == f"attempt 1: rate_limited -> stop: {TIME_BUDGET}"


@pytest.mark.parametrize(("max_seconds", "retried"), [(0.5, False), (0.6, True)])
def test_the_budget_is_asked_with_the_planned_wait(max_seconds: float, retried: bool) -> None:
    retry, _, clock = chain([RateLimited("busy"), "Yes."], RunBudget(max_seconds=max_seconds))  # backoff: 0.5 s
    if retried:
        assert retry.complete(REQUEST).text == "Yes." and clock() == pytest.approx(0.5 + 0.5 + 0.01)
    else:
        with pytest.raises(BudgetExceeded, match=TIME_BUDGET):
            retry.complete(REQUEST)
