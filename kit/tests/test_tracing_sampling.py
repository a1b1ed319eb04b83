"""sampling.py: the SDK's head sampler keeps whole traces by id; the tail policy keeps every error and costly trace."""

from decimal import Decimal

import pytest

from evidencedesk.tracing.lab import run_workload
from evidencedesk.tracing.sampling import EXPENSIVE, RATIO, head_sampler, kept, ratio_keeps, summarise, tail_keep
from evidencedesk.tracing.setup import CountingIds, make_tracing
from evidencedesk.usage import ManualClock

N = 39


@pytest.fixture(scope="module")
def runs():
    full = make_tracing(ManualClock())
    outcomes = run_workload(full, N)
    head = make_tracing(ManualClock(), head_sampler(RATIO))
    run_workload(head, N)
    return full, outcomes, head


def test_head_sampling_keeps_whole_traces_chosen_by_id(runs):
    full, outcomes, head = runs
    all_traces = summarise(full.spans())
    by_id = {t.trace_id: t for t in all_traces}
    head_traces = summarise(head.spans())
    assert {t.trace_id for t in head_traces} == {o.trace_id for o in outcomes if ratio_keeps(o.trace_id, RATIO)}
    assert all(t == by_id[t.trace_id] for t in head_traces)  # whole: the same spans and cost as unsampled
    assert 0 < len(head_traces) < len(all_traces)


def test_tail_keeps_every_error_and_every_costly_trace(runs):
    full, _, head = runs
    traces = summarise(full.spans())
    everything = kept(traces)
    tail = kept(traces, lambda t: tail_keep(t, RATIO, EXPENSIVE))
    assert tail.errors == everything.errors > kept(summarise(head.spans())).errors
    assert all(tail_keep(t, RATIO, EXPENSIVE) for t in traces if t.cost >= EXPENSIVE)
    assert tail.traces < everything.traces


def test_counting_ids_defeat_a_ratio_sampler():
    counted = make_tracing(ManualClock(), head_sampler(RATIO), ids=CountingIds())
    run_workload(counted, 13)
    assert len(summarise(counted.spans())) == 13
    assert ratio_keeps(1, 0.0) is False and ratio_keeps((1 << 64) - 1, 1.0) is True


def test_a_bad_ratio_is_named():
    with pytest.raises(ValueError, match="ratio"):
        head_sampler(1.5)
    assert kept([], lambda t: True).cost == Decimal(0)
