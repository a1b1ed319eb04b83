"""Tests for evidencedesk.providers: two invented wire formats, one request and response shape, mapped errors."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from evidencedesk import providers
from evidencedesk.llm import (
    AUTH_FAILED,
    BAD_REQUEST,
    CONTENT_FILTER,
    CONTEXT_TOO_LONG,
    LENGTH,
    OVERLOADED,
    SERVER_ERROR,
    STOP,
    STOP_REASONS,
    TOOL_CALLS,
    AuthFailed,
    BadRequest,
    ContextTooLong,
    LLMClient,
    LLMError,
    LLMInputError,
    LLMRequest,
    LLMResponse,
    LLMTimeout,
    MalformedResponse,
    Message,
    Overloaded,
    RateLimited,
    ScriptedClient,
    ScriptExhausted,
    ServerError,
    Usage,
    estimate_tokens,
    request_tokens,
)
from evidencedesk.providers import (
    ALPHA_CONTEXT,
    ALPHA_FINISH,
    ALPHA_MAX_OUTPUT,
    BAD_KEY,
    BETA_CONTEXT,
    BETA_HALT,
    BETA_MAX_NEW,
    GARBLE,
    OVERLOAD,
    RATE_LIMIT,
    SERVER_FAIL,
    SLOW,
    AlphaClient,
    BetaClient,
    FakeAlphaServer,
    FakeBetaServer,
    Fault,
    decode_alpha,
    decode_beta,
    encode_alpha,
    encode_beta,
)

REPLY = "Yes: a kettle can be returned within 30 days, with its receipt. Ünïcode and a very long tail " * 3
ADAPTERS = [(AlphaClient, FakeAlphaServer), (BetaClient, FakeBetaServer)]


def ask(max_tokens: int = 200) -> LLMRequest:
    return LLMRequest("small-model-1", [Message("system", "Answer from the policy."), Message("user", "Return it?"),
                                        Message("assistant", "Which item?"), Message("user", "The kettle.")],
                      max_tokens=max_tokens)


def client_for(adapter: type, server: type, script: list) -> tuple[LLMClient, object]:
    fake = server(script)
    return adapter(fake), fake


@pytest.mark.parametrize(("adapter", "server"), ADAPTERS)
def test_the_same_request_comes_back_as_the_same_response(adapter: type, server: type) -> None:
    client, _ = client_for(adapter, server, [REPLY])
    expected = LLMResponse(REPLY, "small-model-1", Usage(request_tokens(ask()), estimate_tokens(REPLY)))
    assert client.complete(ask()) == expected


def test_both_adapters_agree_with_the_scripted_client() -> None:
    answers = [c.complete(ask()) for c in (AlphaClient(FakeAlphaServer([REPLY])), BetaClient(FakeBetaServer([REPLY])),
                                            ScriptedClient([REPLY], model="small-model-1"))]
    assert answers[0] == answers[1] == answers[2]


def test_alpha_keeps_every_message_and_role_in_order() -> None:
    body = json.loads(encode_alpha(ask()))
    assert body["model"] == "small-model-1" and body["max_output_tokens"] == 200
    assert [(m["role"], m["text"]) for m in body["input"]] == [(m.role, m.content) for m in ask().messages]


def test_beta_moves_system_text_out_and_renames_the_speakers() -> None:
    request = LLMRequest("m", [Message("system", "A."), Message("user", "Q?"), Message("system", "B.")], max_tokens=9)
    body = json.loads(encode_beta(request))
    assert body["system_prompt"] == "A.\n\nB." and body["limits"] == {"max_new_tokens": 9}
    assert body["turns"] == [{"speaker": "human", "says": "Q?"}]
    assert [t["speaker"] for t in json.loads(encode_beta(ask()))["turns"]] == ["human", "bot", "human"]


def test_beta_sends_the_reply_in_pieces_that_join_exactly() -> None:
    fake = FakeBetaServer([REPLY])
    status, text = fake(encode_beta(ask()))
    segments = json.loads(text)["reply"]["segments"]
    assert status == 200 and len(segments) > 1 and "".join(segments) == REPLY


@pytest.mark.parametrize(("adapter", "server"), ADAPTERS)
def test_a_rate_limit_becomes_rate_limited_with_the_wait_in_seconds(adapter: type, server: type) -> None:
    client, _ = client_for(adapter, server, [Fault(RATE_LIMIT, wait_s=1.5)])
    with pytest.raises(RateLimited) as caught:
        client.complete(ask())
    assert caught.value.retry_after_s == 1.5 and caught.value.provider == adapter.provider
    assert caught.value.retryable


@pytest.mark.parametrize(("adapter", "server"), ADAPTERS)
def test_no_reply_in_time_becomes_a_timeout(adapter: type, server: type) -> None:
    client, _ = client_for(adapter, server, [Fault(SLOW)])
    with pytest.raises(LLMTimeout) as caught:
        client.complete(ask())
    assert caught.value.code == "timeout" and caught.value.retryable


@pytest.mark.parametrize(("adapter", "server"), ADAPTERS)
def test_a_broken_body_becomes_malformed_response(adapter: type, server: type) -> None:
    client, _ = client_for(adapter, server, [Fault(GARBLE)])
    with pytest.raises(MalformedResponse, match="not a JSON object") as caught:
        client.complete(ask())
    assert not caught.value.retryable


@pytest.mark.parametrize(("adapter", "server", "limit"), [(AlphaClient, FakeAlphaServer, ALPHA_MAX_OUTPUT),
                                                          (BetaClient, FakeBetaServer, BETA_MAX_NEW)])
def test_an_allowance_over_the_provider_limit_is_a_bad_request_that_uses_no_reply(
        adapter: type, server: type, limit: int) -> None:
    client, fake = client_for(adapter, server, ["first"])
    with pytest.raises(BadRequest, match=str(limit)):
        client.complete(ask(max_tokens=limit + 1))
    assert client.complete(ask(max_tokens=limit)).text == "first"  # the refused request took no scripted reply
    assert len(fake.received) == 2 and fake.used == 1


def test_limits_differ_so_one_request_fits_alpha_but_not_beta() -> None:
    assert AlphaClient(FakeAlphaServer(["ok"])).complete(ask(max_tokens=3000)).text == "ok"
    with pytest.raises(BadRequest):
        BetaClient(FakeBetaServer(["ok"])).complete(ask(max_tokens=3000))


@pytest.mark.parametrize(("adapter", "server"), ADAPTERS)
def test_replies_stop_at_the_output_allowance(adapter: type, server: type) -> None:
    client, _ = client_for(adapter, server, ["x" * 400])
    response = client.complete(ask(max_tokens=10))
    assert response.text == "x" * 40 and response.usage.output_tokens == 10


@pytest.mark.parametrize(("adapter", "server"), ADAPTERS)
def test_a_used_up_script_says_so(adapter: type, server: type) -> None:
    client, _ = client_for(adapter, server, [])
    with pytest.raises(ScriptExhausted, match=adapter.provider):
        client.complete(ask())


@pytest.mark.parametrize(
    ("status", "text", "named"),
    [
        (200, "not json", "not a JSON object"),
        (200, "[1, 2]", "not a JSON object"),
        (200, '{"model": "m", "output_text": 5, "usage": {"input_tokens": 1, "output_tokens": 1}}', "output_text"),
        (200, '{"model": "m", "output_text": "ok", "finish": "done", "usage": {"input_tokens": -1, "output_tokens": 1}}',
         "usage.input"),
        (200, '{"model": "m", "output_text": "ok", "finish": "done"}', "usage"),
        (200, '{"model": "m", "output_text": "ok", "usage": {"input_tokens": 1, "output_tokens": 1}}', "finish"),
        (200, '{"model": "m", "output_text": "ok", "finish": "cut", "usage": {"input_tokens": 1, "output_tokens": 1}}',
         "undocumented finish 'cut'"),
        (200, '{"model": "m", "output_text": "ok", "usage": {"input_tokens": NaN, "output_tokens": 1}}', "JSON object"),
        (500, '{"error": {"type": "internal"}}', "undocumented error type 'internal'"),
        (429, '{"error": {"type": "invalid_request"}}', "undocumented error type"),
        (429, '{"error": "slow down"}', "AlphaError does not fit"),
        (502, "<html>Bad Gateway</html>", "status 502"),
    ],
)
def test_alpha_replies_outside_its_format_are_malformed_responses(status: int, text: str, named: str) -> None:
    with pytest.raises(MalformedResponse, match=named) as caught:
        decode_alpha(status, text)
    assert caught.value.provider == "alpha" and str(caught.value).startswith("alpha: ")


@pytest.mark.parametrize(
    ("status", "text", "named"),
    [
        (500, '{"ok": true}', "status 500"),
        (200, '{"ok": false, "fault": {"code": "E_MYSTERY"}}', "undocumented fault code 'E_MYSTERY'"),
        (200, '{"ok": false}', "BetaFault does not fit"),
        (200, '{"ok": true, "engine": "m", "reply": {"segments": "one"}, "meter": {"tokens_in": 1, "tokens_out": 1}}',
         "reply.segments"),
        (200, '{"ok": "yes", "engine": "m", "reply": {"segments": []}, "meter": {"tokens_in": 1, "tokens_out": 1}}',
         "'ok'"),
        (200, '{"ok": true, "ok": false}', "not a JSON object"),  # a repeated key: strict JSON refuses it
        (200, '{"ok": true, "engine": "m", "reply": {"segments": []}, "meter": {"tokens_in": 1, "tokens_out": 1}}',
         "reply.halt"),
        (200, '{"ok": true, "engine": "m", "reply": {"segments": [], "halt": "MAYBE"}, '
              '"meter": {"tokens_in": 1, "tokens_out": 1}}', "undocumented halt 'MAYBE'"),
    ],
)
def test_beta_replies_outside_its_format_are_malformed_responses(status: int, text: str, named: str) -> None:
    with pytest.raises(MalformedResponse, match=named):
        decode_beta(status, text)


def test_unused_extra_fields_are_ignored() -> None:
    text = json.dumps({"model": "m", "output_text": "ok", "finish": "done", "usage": {"input_tokens": 3, "output_tokens": 1,
                                                                      "cached_tokens": 0}, "new_field": [1]})
    assert decode_alpha(200, text) == LLMResponse("ok", "m", Usage(3, 1))


def test_beta_wait_in_milliseconds_becomes_seconds() -> None:
    with pytest.raises(RateLimited) as caught:
        decode_beta(200, '{"ok": false, "fault": {"code": "E_QUOTA", "wait_ms": 2500}}')
    assert caught.value.retry_after_s == 2.5


def test_calling_code_does_not_change_when_the_client_does() -> None:
    def answer(client: LLMClient, question: str) -> str:  # written once, against the protocol only
        try:
            return client.complete(LLMRequest("small-model-1", [Message("user", question)], 50)).text
        except LLMError as error:
            return f"sorry ({error.code})"

    clients = [AlphaClient(FakeAlphaServer(["Yes.", Fault(RATE_LIMIT)])),
               BetaClient(FakeBetaServer(["Yes.", Fault(RATE_LIMIT)])),
               ScriptedClient(["Yes.", RateLimited("busy")])]
    assert {(answer(c, "Return it?"), answer(c, "Again?")) for c in clients} == {("Yes.", "sorry (rate_limited)")}


@pytest.mark.parametrize(("kind", "wait_s"), [("explode", 1.0), (RATE_LIMIT, -1.0), (RATE_LIMIT, "2"), (SLOW, 1e9)])
def test_a_fault_names_what_is_wrong(kind: str, wait_s: object) -> None:
    with pytest.raises(ValueError, match="kind" if kind == "explode" else "wait_s"):
        Fault(kind, wait_s)  # type: ignore[arg-type]


def test_the_fake_servers_answer_nonsense_with_a_bad_request() -> None:
    assert FakeAlphaServer(["unused"])("not json")[0] == 400
    assert json.loads(FakeBetaServer(["unused"])("[]")[1])["fault"]["code"] == "E_INPUT"


def test_no_network_and_no_vendor_sdk_is_imported() -> None:
    tree = ast.parse(Path(providers.__file__).read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    top = {name.split(".")[0] for name in imported}
    assert top <= {"__future__", "json", "collections", "dataclasses", "typing", "pydantic", "evidencedesk"}, top


# --- stop reasons: a reply cut at the allowance says so, on both providers --------------------------------

@pytest.mark.parametrize(("adapter", "server"), ADAPTERS)
def test_a_reply_cut_at_the_allowance_has_stop_reason_length(adapter: type, server: type) -> None:
    cut = adapter(server([REPLY])).complete(ask(max_tokens=5))
    whole = adapter(server([REPLY])).complete(ask())
    assert (cut.stop_reason, whole.stop_reason) == (LENGTH, STOP) and REPLY.startswith(cut.text)
    assert cut.stop_reason == ScriptedClient([REPLY]).complete(ask(max_tokens=5)).stop_reason


def test_each_provider_word_maps_to_one_kit_stop_reason() -> None:
    assert sorted(ALPHA_FINISH.values()) == sorted(BETA_HALT.values()) == sorted(STOP_REASONS)
    assert STOP_REASONS == (STOP, LENGTH, TOOL_CALLS, CONTENT_FILTER) == ("stop", "length", "tool_calls", "content_filter")
    for word, reason in ALPHA_FINISH.items():
        body = {"model": "m", "output_text": "", "finish": word, "usage": {"input_tokens": 1, "output_tokens": 0}}
        assert decode_alpha(200, json.dumps(body)).stop_reason == reason
    for word, reason in BETA_HALT.items():
        body = {"ok": True, "engine": "m", "reply": {"segments": [], "halt": word}, "meter": {"tokens_in": 1, "tokens_out": 0}}
        assert decode_beta(200, json.dumps(body)).stop_reason == reason


# --- the failures real providers return besides the first four ---------------------------------------------

@pytest.mark.parametrize(("adapter", "server"), ADAPTERS)
@pytest.mark.parametrize(("kind", "error", "code", "retryable"), [
    (OVERLOAD, Overloaded, OVERLOADED, True),
    (SERVER_FAIL, ServerError, SERVER_ERROR, True),
    (BAD_KEY, AuthFailed, AUTH_FAILED, False),
])
def test_overload_server_error_and_a_refused_key_map_to_their_own_errors(
        adapter: type, server: type, kind: str, error: type, code: str, retryable: bool) -> None:
    with pytest.raises(error) as caught:
        adapter(server([Fault(kind)])).complete(ask())
    assert (caught.value.code, caught.value.retryable) == (code, retryable)


@pytest.mark.parametrize(("adapter", "server", "window"), [(AlphaClient, FakeAlphaServer, ALPHA_CONTEXT),
                                                            (BetaClient, FakeBetaServer, BETA_CONTEXT)])
def test_input_past_the_context_window_is_context_too_long_and_uses_no_reply(
        adapter: type, server: type, window: int) -> None:
    long = LLMRequest("small-model-1", [Message("user", "x" * (window * 4))], max_tokens=100)
    fake = server(["unused"])
    with pytest.raises(ContextTooLong) as caught:
        adapter(fake).complete(long)
    assert isinstance(caught.value, BadRequest) and not caught.value.retryable
    assert caught.value.code == CONTEXT_TOO_LONG != BAD_REQUEST and fake.used == 0


@pytest.mark.parametrize("encode", [encode_alpha, encode_beta])
def test_adapters_send_the_temperature_and_refuse_what_the_providers_cannot_take(encode) -> None:
    warm = LLMRequest("small-model-1", [Message("user", "?")], 10, temperature=0.5)
    assert "0.5" in encode(warm)
    for extra in ({"tools": ("get_ticket",)}, {"response_format": '{"type": "object"}'}):
        with pytest.raises(LLMInputError, match="no tools and no response_format"):
            encode(LLMRequest("small-model-1", [Message("user", "?")], 10, **extra))
