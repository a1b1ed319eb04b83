"""The drill's runs as OpenTelemetry spans, and the search that finds a poisoned run in them.

traced_run() runs an agent of Agent Loops, State, and Memory inside an "invoke_agent" span of Tracing and
Cost Attribution's conventions, with that page's wrappers around its model (TracedClient, each call a
"chat" span) and its gate (TracedGate, each call an "execute_tool" span with error.type when the gate
refuses). Content capture stays off: no prompt, reply, argument or note text is in any span. What the root
span carries besides is the kit's own, under its own prefix: the run id (RUN), the feature, the source tags
of the memory notes the run loaded (MEMORY: tags such as "tool:get_ticket:o1@r-1", which name a run and an
observation, never the note's text) and the ids of the tickets the run read (TICKETS). find() is the
on-call's query: a tool span of the email tool inside a summary's trace is out of character whatever text
caused it; the finding follows that trace's MEMORY tags to every run that wrote a loaded note (the trace
cannot say which note did it), and those runs' traces to the tickets they read. Left out: a tracing
backend and its query language, alerting, sampling (every trace is kept here; a sampled-out trace would
hide the finding), and spans for the agent's own check, which refuses a tool the task does not list
before any tool span starts.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import SpanKind, use_span
from pydantic import BaseModel, ConfigDict

from evidencedesk.agent.loop import Agent, ModelDecider, Run
from evidencedesk.agent.proposals import run_of
from evidencedesk.tracing.genai import (
    AGENT,
    AGENT_NAME,
    ERROR_TYPE,
    EXECUTE_TOOL,
    FEATURE,
    INVOKE_AGENT,
    OPERATION,
    PROVIDER,
    TOOL_NAME,
    USER,
    TracedClient,
    TracedGate,
)
from evidencedesk.tracing.setup import Tracing, ns

# the kit's own attributes on a run's root span: not semantic conventions
RUN = "evidencedesk.run"  # the run id
MEMORY = "evidencedesk.memory.sources"  # source tags of the notes the run loaded
TICKETS = "evidencedesk.tickets"  # ids of the tickets the run read
SCRIPTED = "scripted"  # gen_ai.provider.name of the kit's scripted fakes
SUMMARY = "summary"  # the feature whose runs must never touch a write tool


def tickets_read(run: Run) -> tuple[str, ...]:
    """The ids of the tickets a run read (its successful get_ticket observations), in order.

    Example: tickets_read(run) -> ("T-2201",)
    """
    return tuple(json.loads(o.text)["id"] for o in run.state.observations if o.ok and o.tool == "get_ticket")


def traced_run(agent: Agent, goal: str, run_id: str, tracing: Tracing, feature: str) -> Run:
    """agent.run(goal, run_id) inside an "invoke_agent" span, its model and gate wrapped to trace each call.

    agent (Agent with a ModelDecider; its decider and gate are replaced by traced ones, the gate's policy,
    registry and pending writes unchanged), goal (str), run_id (str), tracing (Tracing), feature (str).
    Returns the Run. Raises TypeError when the agent's decider is not a ModelDecider.
    Example: traced_run(agent, "Read T-601 and summarise it.", "r-2", tracing, "summary")
    """
    if not isinstance(agent.decider, ModelDecider):
        raise TypeError(f"traced_run needs a ModelDecider, got {type(agent.decider).__name__}")
    agent.decider = ModelDecider(TracedClient(agent.decider.client, tracing, SCRIPTED))
    agent.gate = TracedGate(agent.gate, tracing, tool_s=0.0)  # type: ignore[assignment]
    loaded = tuple(note.source for note in agent.memory.notes()) if agent.memory is not None else ()
    root = tracing.tracer.start_span(
        f"{INVOKE_AGENT} {AGENT}", kind=SpanKind.INTERNAL, start_time=ns(tracing.clock),
        attributes={OPERATION: INVOKE_AGENT, PROVIDER: SCRIPTED, AGENT_NAME: AGENT,
                    USER: agent.session.user_id, FEATURE: feature, RUN: run_id, MEMORY: loaded})
    with use_span(root, record_exception=False, set_status_on_exception=False):
        run = agent.run(goal, run_id=run_id)
    root.set_attribute(TICKETS, tickets_read(run))
    root.end(end_time=ns(tracing.clock))
    return run


class Finding(BaseModel):
    """What find() found: the run whose trace shows the tool, the tool's outcome (its error.type, or "ok"),
    the memory tags that run loaded, the runs those tags name (source_runs, in tag order, each once), the
    tickets those runs read, and the evidence as one line. Example: finding.source_runs -> ("r-1",)
    """

    model_config = ConfigDict(frozen=True)
    run: str
    tool: str
    code: str
    notes: tuple[str, ...]
    source_runs: tuple[str, ...]
    tickets: tuple[str, ...]
    evidence: str


def find(spans: Sequence[ReadableSpan], tool: str = "send_email_draft",
         feature: str = SUMMARY) -> Finding | None:
    """The first span of tool (str) in a trace of feature (str), followed
    to every run that wrote a note that trace loaded: with content capture
    off, no span says which note moved the model, so each is a suspect.

    spans (finished ReadableSpans, any order). Returns a Finding, or None
    when no such span exists. Example: find(spans).tickets -> ("T-2201",)
    """
    roots = {s.context.trace_id: s.attributes or {} for s in spans
             if (s.attributes or {}).get(OPERATION) == INVOKE_AGENT}
    by_run = {root.get(RUN): root for root in roots.values()}
    for span in sorted(spans, key=lambda s: s.start_time or 0):
        a, root = span.attributes or {}, roots.get(span.context.trace_id, {})
        if (a.get(OPERATION), a.get(TOOL_NAME)) != (EXECUTE_TOOL, tool) \
                or root.get(FEATURE) != feature:
            continue
        notes = tuple(root.get(MEMORY, ()))
        runs = tuple(dict.fromkeys(r for r in map(run_of, notes) if r))
        tickets = tuple(dict.fromkeys(
            t for r in runs for t in by_run.get(r, {}).get(TICKETS, ())))
        code, run = str(a.get(ERROR_TYPE, "ok")), str(root.get(RUN))
        said = f"{run}, a {feature} run, called {tool} ({code})"
        return Finding(run=run, tool=tool, code=code, notes=notes,
                       source_runs=runs, tickets=tickets, evidence=said)
    return None
