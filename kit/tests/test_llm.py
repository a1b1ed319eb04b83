"""Tests for evidencedesk.llm: messages, requests, the token estimate and the scripted client."""

from __future__ import annotations

import json

import pytest

from evidencedesk.llm import (
    LLMInputError,
    LLMRequest,
    LLMResponse,
    Message,
    ScriptedClient,
    ScriptExhausted,
    Usage,
    estimate_tokens,
)


def ask(text: str = "Is T-601 open?") -> LLMRequest:
    return LLMRequest("scripted-1", [Message("system", "Be brief."), Message("user", text)], max_tokens=50)


@pytest.mark.parametrize("role", ["system", "user", "assistant"])
def test_message_accepts_the_three_roles(role: str) -> None:
    assert Message(role, "hi").role == role


@pytest.mark.parametrize("role", ["tool", "", "User", None])
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
