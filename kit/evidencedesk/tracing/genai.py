"""Spans named by the OpenTelemetry GenAI semantic conventions, around calling.rounds.

The names below are those of semantic-conventions v1.41.0 (https://github.com/open-telemetry/semantic-
conventions/tree/v1.41.0/docs/gen-ai, read 2026-12-03). v1.41.1 changed nothing in them, and v1.42.0 marked them
deprecated there and moved them to their own repository (open-telemetry/semantic-conventions-genai); every one has
the status Development, so a later release may rename them. USER and FEATURE are not in the conventions:
they are this application's own, under its own prefix, as the conventions' naming guide asks.
TracedClient wraps any LLMClient: each complete() is a CLIENT span "chat {model}" with the request's
model and settings, the reply's model, token counts and finish reason, or error.type and an ERROR status
when the call raised. TracedGate wraps a gate.ToolGate: each run() is an INTERNAL span "execute_tool
{name}" with the tool's name and call id, and error.type when the gate's result is not ok. traced_rounds()
opens an "invoke_agent {agent}" span with the user and the feature, and runs calling.rounds.run_rounds
inside it, unchanged: the two wrappers' spans become its children because OpenTelemetry's context carries
the current span. Content is captured only when the client's capture is on (content.py).
Left out: streaming attributes, metrics (gen_ai.client.token.usage and the rest), events, server.address,
gen_ai.response.id, and the conventions' opt-in variable OTEL_SEMCONV_STABILITY_OPT_IN (for instrumentations
that emitted v1.36.0 or earlier; this one has only ever emitted the names below).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, use_span

from evidencedesk.calling.rounds import run_rounds
from evidencedesk.gate import ToolGate
from evidencedesk.llm import LLMClient, LLMRequest, LLMResponse, ToolCall, arguments_text
from evidencedesk.tools import ToolResult, result_text
from evidencedesk.tracing.content import input_messages, output_messages, redact
from evidencedesk.tracing.setup import Tracing, ns

SEMCONV_VERSION = "1.41.0"  # the GenAI names below, as that release of semantic-conventions defines them
# gen_ai.* attribute names (Development)
OPERATION = "gen_ai.operation.name"
PROVIDER = "gen_ai.provider.name"  # replaces the deprecated gen_ai.system
REQUEST_MODEL = "gen_ai.request.model"
REQUEST_MAX_TOKENS = "gen_ai.request.max_tokens"
REQUEST_TEMPERATURE = "gen_ai.request.temperature"
RESPONSE_MODEL = "gen_ai.response.model"
FINISH_REASONS = "gen_ai.response.finish_reasons"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
CACHE_READ_TOKENS = "gen_ai.usage.cache_read.input_tokens"
AGENT_NAME = "gen_ai.agent.name"
TOOL_NAME = "gen_ai.tool.name"
TOOL_CALL_ID = "gen_ai.tool.call.id"
TOOL_TYPE = "gen_ai.tool.type"
INPUT_MESSAGES = "gen_ai.input.messages"  # opt-in: content
OUTPUT_MESSAGES = "gen_ai.output.messages"  # opt-in: content
TOOL_ARGUMENTS = "gen_ai.tool.call.arguments"  # opt-in: content
TOOL_RESULT = "gen_ai.tool.call.result"  # opt-in: content
ERROR_TYPE = "error.type"  # a general attribute (Stable), not a gen_ai one
CONTENT_KEYS = (INPUT_MESSAGES, OUTPUT_MESSAGES, TOOL_ARGUMENTS, TOOL_RESULT)
# the conventions' operation names
CHAT, EXECUTE_TOOL, INVOKE_AGENT = "chat", "execute_tool", "invoke_agent"
# this application's own attributes: not semantic conventions
USER = "evidencedesk.user"  # the user the request is for
FEATURE = "evidencedesk.feature"  # the product feature that made the request
AGENT = "helpdesk"  # gen_ai.agent.name of the help desk's rounds


def _fail(span: Span, error_type: str) -> None:
    span.set_attribute(ERROR_TYPE, error_type)
    span.set_status(Status(StatusCode.ERROR, error_type))


def _error_type(exc: BaseException) -> str:
    return str(getattr(exc, "code", "") or type(exc).__qualname__)  # the kit's error code, else the class name


class TracedClient:
    """An LLMClient whose every call is a span "chat {request.model}" (kind CLIENT) on tracing's tracer.

    Args: inner (LLMClient: whatever moves the clock, e.g. usage.SlowClient, moves the span's end);
    tracing (setup.Tracing); provider (str, gen_ai.provider.name: a well-known value where one applies,
    else the application's own); capture (bool): record the redacted messages (content.py), off by default.
    Raises (complete): whatever inner raises, after the span records error.type and an ERROR status.
    Example: TracedClient(SlowClient(client, clock, 0.4), tracing, "alpha").complete(request)
    """

    def __init__(self, inner: LLMClient, tracing: Tracing, provider: str, capture: bool = False) -> None:
        if not isinstance(provider, str) or not provider:
            raise ValueError(f"provider must be a non-empty str, got {provider!r}")
        self.inner, self.tracing, self.provider, self.capture = inner, tracing, provider, capture is True

    def complete(self, request: LLMRequest) -> LLMResponse:
        """Send request through inner inside a chat span; return the reply."""
        attributes: dict[str, Any] = {
            OPERATION: CHAT, PROVIDER: self.provider,
            REQUEST_MODEL: request.model,
            REQUEST_MAX_TOKENS: request.max_tokens,
            REQUEST_TEMPERATURE: float(request.temperature)}
        if self.capture:
            attributes[INPUT_MESSAGES] = input_messages(request)
        clock = self.tracing.clock
        span = self.tracing.tracer.start_span(
            f"{CHAT} {request.model}", kind=SpanKind.CLIENT,
            attributes=attributes, start_time=ns(clock))
        try:
            with use_span(span, record_exception=False,
                          set_status_on_exception=False):
                response = self.inner.complete(request)
        except Exception as exc:
            _fail(span, _error_type(exc))
            span.end(end_time=ns(clock))
            raise
        usage = response.usage
        span.set_attributes({
            RESPONSE_MODEL: response.model,
            FINISH_REASONS: [response.stop_reason],
            INPUT_TOKENS: usage.input_tokens,
            OUTPUT_TOKENS: usage.output_tokens})
        if usage.cached_input_tokens:
            span.set_attribute(CACHE_READ_TOKENS, usage.cached_input_tokens)
        if self.capture:
            span.set_attribute(OUTPUT_MESSAGES, output_messages(response))
        span.end(end_time=ns(clock))
        return response


class TracedGate:
    """A gate.ToolGate whose every run() is a span "execute_tool {call.name}" (kind INTERNAL).

    Each call takes tool_s seconds on the clock (an invented, fixed time: the kit's tools take none).
    Everything else (registry, policy, audit) is the wrapped gate's. A result that is not ok sets error.type
    to its code and the span's status to ERROR; the gate itself never raises.
    Args: gate (ToolGate); tracing (Tracing); tool_s (float, seconds, >= 0); capture (bool, as TracedClient's).
    Raises: ValueError naming tool_s. Example: TracedGate(gate, tracing).run(call, "triage", "r1", "kwame")
    """

    def __init__(self, gate: ToolGate, tracing: Tracing, tool_s: float = 0.05, capture: bool = False) -> None:
        if isinstance(tool_s, bool) or not isinstance(tool_s, int | float) or not 0 <= tool_s < 60:
            raise ValueError(f"tool_s must be seconds from 0 to 60, got {tool_s!r}")
        self.gate, self.tracing, self.tool_s, self.capture = gate, tracing, tool_s, capture is True

    def __getattr__(self, name: str) -> Any:
        return getattr(self.gate, name)  # registry, policy, audit: the gate's own

    def run(self, call: ToolCall, task: str, run_id: str, caller: str) -> ToolResult:
        """gate.run(call, task, run_id, caller) inside an execute_tool span; its result unchanged."""
        attributes: dict[str, Any] = {OPERATION: EXECUTE_TOOL, TOOL_NAME: call.name, TOOL_CALL_ID: call.id,
                                      TOOL_TYPE: "function"}
        if self.capture:
            attributes[TOOL_ARGUMENTS] = redact(arguments_text(call))
        clock = self.tracing.clock
        span = self.tracing.tracer.start_span(f"{EXECUTE_TOOL} {call.name}", kind=SpanKind.INTERNAL,
                                              attributes=attributes, start_time=ns(clock))
        with use_span(span, record_exception=False, set_status_on_exception=False):
            result = self.gate.run(call, task, run_id, caller)
        clock.advance(self.tool_s)
        if self.capture:
            span.set_attribute(TOOL_RESULT, redact(result_text(result)))
        if not result.ok:
            _fail(span, result.code)
        span.end(end_time=ns(clock))
        return result


@dataclass(frozen=True)
class Outcome:
    """How a traced question ended: reason (run_rounds' reason, or "error" when a call raised), error_type
    ("" or the error's code), trace_id (int, the trace's id; 0 when the sampler dropped the trace)."""

    reason: str
    error_type: str
    trace_id: int


def traced_rounds(client: TracedClient, gate: TracedGate, request: LLMRequest, *, user: str, feature: str,
                  task: str = "triage", run_id: str = "run-1", agent: str = AGENT) -> Outcome:
    """run_rounds(client, request, gate, task, run_id, user) inside an "invoke_agent {agent}" span (INTERNAL)
    that carries USER and FEATURE. A call that raises ends the question: the span records error.type and
    an ERROR status, and the outcome says "error" (the exception is not raised again).

    Args: client (TracedClient); gate (TracedGate), both on the same Tracing; request (LLMRequest);
    user, feature (str, non-empty); task, run_id (str, for the gate); agent (str, gen_ai.agent.name).
    Returns: Outcome. Raises: ValueError naming user or feature when empty, or when the two wrappers do not
    share one Tracing.
    Example: traced_rounds(client, gate, ask("Is T-501 open?", tools), user="kwame", feature="triage").reason
    """
    for name, value in (("user", user), ("feature", feature)):
        if not isinstance(value, str) or not value:
            raise ValueError(f"{name} must be a non-empty str, got {value!r}")
    if client.tracing is not gate.tracing:
        raise ValueError("client and gate must trace into the same Tracing")
    tracing = client.tracing
    span = tracing.tracer.start_span(f"{INVOKE_AGENT} {agent}", kind=SpanKind.INTERNAL, start_time=ns(tracing.clock),
                                     attributes={OPERATION: INVOKE_AGENT, PROVIDER: client.provider,
                                                 AGENT_NAME: agent, REQUEST_MODEL: request.model,
                                                 USER: user, FEATURE: feature})
    trace_id = span.get_span_context().trace_id if span.is_recording() else 0
    try:
        with use_span(span, record_exception=False, set_status_on_exception=False):
            rounds = run_rounds(client, request, gate, task, run_id, user)  # type: ignore[arg-type]
    except Exception as exc:
        _fail(span, _error_type(exc))
        span.end(end_time=ns(tracing.clock))
        return Outcome("error", _error_type(exc), trace_id)
    span.end(end_time=ns(tracing.clock))
    return Outcome(rounds.reason, "", trace_id)


def detail(span: ReadableSpan) -> str:
    """A short summary of a span's GenAI attributes, for setup.tree: the user and feature of an agent span,
    tokens and finish reason of a chat span, the call id of a tool span, and error.type if any.

    Args: span (ReadableSpan). Returns: str. Example: detail(chat_span) -> "in=141 out=9 tool_calls"
    """
    a = span.attributes or {}
    op = a.get(OPERATION)
    bits: list[str] = []
    if op == INVOKE_AGENT:
        bits = [f"user={a.get(USER)}", f"feature={a.get(FEATURE)}"]
    elif op == CHAT and INPUT_TOKENS in a:
        bits = [f"in={a[INPUT_TOKENS]}", f"out={a[OUTPUT_TOKENS]}", *a.get(FINISH_REASONS, ())]
    elif op == EXECUTE_TOOL:
        bits = [str(a.get(TOOL_CALL_ID))]
    if ERROR_TYPE in a:
        bits.append(f"error.type={a[ERROR_TYPE]}")
    return " ".join(bits)


def attributes_of(span: ReadableSpan) -> dict[str, Any]:
    """A span's attributes as a plain dict, tuples as lists (what json.dumps prints).

    Example: attributes_of(span)[OPERATION] -> "chat"
    """
    plain = {k: list(v) if isinstance(v, tuple) else v for k, v in (span.attributes or {}).items()}
    return json.loads(json.dumps(plain))
