"""The many-tenant run: over 10,000 calls; FIFO starves the light tenants, the fair design does not."""

import pytest

from evidencedesk.quotas.simulate import FAIR, FIFO, HEAVY, HEAVY_PLAN, LIGHT_TENANTS, SLOTS, plans, run, traffic


@pytest.fixture(scope="module")
def calls():
    return traffic()


@pytest.fixture(scope="module")
def runs(calls):
    return {"fifo": run(FIFO, calls), "fair": run(FAIR, calls)}


def test_traffic_is_fixed_large_and_lopsided(calls):
    assert len(calls) == 11_850 and len(calls) == len(traffic())
    assert [c.id for c in calls] == list(range(len(calls)))
    per = {t: sum(c.tenant == t for c in calls) for t in (HEAVY, *LIGHT_TENANTS)}
    assert per[HEAVY] == 9_000 and set(per[t] for t in LIGHT_TENANTS) == {150}
    assert all(a.arrival_s <= b.arrival_s for a, b in zip(calls, calls[1:]))


def test_every_call_is_counted_once(runs):
    for result in runs.values():
        for r in result.tenants.values():
            assert r.served + r.rate_429 + r.queue_429 + r.refused_cost == r.offered


def test_the_fair_design_serves_every_light_call_quickly(runs):
    fair = runs["fair"]
    assert all(r.served == r.offered for r in fair.light())
    assert max(w for r in fair.light() for w in r.waits) <= 2
    assert fair.jain() == 1


def test_fifo_refuses_and_delays_the_light_tenants(runs):
    fifo, fair = runs["fifo"], runs["fair"]
    assert all(r.rate_429 + r.queue_429 > 0 for r in fifo.light())
    assert fifo.light_p95_s() > 10 * fair.light_p95_s()
    assert fifo.jain() < fair.jain() and fifo.tenants[HEAVY].served > fair.tenants[HEAVY].served


def test_the_same_run_twice_is_the_same(calls, runs):
    assert run(FAIR, calls) == runs["fair"]


def test_the_upstream_is_kept_busy_by_both_designs(runs):
    for result in runs.values():
        assert 0.99 * SLOTS * result.end_s < result.busy_slot_s <= SLOTS * result.end_s


def test_a_heavy_plan_that_fits_the_upstream_leaves_fifo_refusing_no_light_call(calls):
    fits = run(FIFO, calls, plans=plans(HEAVY_PLAN.model_copy(update={"rpm": 180})))
    assert all(r.served == r.offered for r in fits.light()) and fits.tenants[HEAVY].served < 9_000
