"""Queues: the shared FIFO lets a heavy tenant fill it; deficit round robin serves tenants in turn by tokens."""

import pytest
from pydantic import ValidationError

from evidencedesk.quotas.fairqueue import Call, DeficitRoundRobin, SharedFifo
from evidencedesk.tenancy.context import TenantContext


def call(n, tenant, input_tokens=500, max_tokens=500):
    return Call(id=n, context=TenantContext(tenant=tenant, user="api"), arrival_s=0,
                input_tokens=input_tokens, max_tokens=max_tokens)


def drain(queue, can_start=lambda tenant: True):
    out = []
    while (c := queue.pop(can_start)) is not None:
        out.append(c.tenant)
    return out


def test_call_counts_input_and_max_tokens_and_refuses_bad_sizes():
    assert call(1, "a", 800, 400).tokens == 1200
    with pytest.raises(ValidationError, match="max_tokens"):
        call(1, "a", 800, 0)


def test_shared_fifo_is_oldest_first_and_full_for_everyone():
    queue = SharedFifo(limit=3)
    assert [queue.push(call(n, "heavy")) for n in range(3)] == [True, True, True]
    assert queue.push(call(9, "light")) is False  # the heavy tenant's calls fill everyone's room
    assert drain(queue) == ["heavy", "heavy", "heavy"]


def test_shared_fifo_skips_a_tenant_that_may_not_start():
    queue = SharedFifo(limit=5)
    for n, tenant in enumerate(["a", "a", "b"]):
        queue.push(call(n, tenant))
    assert queue.pop(lambda t: t != "a").tenant == "b" and len(queue) == 2


def test_drr_alternates_tenants_whatever_their_backlog():
    queue = DeficitRoundRobin(limit=10, quantum=1000)
    for n in range(6):
        queue.push(call(n, "heavy"))
    queue.push(call(10, "light"))
    queue.push(call(11, "light"))
    assert drain(queue) == ["heavy", "light", "heavy", "light", "heavy", "heavy", "heavy", "heavy"]


def test_drr_shares_tokens_not_calls():
    queue = DeficitRoundRobin(limit=10, quantum=2000)
    for n in range(4):
        queue.push(call(n, "big", 1500, 500))  # 2,000 tokens a call
        queue.push(call(10 + n, "small", 250, 250))  # 500 tokens a call
    assert drain(queue)[:5] == ["big", "small", "small", "small", "small"]


def test_drr_weights_give_a_tenant_more_per_round():
    queue = DeficitRoundRobin(limit=10, quantum=1000, weights={"gold": 2})
    for n in range(4):
        queue.push(call(n, "gold"))
        queue.push(call(10 + n, "basic"))
    assert drain(queue)[:3] == ["gold", "gold", "basic"]


def test_drr_queue_is_bounded_per_tenant():
    queue = DeficitRoundRobin(limit=2, quantum=1000)
    assert [queue.push(call(n, "heavy")) for n in range(3)] == [True, True, False]
    assert queue.push(call(9, "light")) is True


def test_drr_skips_a_blocked_tenant_and_returns_none_when_all_are_blocked():
    queue = DeficitRoundRobin(limit=5, quantum=1000)
    queue.push(call(1, "a"))
    queue.push(call(2, "b"))
    assert queue.pop(lambda t: t == "b").tenant == "b"
    assert queue.pop(lambda t: False) is None and len(queue) == 1


def test_drr_a_call_larger_than_the_quantum_waits_some_rounds_then_starts():
    queue = DeficitRoundRobin(limit=5, quantum=1000)
    queue.push(call(1, "big", 2000, 500))
    queue.push(call(2, "small"))
    queue.push(call(3, "small"))
    assert drain(queue) == ["small", "small", "big"]


def test_an_idle_tenant_keeps_no_credit():
    queue = DeficitRoundRobin(limit=5, quantum=3000)
    queue.push(call(1, "a"))
    queue.pop(lambda t: True)
    assert queue.deficit["a"] == 0 and not queue.active


@pytest.mark.parametrize("bad", [0, -1, 1.0, True])
def test_bad_limits_are_refused(bad):
    with pytest.raises(ValueError, match="limit"):
        SharedFifo(bad)
    with pytest.raises(ValueError, match="limit"):
        DeficitRoundRobin(limit=bad, quantum=10)
