"""Tests for evidencedesk.llm: messages, requests, token estimates, the kit's errors and the scripted client."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from evidencedesk import llm
from evidencedesk.llm import (
    BAD_REQUEST,
    INCOMPLETE,
    LENGTH,
    MALFORMED_RESPONSE,
    MESSAGE_OVERHEAD_TOKENS,
    RATE_LIMITED,
    STOP,
    STOP_REASONS,
    TIMEOUT,
    TOOL_CALLS,
    BadRequest,
    Incomplete,
    LLMError,
    LLMInputError,
    LLMRequest,
    LLMResponse,
    LLMTimeout,
    MalformedResponse,
    Message,
    RateLimited,
    ScriptedClient,
    ScriptExhausted,
    ToolCall,
    Usage,
    arguments_text,
    estimate_tokens,
    request_tokens,
    require_complete,
)


def ask(text: str = "Is T-601 open?") -> LLMRequest:
    return LLMRequest("scripted-1", [Message("system", "Be brief."), Message("user", text)], max_tokens=50)


@pytest.mark.parametrize("role", ["system", "user", "assistant"])
def test_message_accepts_the_three_roles(role: str) -> None:
    assert Message(role, "hi").role == role


@pytest.mark.parametrize("role", ["function", "", "User", None])
def test_message_rejects_other_roles_and_names_the_field(role: object) -> None:
    with pytest.raises(LLMInputError, match="role"):
        Message(role, "hi")  # type: ignore[arg-type]


def test_message_content_must_be_text() -> None:
    with pytest.raises(LLMInputError, match="content"):
        Message("user", 42)  # type: ignore[arg-type]


def test_request_stores_messages_as_a_tuple() -> None:
    request = ask()
    assert isinstance(request.messages, tuple) and request.messages[1] == Message("user", "Is T-601 open?")


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"model": "", "messages": [], "max_tokens": 5}, "model"),
        ({"model": "m", "messages": ["hi"], "max_tokens": 5}, r"messages\[0\]"),
        ({"model": "m", "messages": [], "max_tokens": 0}, "max_tokens"),
        ({"model": "m", "messages": [], "max_tokens": "10"}, "max_tokens"),
        ({"model": "m", "messages": [], "max_tokens": True}, "max_tokens"),
    ],
)
def test_request_rejects_bad_input_naming_the_field(kwargs: dict, field: str) -> None:
    with pytest.raises(LLMInputError, match=field):
        LLMRequest(**kwargs)


def test_response_can_be_built_positionally() -> None:
    response = LLMResponse(json.dumps({"action": "finish"}), "fixed-plan", Usage())
    assert (response.model, response.usage.input_tokens, response.usage.output_tokens) == ("fixed-plan", 0, 0)


@pytest.mark.parametrize(("text", "tokens"), [("", 0), ("a", 1), ("abcd", 1), ("abcde", 2), ("x" * 400, 100)])
def test_estimate_tokens_is_ceil_of_characters_over_four(text: str, tokens: int) -> None:
    assert estimate_tokens(text) == tokens


def test_estimate_tokens_rejects_non_text() -> None:
    with pytest.raises(TypeError, match="text"):
        estimate_tokens(None)  # type: ignore[arg-type]


def test_scripted_client_replies_in_order_with_estimated_usage() -> None:
    client = ScriptedClient(["first reply", "second"])
    first, second = client.complete(ask()), client.complete(ask("again"))
    assert (first.text, second.text) == ("first reply", "second")
    assert first.model == "scripted-1"
    assert first.usage == Usage(input_tokens=3 + 4 + 4 + 4, output_tokens=3)  # 2 messages: text + 4 overhead each
    assert [r.messages[-1].content for r in client.requests] == ["Is T-601 open?", "again"]


def test_scripted_client_raises_a_named_error_when_the_script_runs_out() -> None:
    client = ScriptedClient(["only one"], model="fake-agent-1")
    client.complete(ask())
    with pytest.raises(ScriptExhausted, match="1 replies"):
        client.complete(ask())


def test_request_tokens_lives_here_and_adds_four_per_message() -> None:
    request = LLMRequest("m", [Message("system", "abcd"), Message("user", "abcdefgh")], max_tokens=5)
    assert request_tokens(request) == (1 + MESSAGE_OVERHEAD_TOKENS) + (2 + MESSAGE_OVERHEAD_TOKENS)


def test_llm_imports_nothing_else_from_the_kit() -> None:
    """The dependency runs one way: usage.py and later modules import llm.py, never the reverse."""
    tree = ast.parse(Path(llm.__file__).read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert not any(name.startswith("evidencedesk") for name in imported), imported


def test_scripted_client_stops_at_the_output_allowance() -> None:
    client = ScriptedClient(["x" * 1000])
    response = client.complete(LLMRequest("scripted-1", [Message("user", "long?")], max_tokens=10))
    assert response.text == "x" * 40 and response.usage.output_tokens == 10


def test_scripted_client_raises_a_scripted_error_and_then_goes_on() -> None:
    client = ScriptedClient([RateLimited("slow down", "script", retry_after_s=2.0), "fine"])
    with pytest.raises(RateLimited) as caught:
        client.complete(ask())
    assert caught.value.retry_after_s == 2.0 and str(caught.value) == "script: slow down"
    assert client.complete(ask()).text == "fine" and len(client.requests) == 2


@pytest.mark.parametrize(
    ("error", "code", "retryable"),
    [
        (RateLimited("x"), RATE_LIMITED, True),
        (LLMTimeout("x"), TIMEOUT, True),
        (BadRequest("x"), BAD_REQUEST, False),
        (MalformedResponse("x"), MALFORMED_RESPONSE, False),
    ],
)
def test_each_kit_error_has_its_code_and_says_whether_to_retry(error: LLMError, code: str, retryable: bool) -> None:
    assert isinstance(error, LLMError) and isinstance(error, RuntimeError)
    assert (error.code, error.retryable, error.provider, str(error)) == (code, retryable, "", "x")


def test_codes_are_distinct() -> None:
    assert len({RATE_LIMITED, TIMEOUT, BAD_REQUEST, MALFORMED_RESPONSE}) == 4


def test_a_response_says_why_the_model_stopped_and_defaults_to_stop() -> None:
    assert LLMResponse("ok", "m").stop_reason == STOP and LLMResponse("o", "m", Usage(), LENGTH).stop_reason == LENGTH
    with pytest.raises(LLMInputError, match="stop_reason"):
        LLMResponse("ok", "m", Usage(), "finished")


def test_the_scripted_client_marks_a_reply_cut_at_max_tokens_as_length() -> None:
    reply = "Yes, within 30 days. Bring the receipt and the box."
    cut = ScriptedClient([reply]).complete(LLMRequest("scripted-1", [Message("user", "?")], max_tokens=5))
    whole = ScriptedClient([reply]).complete(LLMRequest("scripted-1", [Message("user", "?")], max_tokens=50))
    assert (cut.text, cut.stop_reason) == (reply[:20], LENGTH) and whole.stop_reason == STOP


@pytest.mark.parametrize("reason", [r for r in STOP_REASONS if r != STOP])
def test_require_complete_refuses_every_reply_that_did_not_end_by_itself(reason: str) -> None:
    with pytest.raises(Incomplete) as caught:
        calls = (ToolCall("call_1", "get_ticket", {}),) if reason == TOOL_CALLS else ()
        require_complete(LLMResponse("Yes, within 30 days.", "m", Usage(), reason, calls))
    assert (caught.value.code, caught.value.retryable, caught.value.stop_reason) == (INCOMPLETE, False, reason)
    done = LLMResponse("Yes.", "m")
    assert require_complete(done) is done


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"temperature": -0.1}, "temperature"), ({"temperature": 2.5}, "temperature"),
    ({"temperature": float("nan")}, "temperature"), ({"temperature": True}, "temperature"),
    ({"tools": "get_ticket"}, "tools"), ({"tools": [""]}, "tools"), ({"response_format": ""}, "response_format"),
])
def test_sampling_tools_and_format_are_checked_naming_the_field(kwargs: dict, field: str) -> None:
    with pytest.raises(LLMInputError, match=field):
        LLMRequest("m", [], 5, **kwargs)


def test_a_request_defaults_to_temperature_0_no_tools_and_text() -> None:
    request = LLMRequest("m", [], 5, tools=["a"])
    assert (ask().temperature, ask().tools, ask().response_format, request.tools) == (0.0, (), "text", ("a",))


# --- tool calls: the kit's one shape, the "tool" role, and calls on a response --------------------------------

CALL = ToolCall("call_1", "get_ticket", {"ticket_id": "T-601"})


def test_a_tool_message_answers_one_call_and_an_assistant_message_carries_calls() -> None:
    answer = Message("tool", '{"status": "open"}', tool_call_id="call_1")
    asked = Message("assistant", "Let me look.", tool_calls=[CALL])
    assert (answer.role, answer.tool_call_id, answer.tool_calls) == ("tool", "call_1", ())
    assert asked.tool_calls == (CALL,) and isinstance(asked.tool_calls, tuple)


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"role": "tool", "content": "x"}, "tool_call_id: a tool message must name the call"),
    ({"role": "user", "content": "x", "tool_call_id": "call_1"}, "tool_call_id: only a tool message"),
    ({"role": "tool", "content": "x", "tool_call_id": 7}, "tool_call_id must be a str"),
    ({"role": "user", "content": "x", "tool_calls": (CALL,)}, "tool_calls: only an assistant message"),
    ({"role": "assistant", "content": "", "tool_calls": CALL}, "tool_calls must be a tuple of ToolCall"),
    ({"role": "assistant", "content": "", "tool_calls": ("get_ticket",)}, r"tool_calls\[0\] must be a ToolCall"),
    ({"role": "assistant", "content": "", "tool_calls": (ToolCall("", "t", {}),)}, r"tool_calls\[0\].id"),
    ({"role": "assistant", "content": "", "tool_calls": (CALL, ToolCall("c2", None, {}))}, r"tool_calls\[1\].name"),
    ({"role": "assistant", "content": "", "tool_calls": (ToolCall("c", "t", [1]),)}, r"tool_calls\[0\].arguments"),
    ({"role": "assistant", "content": "", "tool_calls": (CALL, CALL)}, "two calls share an id"),
])
def test_tool_fields_that_do_not_fit_the_role_are_refused_naming_the_field(kwargs: dict, field: str) -> None:
    with pytest.raises(LLMInputError, match=field):
        Message(**kwargs)


def test_calls_come_with_any_stop_reason_but_a_tool_stop_needs_one() -> None:
    asked = LLMResponse("", "m", Usage(), TOOL_CALLS, (CALL, ToolCall("call_2", "lookup_document", "{not json")))
    assert [c.id for c in asked.tool_calls] == ["call_1", "call_2"] and asked.tool_calls[1].arguments == "{not json"
    for stop in (STOP, LENGTH):  # a forced call says "stop" at OpenAI, every call at Gemini; a cut call "length"
        assert LLMResponse("", "m", Usage(), stop, [CALL]).tool_calls == (CALL,)
    with pytest.raises(LLMInputError, match="tool_calls: stop_reason 'tool_calls' needs at least one call"):
        LLMResponse("", "m", Usage(), TOOL_CALLS, ())
    with pytest.raises(LLMInputError, match="refusal must be a str"):
        LLMResponse("", "m", Usage(), STOP, (), None)  # type: ignore[arg-type]


def test_require_complete_refuses_calls_and_refusals_even_with_stop() -> None:
    for response, what in ((LLMResponse("", "m", Usage(), STOP, (CALL,)), "1 tool call(s)"),
                           (LLMResponse("", "m", Usage(), STOP, (), "I can't help with that."), "a refusal")):
        with pytest.raises(Incomplete, match=re.escape(f"sent {what}, not an answer")) as caught:
            require_complete(response)
        assert caught.value.stop_reason == STOP
    assert "refusal" not in repr(LLMResponse("", "m", Usage(), STOP, (), "no"))  # the repr stays as it was


def test_request_tokens_counts_call_arguments_and_tool_definitions_too() -> None:
    plain = LLMRequest("m", [Message("user", "abcd")], 5)
    definition = '{"name": "get_ticket", "description": "", "parameters": {"type": "object"}}'
    asked = LLMRequest("m", [Message("user", "abcd"), Message("assistant", "", tool_calls=[CALL]),
                             Message("tool", "abcdefgh", tool_call_id="call_1")], 5, tools=[definition])
    calls = estimate_tokens("get_ticket") + estimate_tokens('{"ticket_id": "T-601"}')
    assert request_tokens(plain) == 1 + MESSAGE_OVERHEAD_TOKENS
    assert request_tokens(asked) == (1 + 4) + (0 + 4) + (2 + 4) + calls + estimate_tokens(definition)


def test_arguments_text_is_the_json_a_model_writes_and_never_raises() -> None:
    assert arguments_text(CALL) == '{"ticket_id": "T-601"}'
    assert arguments_text(ToolCall("c", "t", '{"ticket_id": ')) == '{"ticket_id": '
    loop: dict = {}
    loop["self"] = loop
    assert arguments_text(ToolCall("c", "t", {"when": {1, 2}})) == "<dict>" == arguments_text(ToolCall("c", "t", loop))
