"""genai.py: the wrappers' spans carry the GenAI names, errors set error.type, and run_rounds runs unchanged."""

import json

from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as registry
from opentelemetry.trace import SpanKind

from evidencedesk.tracing import genai
from evidencedesk.tracing.genai import CONTENT_KEYS, detail
from evidencedesk.tracing.lab import Question, ask_traced
from evidencedesk.tracing.setup import make_tracing
from evidencedesk.usage import ManualClock


def _lookup(capture=False, text=""):
    tracing = make_tracing(ManualClock())
    outcome = ask_traced(tracing, Question("kwame", "triage", "lookup"), text, capture)
    return tracing, outcome


def test_names_agree_with_the_python_semconv_package():
    pairs = {"OPERATION": "GEN_AI_OPERATION_NAME", "PROVIDER": "GEN_AI_PROVIDER_NAME",
             "REQUEST_MODEL": "GEN_AI_REQUEST_MODEL", "RESPONSE_MODEL": "GEN_AI_RESPONSE_MODEL",
             "FINISH_REASONS": "GEN_AI_RESPONSE_FINISH_REASONS", "INPUT_TOKENS": "GEN_AI_USAGE_INPUT_TOKENS",
             "OUTPUT_TOKENS": "GEN_AI_USAGE_OUTPUT_TOKENS", "TOOL_NAME": "GEN_AI_TOOL_NAME",
             "TOOL_CALL_ID": "GEN_AI_TOOL_CALL_ID", "INPUT_MESSAGES": "GEN_AI_INPUT_MESSAGES",
             "OUTPUT_MESSAGES": "GEN_AI_OUTPUT_MESSAGES", "CACHE_READ_TOKENS": "GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS"}
    for ours, theirs in pairs.items():
        assert getattr(genai, ours) == getattr(registry, theirs)
    assert not genai.USER.startswith("gen_ai.") and not genai.FEATURE.startswith("gen_ai.")


def test_a_lookup_is_one_agent_span_with_two_chats_and_a_tool_under_it():
    tracing, outcome = _lookup()
    spans = {s.name: s for s in tracing.spans()}
    root = spans["invoke_agent helpdesk"]
    chats = [s for s in tracing.spans() if s.name == "chat small-model-1"]
    (tool,) = [s for s in tracing.spans() if s.name == "execute_tool get_ticket"]
    assert outcome.reason == "answered" and outcome.trace_id == root.context.trace_id
    assert all(s.parent.span_id == root.context.span_id for s in [*chats, tool])
    first = chats[0].attributes
    assert first[genai.OPERATION] == "chat" and first[genai.PROVIDER] == "alpha"
    assert first[genai.REQUEST_MODEL] == first[genai.RESPONSE_MODEL] == "small-model-1"
    assert tuple(first[genai.FINISH_REASONS]) == ("tool_calls",) and first[genai.INPUT_TOKENS] > 0
    assert chats[0].kind is SpanKind.CLIENT and tool.kind is SpanKind.INTERNAL
    assert tool.attributes[genai.TOOL_CALL_ID] == "call_1" and tool.attributes[genai.TOOL_NAME] == "get_ticket"
    assert root.attributes[genai.USER] == "kwame" and root.attributes[genai.FEATURE] == "triage"
    assert detail(chats[0]).endswith("tool_calls")


def test_errors_set_error_type_and_status():
    tracing = make_tracing(ManualClock())
    outcome = ask_traced(tracing, Question("lena", "refund_check", "overload"))
    assert (outcome.reason, outcome.error_type) == ("error", "overloaded")
    assert all(s.attributes[genai.ERROR_TYPE] == "overloaded" and not s.status.is_ok for s in tracing.spans())
    denied = make_tracing(ManualClock())
    assert ask_traced(denied, Question("lena", "triage", "denied")).reason == "answered"
    (tool,) = [s for s in denied.spans() if s.name.startswith("execute_tool")]
    assert tool.attributes[genai.ERROR_TYPE] == "not_found" and not tool.status.is_ok


def test_content_only_when_capture_is_on_and_then_redacted():
    text = "I am lena.okafor@example.org. Is T-501 open?"
    off, _ = _lookup(False, text)
    assert not any(k in (s.attributes or {}) for s in off.spans() for k in CONTENT_KEYS)
    on, _ = _lookup(True, text)
    (first, *_), = [[s for s in on.spans() if s.name.startswith("chat")]]
    sent = json.loads(first.attributes[genai.INPUT_MESSAGES])
    assert sent[1]["parts"][0]["content"].startswith("I am [EMAIL].")
    assert not any("lena.okafor" in str(v) for s in on.spans() for v in (s.attributes or {}).values())
