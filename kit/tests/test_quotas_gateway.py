"""The gateway: admission in order, 429s with a computed Retry-After, per-tenant concurrency, spend settled."""

from decimal import Decimal

import pytest

from evidencedesk.llm import RateLimited
from evidencedesk.resilience.errors import QuotaExhausted
from evidencedesk.resilience.failures import handling
from evidencedesk.quotas.fairqueue import Call
from evidencedesk.quotas.gateway import (
    DAILY_SPEND,
    OVER_BUDGET,
    QUEUE_FULL,
    QUEUED,
    RATE,
    RATE_LIMITED,
    STARTED,
    TOO_LARGE,
    Design,
    Gateway,
    Plan,
    service_s,
)
from evidencedesk.tenancy.context import TenantContext
from evidencedesk.usage import ManualClock

PLAN = Plan(rpm=6, tpm=6_000, concurrency=2, queue_limit=2, daily_cap=Decimal("1"))
DRR = Design(scheduler="drr")


def call(n, tenant="a", second=0, max_tokens=500):
    return Call(id=n, context=TenantContext(tenant=tenant, user="api"), arrival_s=second, input_tokens=400,
                max_tokens=max_tokens)


def gateway(plans=None, slots=10, design=DRR):
    clock = ManualClock()
    return Gateway(plans or {"a": PLAN}, clock, slots, design), clock


def test_calls_start_up_to_the_concurrency_limit_then_queue_then_get_429():
    g, _ = gateway()
    outcomes = [g.arrive(call(n)) for n in range(6)]
    assert [d.outcome for d in outcomes] == [STARTED, STARTED, QUEUED, QUEUED, RATE_LIMITED, RATE_LIMITED]
    assert outcomes[4].reason == QUEUE_FULL and outcomes[4].retry_after_s == service_s(call(0))


def test_retry_after_from_the_bucket():
    g, _ = gateway({"a": PLAN.model_copy(update={"concurrency": 10, "queue_limit": 10})})
    decisions = [g.arrive(call(n)) for n in range(7)]
    assert decisions[6].outcome == RATE_LIMITED and decisions[6].reason == RATE and decisions[6].retry_after_s == 10


def test_a_429_is_the_kits_rate_limited_error_with_its_wait():
    g, _ = gateway({"a": PLAN.model_copy(update={"concurrency": 10, "queue_limit": 10})})
    last = [g.arrive(call(n)) for n in range(7)][-1]
    error = last.as_error()
    assert isinstance(error, RateLimited) and error.retry_after_s == 10.0 and error.retryable
    assert g.arrive(call(99, max_tokens=9000)).as_error() is None


def test_too_large_is_refused_without_a_wait():
    g, _ = gateway()
    decision = g.arrive(call(1, max_tokens=8000))
    assert decision.outcome == TOO_LARGE and decision.retry_after_s is None


def test_the_spend_cap_refuses_before_the_call_and_says_when_the_day_ends():
    g, _ = gateway({"a": PLAN.model_copy(update={"daily_cap": Decimal("0.005")})})
    decisions = [g.arrive(call(n)) for n in range(3)]
    assert decisions[2].outcome == OVER_BUDGET and decisions[2].reason == DAILY_SPEND
    assert decisions[2].retry_after_s == 86_400


def test_a_refusal_for_cost_is_quota_exhausted_not_a_rate_limit():
    g, _ = gateway({"a": PLAN.model_copy(update={"daily_cap": Decimal("0.005")})})
    error = [g.arrive(call(n)) for n in range(3)][2].as_error()
    assert isinstance(error, QuotaExhausted) and not error.retryable and "86400 s" in str(error)
    assert not handling(error).counts and handling(error).alert  # kept out of the breaker, alerted


def test_the_plans_burst_sizes_both_buckets():
    g, _ = gateway({"a": PLAN.model_copy(update={"burst_s": 10})})
    assert g.limits["a"].requests.capacity == 1 and g.limits["a"].tokens.capacity == 1_000
    assert g.arrive(call(1, max_tokens=700)).outcome == TOO_LARGE  # 1,100 tokens: more than 10 s of tpm


def test_a_refused_call_takes_nothing_from_the_buckets():
    g, _ = gateway({"a": PLAN.model_copy(update={"daily_cap": Decimal("0.001")})})
    g.arrive(call(1))
    assert g.limits["a"].requests.available() == 6


def test_step_ends_calls_frees_slots_and_settles_their_cost():
    g, clock = gateway()
    for n in range(3):
        g.arrive(call(n))
    clock.advance(service_s(call(0)))
    ended = g.step()
    assert [c.id for c in ended] == [0, 1] and g.started[2] == service_s(call(0))
    assert g.wallet.spent("a") == Decimal("0.0016") * 2 + Decimal("0.0024")


def test_fifo_without_concurrency_limits_lets_one_tenant_take_every_slot():
    plans = {"heavy": PLAN.model_copy(update={"rpm": 60, "tpm": 60_000}), "light": PLAN}
    fifo, _ = gateway(plans, slots=4, design=Design(scheduler="fifo", fifo_limit=4, per_tenant_concurrency=False))
    fair, _ = gateway(plans, slots=4, design=DRR)
    for g in (fifo, fair):
        for n in range(8):
            g.arrive(call(n, "heavy"))
    assert fifo.in_flight == {"heavy": 4, "light": 0} and fair.in_flight == {"heavy": 2, "light": 0}
    assert fifo.arrive(call(20, "light")).outcome == RATE_LIMITED
    assert fair.arrive(call(20, "light")).outcome == STARTED


def test_unknown_tenant_and_a_clock_between_seconds_are_errors():
    g, clock = gateway()
    with pytest.raises(KeyError, match="no plan"):
        g.arrive(call(1, "zed"))
    clock.advance(0.5)
    with pytest.raises(ValueError, match="whole seconds"):
        g.step()
