"""Tests of evidencedesk.compaction.cachewrites: the write premium, and the worst case a budget must assume."""

from __future__ import annotations

import dataclasses
from decimal import Decimal

import pytest

from evidencedesk.budget import worst_case_cost
from evidencedesk.compaction.cachewrites import (
    NO_WRITE_PREMIUM,
    WRITE_SHARE_1H,
    WRITE_SHARE_5M,
    cost_with_writes,
    run_cost_with_writes,
    worst_case_with_writes,
)
from evidencedesk.compaction.promptcache import CachingProvider, PrefixCache
from evidencedesk.compaction.scenarios import variant_request
from evidencedesk.compaction.steps import SETUPS, Setup, run_steps
from evidencedesk.llm import ScriptedClient
from evidencedesk.usage import ManualClock, UnknownModel, UsageRecord, cost_of, load_prices, record_usage

PRICES = load_prices()


def test_anthropic_multipliers_as_read() -> None:
    assert (WRITE_SHARE_5M, WRITE_SHARE_1H, NO_WRITE_PREMIUM) == (Decimal("1.25"), Decimal("2"), Decimal("1"))


def test_a_write_adds_the_premium_on_the_written_tokens_only() -> None:
    record = UsageRecord("c1", "small-model-1", 384, 2)
    plain = cost_of(record, PRICES)
    assert cost_with_writes(record, 384, PRICES, NO_WRITE_PREMIUM) == plain
    assert cost_with_writes(record, 0, PRICES, WRITE_SHARE_1H) == plain
    assert cost_with_writes(record, 384, PRICES, WRITE_SHARE_5M) - plain == PRICES["small-model-1"].input * 96
    hit = UsageRecord("c2", "small-model-1", 410, 2, cached_input_tokens=384)
    extra = PRICES["small-model-1"].input * 26
    assert cost_with_writes(hit, 26, PRICES, WRITE_SHARE_1H) == cost_of(hit, PRICES) + extra


def test_bad_written_tokens_share_or_model_are_named() -> None:
    hit = UsageRecord("c2", "small-model-1", 410, 2, cached_input_tokens=384)
    for bad in (-1, 27, True, 1.5):
        with pytest.raises(ValueError, match="written_tokens must be an int from 0 to the 26 uncached"):
            cost_with_writes(hit, bad, PRICES)  # type: ignore[arg-type]
    for share in (Decimal("0.9"), 2, Decimal("NaN")):
        with pytest.raises(ValueError, match="write_share must be a finite Decimal >= 1"):
            cost_with_writes(hit, 0, PRICES, share)  # type: ignore[arg-type]
    with pytest.raises(UnknownModel, match="no price for model 'nobody-1'"):
        cost_with_writes(UsageRecord("c3", "nobody-1", 10, 1), 10, PRICES)


def test_the_worst_case_with_writes_bounds_every_call_and_the_plain_one_does_not() -> None:
    clock = ManualClock()
    request = dataclasses.replace(variant_request("stable", 1, clock), max_tokens=2)  # "Noted." fills it
    assert worst_case_with_writes(request, PRICES, NO_WRITE_PREMIUM) == worst_case_cost(request, PRICES)
    provider = CachingProvider(ScriptedClient(["Noted."] * 3, model="small-model-1"), PrefixCache(clock))
    costs = []
    for wait_s in (2, 600, 0):  # a miss, a hit 2 s later, a miss after the lifetime
        record = record_usage(request, provider.complete(request), "c")
        assert record.output_tokens == request.max_tokens
        costs.append({share: cost_with_writes(record, provider.reads[-1].written_tokens, PRICES, share)
                      for share in (NO_WRITE_PREMIUM, WRITE_SHARE_5M, WRITE_SHARE_1H)})
        clock.advance(wait_s)
    assert [r.outcome for r in provider.reads] == ["miss", "hit", "miss"]
    for by_share in costs:
        assert all(cost <= worst_case_with_writes(request, PRICES, share) for share, cost in by_share.items())
    for share in (WRITE_SHARE_5M, WRITE_SHARE_1H):  # a miss that writes and fills its allowance: the bound, exactly
        assert costs[0][share] == costs[2][share] == worst_case_with_writes(request, PRICES, share)
        assert costs[0][share] > worst_case_cost(request, PRICES)  # the plain worst case is crossed


def test_a_run_costs_its_ledger_without_a_premium_and_more_with_one() -> None:
    run = run_steps(SETUPS["caching"])
    assert run_cost_with_writes(run, NO_WRITE_PREMIUM) == run.cost
    assert run.cost < run_cost_with_writes(run, WRITE_SHARE_5M) < run_cost_with_writes(run, WRITE_SHARE_1H)
    assert run_cost_with_writes(run_steps(SETUPS["none"]), WRITE_SHARE_1H) == run_steps(SETUPS["none"]).cost
    parked = run_steps(Setup(caching=True, park_before=5))
    assert run_cost_with_writes(parked) - parked.cost > run_cost_with_writes(run) - run.cost
