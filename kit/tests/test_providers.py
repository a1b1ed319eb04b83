"""Tests for evidencedesk.providers: two invented wire formats, one request and response shape, mapped errors."""

from __future__ import annotations

import ast
import dataclasses
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
    ToolCall,
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
    ModelReply,
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
    assert top <= {"__future__", "json", "re", "collections", "dataclasses", "typing", "pydantic", "evidencedesk"}, top


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
        if reason == TOOL_CALLS:  # a reply that stopped for tools carries them
            body["tool_calls"] = [{"id": "call_1", "name": "get_ticket", "arguments": "{}"}]
        assert decode_alpha(200, json.dumps(body)).stop_reason == reason
    for word, reason in BETA_HALT.items():
        reply = ({"parts": [{"kind": "tool_use", "use_id": "use_1", "tool": "get_ticket", "input": {}}], "halt": word}
                 if reason == TOOL_CALLS else {"segments": [], "halt": word})
        body = {"ok": True, "engine": "m", "reply": reply, "meter": {"tokens_in": 1, "tokens_out": 0}}
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
def test_adapters_send_the_temperature_and_refuse_a_tool_that_is_not_a_definition(encode) -> None:
    warm = LLMRequest("small-model-1", [Message("user", "?")], 10, temperature=0.5)
    assert "0.5" in encode(warm)
    bad = ["get_ticket", '{"name": "get ticket", "description": "", "parameters": {"type": "object"}}',
           '{"name": "t", "description": "", "parameters": {"type": "array"}}', '{"name": "t", "parameters": {}}']
    for index, tool in enumerate(bad):
        with pytest.raises(LLMInputError, match=r"tools\[1\] must be a tool definition"):
            encode(LLMRequest("small-model-1", [Message("user", "?")], 10, tools=(DEFINITION, tool)))
    with pytest.raises(LLMInputError, match=r"tools\[1\]: a second tool named 'get_ticket'"):
        encode(LLMRequest("small-model-1", [Message("user", "?")], 10, tools=(DEFINITION, DEFINITION)))


def test_alpha_takes_a_response_schema_and_beta_refuses_it_naming_the_field() -> None:
    schema = '{"type": "object", "properties": {"ok": {"type": "boolean"}}}'
    asked = LLMRequest("small-model-1", [Message("user", "?")], 10, response_format=schema)
    assert json.loads(encode_alpha(asked))["response_schema"] == json.loads(schema)
    assert "response_schema" not in json.loads(encode_alpha(ask()))
    with pytest.raises(LLMInputError, match="response_format: beta takes no response schema"):
        encode_beta(asked)
    with pytest.raises(LLMInputError, match="response_format must be TEXT or a JSON schema object"):
        encode_alpha(LLMRequest("small-model-1", [Message("user", "?")], 10, response_format="json please"))


# --- tools on the wire: each provider's own format, one ToolCall shape, results that must answer calls -------

DEFINITION = json.dumps({"name": "get_ticket", "description": "Read one ticket.",
                         "parameters": {"type": "object", "properties": {"ticket_id": {"type": "string"}}}})
LOOKUP = json.dumps({"name": "lookup_document", "description": "Read a document.",
                     "parameters": {"type": "object", "properties": {"doc_id": {"type": "string"}}}})
TWO_CALLS = ModelReply("Looking both up.", calls=(("get_ticket", {"ticket_id": "T-601"}),
                                                 ("lookup_document", {"doc_id": "kc-returns-v3"})))


def with_tools(*messages: Message) -> LLMRequest:
    return LLMRequest("small-model-1", [Message("user", "Is T-601 covered by the policy?"), *messages], 200,
                      tools=(DEFINITION, LOOKUP))


def test_each_provider_gets_the_tools_in_its_own_format() -> None:
    alpha, beta = json.loads(encode_alpha(with_tools())), json.loads(encode_beta(with_tools()))
    schema = json.loads(DEFINITION)["parameters"]
    assert alpha["tools"][0] == {"name": "get_ticket", "description": "Read one ticket.", "input_schema": schema}
    assert beta["tools"][0] == {"tool": "get_ticket", "about": "Read one ticket.", "schema": schema}
    assert "tools" not in json.loads(encode_alpha(ask())) and "tools" not in json.loads(encode_beta(ask()))


@pytest.mark.parametrize(("adapter", "server", "prefix"), [(AlphaClient, FakeAlphaServer, "call"),
                                                           (BetaClient, FakeBetaServer, "use")])
