"""Tests for evidencedesk.budget: the per-run budget, checked before every spend, and the per-call timeout."""

from __future__ import annotations

from decimal import Decimal

import pytest
from pydantic import ValidationError

from evidencedesk.budget import (
    COST_BUDGET,
    STEP_BUDGET,
    TIME_BUDGET,
    BudgetedClient,
    BudgetExceeded,
    CallTimeout,
    RunBudget,
    TimeoutClient,
    worst_case_cost,
)
from evidencedesk.llm import LLMRequest, Message, ScriptedClient, request_tokens
from evidencedesk.usage import Ledger, ManualClock, SlowClient, UsageRecord, cost_of, load_prices

PRICES = load_prices()


def ask(text: str = "Can I return a kettle?", max_tokens: int = 100) -> LLMRequest:
    return LLMRequest("small-model-1", [Message("user", text)], max_tokens=max_tokens)


def budgeted(budget: RunBudget, replies: int = 20, slow_s: float = 0.0) -> tuple[BudgetedClient, ManualClock]:
    clock = ManualClock()
    inner = SlowClient(ScriptedClient(["Yes, within 30 days."] * replies, model="small-model-1"), clock, slow_s, 0.0)
    return BudgetedClient(inner, budget, Ledger(), clock), clock


def test_worst_case_is_the_estimated_input_plus_the_whole_allowance() -> None:
    expected = cost_of(UsageRecord("x", "small-model-1", request_tokens(ask()), 100), PRICES)
    assert worst_case_cost(ask(), PRICES) == expected
    assert worst_case_cost(ask(max_tokens=200), PRICES) > worst_case_cost(ask(), PRICES)


def test_calls_are_recorded_in_the_ledger_with_run_ids() -> None:
    client, _ = budgeted(RunBudget())
    client.complete(ask())
    client.complete(ask())
    assert [r.call_id for r in client.ledger.records] == ["run-1-c1", "run-1-c2"] and client.calls == 2


def test_the_cost_limit_refuses_before_the_spend_and_is_never_crossed() -> None:
    limit = Decimal("0.0006")
    client, _ = budgeted(RunBudget(max_steps=50, max_cost=limit), replies=50)
    made = 0
    with pytest.raises(BudgetExceeded) as refused:
        for _ in range(50):
            client.complete(ask())
            made += 1
    spent = client.ledger.summary().cost
    assert refused.value.reason == COST_BUDGET and made == client.calls == len(client.ledger.records)
    assert made > 1 and spent <= limit < spent + worst_case_cost(ask(), PRICES)  # the next call could cross it


def test_the_step_limit_counts_calls() -> None:
    client, _ = budgeted(RunBudget(max_steps=2))
    client.complete(ask())
    client.complete(ask())
    with pytest.raises(BudgetExceeded, match=STEP_BUDGET):
        client.complete(ask())
    assert client.calls == 2


def test_the_time_limit_reads_the_clock_from_the_start_of_the_run() -> None:
    client, clock = budgeted(RunBudget(max_seconds=5.0), slow_s=2.0)
    client.complete(ask())
    client.complete(ask())
    client.complete(ask())  # starts at 4 s, ends at 6 s: the budget is checked between calls, not during one
    assert clock() == 6.0
    with pytest.raises(BudgetExceeded) as refused:
        client.complete(ask())
    assert refused.value.reason == TIME_BUDGET and "3 calls, 6.00 s" in str(refused.value)


def test_a_planned_wait_counts_against_the_time_limit() -> None:
    client, clock = budgeted(RunBudget(max_seconds=5.0))
    clock.advance(4.0)
    assert client.over_budget(ask()) == ""
    assert client.over_budget(ask(), wait_s=1.0) == TIME_BUDGET


def test_a_failed_call_counts_as_a_step_and_records_nothing() -> None:
    client = BudgetedClient(ScriptedClient([]), RunBudget(max_steps=1), Ledger(), ManualClock())
    with pytest.raises(Exception, match="used up"):
        client.complete(ask())
    assert client.calls == 1 and client.ledger.records == ()
    with pytest.raises(BudgetExceeded, match=STEP_BUDGET):
        client.complete(ask())


def test_a_timed_out_call_inside_the_budget_is_still_recorded() -> None:
    """Measured after the call: the provider has answered (and billed) by the time the timeout fires."""
    clock = ManualClock()
    inner = BudgetedClient(SlowClient(ScriptedClient(["late"], model="small-model-1"), clock, 3.0, 0.0),
                           RunBudget(), Ledger(), clock)
    with pytest.raises(CallTimeout):
        TimeoutClient(inner, clock, timeout_s=2.0).complete(ask())
    assert len(inner.ledger.records) == 1 and inner.ledger.summary().cost > 0


@pytest.mark.parametrize(("field", "value"), [("max_steps", 0), ("max_steps", "3"), ("max_seconds", float("nan")),
                                              ("max_cost", 0.005), ("max_cost", Decimal("-1")), ("max_stuck", 2)])
def test_run_budget_is_strict(field: str, value: object) -> None:
    with pytest.raises(ValidationError) as exc:
        RunBudget(**{field: value})
    assert exc.value.errors()[0]["loc"] == (field,)
