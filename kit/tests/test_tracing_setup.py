"""setup.py: a provider of its own on the real SDK, ids from a seed, times from the ManualClock, the tree."""

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider

from evidencedesk.tracing.setup import INSTANCE, SERVICE, CountingIds, SeededIds, make_tracing, ns, tree
from evidencedesk.usage import ManualClock


def _two_spans(tracing):
    clock = tracing.clock
    parent = tracing.tracer.start_span("parent", start_time=ns(clock))
    with trace.use_span(parent):
        clock.advance(0.25)
        child = tracing.tracer.start_span("child", start_time=ns(clock))
        clock.advance(0.5)
        child.end(end_time=ns(clock))
    parent.end(end_time=ns(clock))


def test_spans_are_real_sdk_spans_with_clock_times_and_parent():
    tracing = make_tracing(ManualClock(1.0))
    _two_spans(tracing)
    child, parent = tracing.spans()
    assert isinstance(tracing.provider, TracerProvider)
    assert (child.start_time, child.end_time) == (1_250_000_000, 1_750_000_000)
    assert child.parent.span_id == parent.context.span_id and child.context.trace_id == parent.context.trace_id
    resource = parent.resource.attributes
    assert (resource["service.name"], resource["service.instance.id"]) == (SERVICE, INSTANCE)  # not a random UUID
    assert tree(tracing.spans()) == ["parent 1.00-1.75s", "  child 1.25-1.75s"]


def test_same_seed_same_ids_and_the_global_provider_is_untouched():
    before = trace.get_tracer_provider()
    runs = []
    for _ in range(2):
        tracing = make_tracing(ManualClock())
        _two_spans(tracing)
        runs.append([(s.context.trace_id, s.context.span_id) for s in tracing.spans()])
    assert runs[0] == runs[1]
    other = make_tracing(ManualClock(), seed="other")
    _two_spans(other)
    assert other.spans()[0].context.trace_id != runs[0][0][0]
    assert trace.get_tracer_provider() is before


def test_seeded_ids_are_spread_and_counting_ids_are_not():
    seeded = SeededIds("s")
    low = [seeded.generate_trace_id() & ((1 << 64) - 1) for _ in range(400)]
    share = sum(v < (1 << 62) for v in low) / len(low)  # a quarter of the 64-bit range
    assert 0.15 < share < 0.35
    counting = CountingIds()
    assert [counting.generate_trace_id() for _ in range(3)] == [1, 2, 3]
    assert not seeded.is_trace_id_random()


@pytest.mark.parametrize("bad", [("clock", lambda: make_tracing(1.0)),
                                 ("sampler", lambda: make_tracing(ManualClock(), sampler="on")),
                                 ("seed", lambda: SeededIds(""))])
def test_bad_input_is_named(bad):
    name, call = bad
    with pytest.raises((TypeError, ValueError), match=name):
        call()


def test_a_span_whose_parent_is_missing_starts_its_own_tree():
    tracing = make_tracing(ManualClock())
    _two_spans(tracing)
    child, _ = tracing.spans()
    assert tree([child]) == ["child 0.25-0.75s"]


def test_the_code_s_resource_attributes_win_over_the_environment(monkeypatch):
    monkeypatch.setenv("OTEL_SERVICE_NAME", "from-env")
    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", "service.instance.id=env-1,deployment.environment.name=test")
    tracing = make_tracing(ManualClock())
    _two_spans(tracing)
    resource = tracing.spans()[0].resource.attributes
    assert (resource["service.name"], resource["service.instance.id"]) == (SERVICE, INSTANCE)
    assert resource["deployment.environment.name"] == "test"  # a key the code does not give is added