def test_several_calls_in_one_reply_become_tool_calls_in_order(adapter: type, server: type, prefix: str) -> None:
    client, fake = client_for(adapter, server, [TWO_CALLS])
    response = client.complete(with_tools())
    assert (response.text, response.stop_reason) == ("Looking both up.", TOOL_CALLS)
    assert response.tool_calls == (ToolCall(f"{prefix}_1", "get_ticket", {"ticket_id": "T-601"}),
                                   ToolCall(f"{prefix}_2", "lookup_document", {"doc_id": "kc-returns-v3"}))
    assert fake.issued == [f"{prefix}_1", f"{prefix}_2"]


def test_alpha_sends_arguments_as_a_string_and_beta_as_an_object() -> None:
    _, alpha_body = FakeAlphaServer([TWO_CALLS])(encode_alpha(with_tools()))
    _, beta_body = FakeBetaServer([TWO_CALLS])(encode_beta(with_tools()))
    assert json.loads(alpha_body)["tool_calls"][0]["arguments"] == '{"ticket_id": "T-601"}'
    assert json.loads(alpha_body)["finish"] == "tool_use"
    parts = json.loads(beta_body)["reply"]["parts"]
    assert [p["kind"] for p in parts] == ["text", "tool_use", "tool_use"]
    assert parts[1]["input"] == {"ticket_id": "T-601"}
    assert json.loads(beta_body)["reply"]["halt"] == "TOOL"


@pytest.mark.parametrize("written", ['{"ticket_id": "T-601"', "T-601", "[1, 2]", '{"a": NaN}'])
def test_alpha_arguments_that_are_not_a_json_object_stay_text(written: str) -> None:
    client = AlphaClient(FakeAlphaServer([ModelReply(calls=(("get_ticket", written),))]))
    assert client.complete(with_tools()).tool_calls == (ToolCall("call_1", "get_ticket", written),)


def test_beta_input_is_always_an_object() -> None:
    with pytest.raises(ValueError, match=r"script\[1\]: Beta sends tool input as an object"):
        FakeBetaServer(["hi", ModelReply(calls=(("get_ticket", "{}"),))])
    asked = Message("assistant", "", tool_calls=[ToolCall("use_1", "get_ticket", "{not json")])
    with pytest.raises(LLMInputError, match=r"messages\[1\].tool_calls\[0\].arguments: Beta takes tool input"):
        encode_beta(with_tools(asked, Message("tool", "x", tool_call_id="use_1")))
    parsed = Message("assistant", "", tool_calls=[ToolCall("use_1", "get_ticket", '{"ticket_id": "T-601"}')])
    turn = json.loads(encode_beta(with_tools(parsed, Message("tool", "x", tool_call_id="use_1"))))["turns"][1]
    assert turn["parts"][0]["input"] == {"ticket_id": "T-601"}


def answered(response: LLMResponse) -> list[Message]:
    return [Message("assistant", response.text, tool_calls=response.tool_calls),
            *(Message("tool", f"result of {c.id}", tool_call_id=c.id) for c in response.tool_calls)]


def test_alpha_takes_results_as_tool_messages_and_beta_as_one_human_turn() -> None:
    alpha, alpha_fake = client_for(AlphaClient, FakeAlphaServer, [TWO_CALLS, "Covered."])
    beta, beta_fake = client_for(BetaClient, FakeBetaServer, [TWO_CALLS, "Covered."])
    for client in (alpha, beta):
        first = client.complete(with_tools())
        final = client.complete(with_tools(*answered(first)))
        assert (final.text, final.stop_reason, final.tool_calls) == ("Covered.", STOP, ())
    sent = json.loads(alpha_fake.received[1])["input"]
    assert [m["role"] for m in sent] == ["user", "assistant", "tool", "tool"]
    assert sent[1]["tool_calls"][1] == {"id": "call_2", "name": "lookup_document",
                                        "arguments": '{"doc_id": "kc-returns-v3"}'}
    assert sent[2] == {"role": "tool", "call_id": "call_1", "text": "result of call_1"}
    turns = json.loads(beta_fake.received[1])["turns"]
    assert [t["speaker"] for t in turns] == ["human", "bot", "human"]
    assert turns[1]["parts"][0] == {"kind": "text", "text": "Looking both up."}
    assert turns[2]["parts"] == [{"kind": "tool_result", "use_id": "use_1", "content": "result of use_1"},
                                 {"kind": "tool_result", "use_id": "use_2", "content": "result of use_2"}]


