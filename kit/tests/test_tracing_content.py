"""content.py: redaction reuses privacy.detect and the Beginner redact_log; messages in the conventions' shape."""

import json

from evidencedesk.llm import LLMRequest, LLMResponse, Message, ToolCall, Usage
from evidencedesk.security import SIMULATED_SECRET
from evidencedesk.tracing.content import input_messages, output_messages, redact

TEXT = "I am lena.okafor@example.org, +44 20 7946 0321, card 4111 1111 1111 1111, password: hunter2"


def test_redact_hides_each_kind_it_knows():
    out = redact(TEXT + " " + SIMULATED_SECRET)
    assert "[EMAIL]" in out and "[PHONE]" in out and "[CARD]" in out and "password: [redacted]" in out
    for raw in ("lena.okafor", "7946", "4111", "hunter2", SIMULATED_SECRET):
        assert raw not in out


def test_redact_keeps_what_it_cannot_see_and_known_names():
    assert redact("lena at example dot org") == "lena at example dot org"  # spelled out: not found
    assert redact("Ask Lena Okafor", known_names=("Lena Okafor",)) == "Ask [NAME]"


def test_messages_follow_the_conventions_shape_and_are_redacted():
    call = ToolCall("call_1", "get_ticket", {"ticket_id": "T-503", "note": "lena.okafor@example.org"})
    request = LLMRequest("m", [Message("system", "Rules."), Message("user", TEXT),
                               Message("assistant", "", tool_calls=(call,)),
                               Message("tool", "owner lena.okafor@example.org", tool_call_id="call_1")], 50)
    sent = json.loads(input_messages(request))
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool"]
    assert sent[2]["parts"] == [{"type": "tool_call", "id": "call_1", "name": "get_ticket",
                                 "arguments": {"ticket_id": "T-503", "note": "[EMAIL]"}}]
    assert sent[3]["parts"] == [{"type": "tool_call_response", "id": "call_1", "result": "owner [EMAIL]"}]
    assert "lena.okafor" not in input_messages(request)
    (reply,) = json.loads(output_messages(LLMResponse("Mail lena.okafor@example.org", "m", Usage(1, 1), "stop")))
    assert reply == {"role": "assistant", "parts": [{"type": "text", "content": "Mail [EMAIL]"}],
                     "finish_reason": "stop"}


def test_the_finish_reason_in_output_messages_uses_the_schema_s_word():
    call = ToolCall("call_1", "get_ticket", {"ticket_id": "T-501"})
    (reply,) = json.loads(output_messages(LLMResponse("", "m", Usage(1, 1), "tool_calls", tool_calls=(call,))))
    assert reply["finish_reason"] == "tool_call" and reply["parts"][0]["type"] == "tool_call"
