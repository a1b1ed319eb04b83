"""The real OpenTelemetry SDK, made deterministic: ids from a seed, times from the ManualClock.

make_tracing() builds a TracerProvider of its own with a SimpleSpanProcessor, which hands each span to an
InMemorySpanExporter as soon as it ends, a Resource made by Resource.create (as the SDK's documentation asks)
with service.name and a fixed service.instance.id, and an IdGenerator of the kit's. It never calls
trace.set_tracer_provider: the global provider is set once per process and cannot be replaced, so each setup
keeps its own provider and two setups never share spans.
The SDK's own defaults would make outputs differ between runs: Resource.create() adds a random
service.instance.id unless one is given, RandomIdGenerator draws ids at random, and a span without a
start_time reads the wall clock. So the instance id is given (INSTANCE), SeededIds
derives each id from sha256 of a seed and a counter (the same run has the same ids on every machine, and the
ids are still spread evenly, which TraceIdRatioBased relies on), and every span gets start_time and end_time
from ns(clock). CountingIds (1, 2, 3, ...) shows what a ratio sampler does with ids that are not spread.
tree() prints finished spans one line each, indented under their parent.
Left out: exporting (OTLP to a Collector), batching (BatchSpanProcessor), context propagation between
processes (the traceparent header), metrics and logs. Resource.create also reads OTEL_SERVICE_NAME and
OTEL_RESOURCE_ATTRIBUTES, but merges the attributes given in code last: service.name and service.instance.id
stay the kit's, and the variables can only add other keys (SDK v1.45.2, resources/__init__.py, read 2026-12-03).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from opentelemetry.sdk.resources import SERVICE_INSTANCE_ID, SERVICE_NAME, Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator
from opentelemetry.sdk.trace.sampling import ALWAYS_ON, Sampler
from opentelemetry.trace import Tracer

from evidencedesk.usage import ManualClock

SERVICE = "evidencedesk-helpdesk"  # service.name on every span's resource
INSTANCE = "evidencedesk-helpdesk-1"  # service.instance.id: fixed, where the SDK would draw a random UUID
SCOPE = "evidencedesk.tracing"  # the instrumentation scope: the name of the code that makes the spans
NS_PER_S = 1_000_000_000  # OpenTelemetry times are integer nanoseconds
TRACE_BITS, SPAN_BITS = 128, 64  # a W3C trace id and span id (neither may be all zeros)


def ns(clock: ManualClock) -> int:
    """The clock's time as integer nanoseconds, for start_time and end_time.

    Args: clock (ManualClock, seconds). Returns: int, nanoseconds. Example: ns(ManualClock(1.5)) -> 1500000000
    """
    return round(clock() * NS_PER_S)


class SeededIds(IdGenerator):
    """Trace and span ids from sha256(seed, kind, counter): the same on every run, spread like random ids.

    Args: seed (str). is_trace_id_random() stays False: the ids are reproducible, not random, and a W3C
    traceparent must not claim they are.
    Raises: ValueError for an empty seed. Example: SeededIds("demo").generate_trace_id() -> the same int every run
    """

    def __init__(self, seed: str) -> None:
        if not isinstance(seed, str) or not seed:
            raise ValueError(f"seed must be a non-empty str, got {seed!r}")
        self.seed, self.traces, self.spans = seed, 0, 0

    def _next(self, kind: str, number: int, bits: int) -> int:
        while True:  # an all-zero id is invalid; sha256 gives one with odds of 2**-64 or less
            digest = hashlib.sha256(f"{self.seed}:{kind}:{number}".encode()).digest()
            value = int.from_bytes(digest[: bits // 8], "big")
            if value:
                return value
            number += 1 << 32

    def generate_trace_id(self) -> int:
        """The next trace id (int, 128 bits)."""
        self.traces += 1
        return self._next("trace", self.traces, TRACE_BITS)

    def generate_span_id(self) -> int:
        """The next span id (int, 64 bits)."""
        self.spans += 1
        return self._next("span", self.spans, SPAN_BITS)


class CountingIds(IdGenerator):
    """Ids 1, 2, 3, ...: deterministic too, but every trace id is tiny, so a ratio sampler keeps them all.

    Example: CountingIds().generate_trace_id() -> 1
    """

    def __init__(self) -> None:
        self.traces = self.spans = 0

    def generate_trace_id(self) -> int:
        """The next trace id: 1, 2, 3, ..."""
        self.traces += 1
        return self.traces

    def generate_span_id(self) -> int:
        """The next span id: 1, 2, 3, ..."""
        self.spans += 1
        return self.spans


@dataclass(frozen=True)
class Tracing:
    """One setup: its provider, the exporter that holds finished spans, a tracer, and the clock spans read.

    Example: tracing = make_tracing(ManualClock()); tracing.spans() -> ()
    """

    provider: TracerProvider
    exporter: InMemorySpanExporter
    tracer: Tracer
    clock: ManualClock

    def spans(self) -> tuple[ReadableSpan, ...]:
        """Every finished span the exporter holds, in the order they ended."""
        return tuple(self.exporter.get_finished_spans())


def make_tracing(clock: ManualClock, sampler: Sampler = ALWAYS_ON,
                 ids: IdGenerator | None = None,
                 seed: str = "evidencedesk") -> Tracing:
    """A TracerProvider of its own on the real SDK, spans into memory.

    Args: clock (ManualClock): the time spans read; sampler (an SDK
    Sampler; ALWAYS_ON keeps every trace); ids (IdGenerator or None:
    None means SeededIds(seed)); seed (str).
    Returns: Tracing. Raises: TypeError naming clock or sampler.
    Example: make_tracing(ManualClock(), head_sampler(0.25))
    """
    if not isinstance(clock, ManualClock):
        raise TypeError(f"clock must be a ManualClock, got {clock!r}")
    if not isinstance(sampler, Sampler):
        raise TypeError(f"sampler must be an SDK Sampler, got {sampler!r}")
    provider = TracerProvider(
        sampler=sampler,
        resource=Resource.create(
            {SERVICE_NAME: SERVICE, SERVICE_INSTANCE_ID: INSTANCE}),
        id_generator=ids if ids is not None else SeededIds(seed),
        shutdown_on_exit=False)
    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return Tracing(provider, exporter, provider.get_tracer(SCOPE), clock)


def _line(span: ReadableSpan, depth: int, detail: Callable[[ReadableSpan], str]) -> str:
    start, end = (span.start_time or 0) / NS_PER_S, (span.end_time or 0) / NS_PER_S
    status = " ERROR" if not span.status.is_ok else ""
    return f"{'  ' * depth}{span.name} {start:.2f}-{end:.2f}s{status} {detail(span)}".rstrip()


def tree(spans: Sequence[ReadableSpan], detail: Callable[[ReadableSpan], str] = lambda s: "") -> list[str]:
    """Finished spans one line each: name, start-end (seconds on the clock), ERROR if its status is, and
    detail(span); each child under its parent, indented, in the order they started; a span whose parent is
    not among spans (a dropped or remote parent) starts a tree of its own.

    Args: spans (sequence of ReadableSpan); detail (function of a span to str). Returns: list of str.
    Example: tree(tracing.spans())[0] -> "invoke_agent helpdesk 0.00-1.02s user=kwame ..."
    """
    ids = {s.context.span_id for s in spans}
    children: dict[int | None, list[ReadableSpan]] = {}
    for span in spans:
        parent = span.parent.span_id if span.parent is not None and span.parent.span_id in ids else None
        children.setdefault(parent, []).append(span)
    lines: list[str] = []

    def walk(parent: int | None, depth: int) -> None:
        for span in sorted(children.get(parent, []), key=lambda s: (s.start_time or 0, s.end_time or 0)):
            lines.append(_line(span, depth, detail))
            walk(span.context.span_id, depth + 1)

    walk(None, 0)
    return lines