@pytest.mark.parametrize(("adapter", "server"), ADAPTERS)
def test_a_result_that_answers_no_issued_call_is_refused_and_uses_no_reply(adapter: type, server: type) -> None:
    client, fake = client_for(adapter, server, [TWO_CALLS, "unused"])
    first = client.complete(with_tools())
    good = answered(first)
    forged = Message("tool", "x", tool_call_id="call_9")
    cases = {
        "forged id": [good[0], good[1], forged],
        "one call left without its result": good[:2],
        "a result before the call it answers": [good[1], *good[:1]],
        "a result given twice": [*good, good[1]],
        "calls the server never issued": [Message("assistant", "", tool_calls=[ToolCall("x_1", "get_ticket", {})]),
                                          Message("tool", "x", tool_call_id="x_1")],
    }
    for name, messages in cases.items():
        with pytest.raises(BadRequest, match="answers no call|has no tool result") as caught:
            client.complete(with_tools(*messages))
        assert caught.value.code == BAD_REQUEST and not caught.value.retryable, name
    assert fake.used == 1  # every refusal came before the model ran


@pytest.mark.parametrize(("adapter", "server"), ADAPTERS)
def test_a_reply_the_content_policy_withheld_says_content_filter(adapter: type, server: type) -> None:
    client, _ = client_for(adapter, server, [ModelReply("Here is how to", filtered=True)])
    response = client.complete(ask())
    assert (response.text, response.stop_reason) == ("Here is how to", CONTENT_FILTER)


def test_beta_keeps_segments_without_tools_and_sends_parts_with_them() -> None:
    _, plain = FakeBetaServer(["Yes."])(encode_beta(ask()))
    _, with_parts = FakeBetaServer(["Yes."])(encode_beta(with_tools()))
    assert json.loads(plain)["reply"] == {"segments": ["Yes."], "halt": "END"}
    assert json.loads(with_parts)["reply"] == {"parts": [{"kind": "text", "text": "Yes."}], "halt": "END"}
    assert BetaClient(FakeBetaServer(["Yes."])).complete(with_tools()).text == "Yes."


@pytest.mark.parametrize(("decode", "body", "field"), [
    (decode_alpha, {"model": "m", "output_text": "", "finish": "tool_use", "usage": {"input_tokens": 1,
                    "output_tokens": 0}}, "needs at least one call"),
    (decode_alpha, {"model": "m", "output_text": "", "finish": "tool_use", "usage": {"input_tokens": 1,
                    "output_tokens": 0}, "tool_calls": [{"id": "c", "name": "t", "arguments": {}}]},
     "tool_calls.0.arguments"),
    (decode_alpha, {"model": "m", "output_text": "", "finish": "tool_use", "usage": {"input_tokens": 1,
                    "output_tokens": 0}, "tool_calls": [{"id": "c", "name": "t", "arguments": "{}"}] * 2},
     "two calls share an id"),
    (decode_beta, {"ok": True, "engine": "m", "reply": {"parts": [], "halt": "TOOL"},
                   "meter": {"tokens_in": 1, "tokens_out": 0}}, "needs at least one call"),
    (decode_beta, {"ok": True, "engine": "m", "reply": {"parts": [{"kind": "image"}], "halt": "END"},
                   "meter": {"tokens_in": 1, "tokens_out": 0}}, "reply.parts.0"),
    (decode_beta, {"ok": True, "engine": "m", "reply": {"parts": [], "segments": [], "halt": "END"},
                   "meter": {"tokens_in": 1, "tokens_out": 0}}, "'reply'"),
    (decode_beta, {"ok": True, "engine": "m", "reply": {"parts": [{"kind": "tool_use", "use_id": "u", "tool": "t",
                   "input": "{}"}], "halt": "TOOL"}, "meter": {"tokens_in": 1, "tokens_out": 0}}, "input"),
])
def test_tool_calls_outside_the_format_are_a_malformed_response(decode, body: dict, field: str) -> None:
    with pytest.raises(MalformedResponse, match=field):
        decode(200, json.dumps(body))


