"""What sampling keeps: head sampling in the SDK against a tail policy over finished traces.

Head sampling decides when a trace starts. head_sampler(ratio) is the SDK's ParentBased(TraceIdRatioBased(
ratio)): the root span keeps its trace when the low 64 bits of the trace id fall below ratio * 2**64, and
every child follows its parent, so a trace is kept or dropped whole, before anyone knows whether it will
fail or cost much. A dropped trace's spans are never recorded, so no exporter sees them. With ids from
setup.SeededIds the decision is the same on every run; with setup.CountingIds every id is below the bound
and nothing is dropped. Tail sampling decides later, over a trace's spans: tail_keep() keeps a finished
trace with an error, a trace whose summed cost reaches a threshold, and otherwise the same share by trace
id as the head sampler, so the cheap, healthy traces are thinned exactly as before. In production this is
the OpenTelemetry Collector's tail_sampling processor, which cannot see a trace end: it buffers spans for
decision_wait (30 s by default) from a trace's first span, then applies its policies (status_code, latency,
numeric_attribute, probabilistic, ...); numeric_attribute reads one span's attribute at a time, so no
Collector policy sums a trace's cost as tail_keep does (processor README and numeric_tag_filter.go in
opentelemetry-collector-contrib, read 2026-12-03).
Left out: the Collector itself, its memory limit (num_traces), late spans, routing every span of a trace to
one Collector, and adjusting counts by the sampling probability.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.sampling import ParentBased, Sampler, TraceIdRatioBased

from evidencedesk.tracing.costs import span_cost
from evidencedesk.usage import Price, load_prices

LOW_64 = (1 << 64) - 1  # TraceIdRatioBased reads only these bits of a trace id
RATIO = 0.25  # the lab's share of traces kept by trace id, head and tail alike
EXPENSIVE = Decimal("0.01")  # credits: the lab's tail policy keeps every trace that cost at least this


def head_sampler(ratio: float) -> Sampler:
    """The SDK's ParentBased(TraceIdRatioBased(ratio)): the root span's
    sampler decides, from the trace id, for the whole trace.

    Args: ratio (float, 0 to 1). Returns: Sampler.
    Raises: ValueError naming ratio outside 0 to 1.
    Example: make_tracing(clock, head_sampler(0.25))
    """
    if isinstance(ratio, bool) or not isinstance(ratio, int | float) \
            or not 0 <= ratio <= 1:
        raise ValueError(f"ratio must be a number from 0 to 1, got {ratio!r}")
    return ParentBased(TraceIdRatioBased(ratio))


def ratio_keeps(trace_id: int, ratio: float) -> bool:
    """Whether TraceIdRatioBased(ratio) keeps a trace with this id: the SDK's own rule, asked of the SDK.

    Example: ratio_keeps(1, 0.25) -> True (a tiny id is under every bound but 0)
    """
    sampler = TraceIdRatioBased(ratio)
    return trace_id & LOW_64 < sampler.bound


@dataclass(frozen=True)
class TraceSummary:
    """One finished trace: trace_id (int), spans (int), cost (Decimal, credits), error (bool: any span's status
    is ERROR)."""

    trace_id: int
    spans: int
    cost: Decimal
    error: bool


def summarise(spans: Sequence[ReadableSpan], table: dict[str, Price] | None = None) -> list[TraceSummary]:
    """One TraceSummary per trace among spans, in the order each trace's first span ended.

    Example: [t.error for t in summarise(tracing.spans())]
    """
    table = table if table is not None else load_prices()
    grouped: dict[int, list[ReadableSpan]] = {}
    for span in spans:
        grouped.setdefault(span.context.trace_id, []).append(span)
    return [TraceSummary(tid, len(group), sum((span_cost(s, table) for s in group), Decimal(0)),
                         any(not s.status.is_ok for s in group)) for tid, group in grouped.items()]


def tail_keep(trace: TraceSummary, ratio: float,
              cost_at_least: Decimal) -> bool:
    """A tail policy: keep every trace with an error, every trace that
    cost at least cost_at_least (credits), and otherwise the traces that
    ratio_keeps(trace_id, ratio) keeps.

    Example: tail_keep(TraceSummary(1, 2, Decimal(0), True), 0, 1) -> True
    """
    return (trace.error or trace.cost >= cost_at_least
            or ratio_keeps(trace.trace_id, ratio))


@dataclass(frozen=True)
class Kept:
    """What a store holds after sampling: traces, spans (int), cost (Decimal, credits), errors (int, traces
    with an error)."""

    traces: int
    spans: int
    cost: Decimal
    errors: int


def kept(traces: Sequence[TraceSummary], keep: Callable[[TraceSummary], bool] = lambda t: True) -> Kept:
    """Totals over the traces that keep(trace) keeps (all of them by default).

    Example: kept(summarise(spans), lambda t: tail_keep(t, 0.25, Decimal("0.01"))).errors
    """
    chosen = [t for t in traces if keep(t)]
    return Kept(len(chosen), sum(t.spans for t in chosen), sum((t.cost for t in chosen), Decimal(0)),
                sum(t.error for t in chosen))