@pytest.mark.parametrize(("kwargs", "problem"), [
    ({"calls": (("", {}),)}, "calls must be"), ({"calls": (("t", 5),)}, "calls must be"),
    ({"calls": ("get_ticket",)}, "calls must be"), ({"text": None}, "text and refusal must be str"),
    ({"calls": (("t", {}),), "filtered": True}, "a filtered reply or a refusal carries no calls"),
    ({"calls": (("t", {}),), "refusal": "no"}, "a filtered reply or a refusal carries no calls"),
    ({"reports": "done"}, "reports must be"),
])
def test_a_model_reply_names_what_is_wrong(kwargs: dict, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        ModelReply(**kwargs)


@pytest.mark.parametrize(("adapter", "server"), ADAPTERS)
def test_tools_offered_and_calls_carried_count_as_input(adapter: type, server: type) -> None:
    plain = adapter(server(["Yes."])).complete(LLMRequest("small-model-1", [Message("user", "Is T-601 covered by "
                                                                                    "the policy?")], 200))
    offered = adapter(server(["Yes."])).complete(with_tools())
    assert offered.usage.input_tokens > plain.usage.input_tokens + estimate_tokens(DEFINITION)


def test_a_valid_reply_with_calls_and_a_plain_stop_is_accepted_on_both_adapters() -> None:
    body = {"model": "m", "output_text": "", "finish": "done", "usage": {"input_tokens": 1, "output_tokens": 0},
            "tool_calls": [{"id": "c", "name": "t", "arguments": "{}"}]}
    assert decode_alpha(200, json.dumps(body)).tool_calls == (ToolCall("c", "t", {}),)
    beta = {"ok": True, "engine": "m", "reply": {"parts": [{"kind": "tool_use", "use_id": "u", "tool": "t",
            "input": {}}], "halt": "END"}, "meter": {"tokens_in": 1, "tokens_out": 0}}
    assert (decode_beta(200, json.dumps(beta)).stop_reason, len(decode_beta(200, json.dumps(beta)).tool_calls)) == (
        STOP, 1)
    for adapter, server in ((AlphaClient, FakeAlphaServer), (BetaClient, FakeBetaServer)):
        forced = ModelReply(calls=(("get_ticket", {"ticket_id": "T-601"}),), reports=STOP)
        response = adapter(server([forced])).complete(with_tools())
        assert (response.stop_reason, [c.name for c in response.tool_calls]) == (STOP, ["get_ticket"])


def test_a_call_cut_at_the_output_allowance_comes_back_with_length() -> None:
    long_call = ModelReply(calls=(("get_ticket", {"ticket_id": "T-601"}), ("lookup_document", {"doc_id": "x" * 40})))
    for adapter, server in ((AlphaClient, FakeAlphaServer), (BetaClient, FakeBetaServer)):
        cut = adapter(server([long_call])).complete(dataclasses.replace(with_tools(), max_tokens=8))  # 32 characters
        whole = adapter(server([long_call])).complete(with_tools())
        assert (cut.stop_reason, len(cut.tool_calls), whole.stop_reason) == (LENGTH, 2, TOOL_CALLS)
        assert cut.tool_calls[0].arguments == {"ticket_id": "T-601"} and cut.tool_calls[1].arguments in (
            '{"doc_id":', {})  # Alpha: the 10 characters written so far; Beta: the empty object


def test_a_refusal_reaches_the_response_on_alpha_and_is_a_policy_halt_on_beta() -> None:
    alpha = AlphaClient(FakeAlphaServer([ModelReply(refusal="I can't help with that.")])).complete(ask())
    beta = BetaClient(FakeBetaServer([ModelReply(refusal="I can't help with that.")])).complete(ask())
    assert (alpha.stop_reason, alpha.refusal, alpha.text) == (STOP, "I can't help with that.", "")
    assert (beta.stop_reason, beta.refusal) == (CONTENT_FILTER, "")


def test_beta_puts_text_after_the_tool_results_and_refuses_text_before_them() -> None:
    client = BetaClient(FakeBetaServer([TWO_CALLS, "Done."]))
    first = client.complete(with_tools())
    results = [Message("tool", "ok", tool_call_id=c.id) for c in first.tool_calls]
    asked = Message("assistant", first.text, tool_calls=first.tool_calls)
    request = with_tools()
    follow = LLMRequest(request.model, (*request.messages, asked, *results, Message("user", "Be brief.")),
                        request.max_tokens, tools=request.tools)
    assert [p["kind"] for p in json.loads(encode_beta(follow))["turns"][-1]["parts"]] == [
        "tool_result", "tool_result", "text"]
    assert client.complete(follow).text == "Done."
    body = json.loads(encode_beta(follow))
    body["turns"][-1]["parts"].reverse()  # the text first: Anthropic's Messages API refuses this too
    status, text = FakeBetaServer(["never"])(json.dumps(body))
    with pytest.raises(BadRequest, match="tool_result parts must come first"):
        decode_beta(status, text)
