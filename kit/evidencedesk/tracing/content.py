"""Prompts and replies in spans: left out by default, and redacted when a setup turns capture on.

The GenAI conventions call model instructions, inputs and outputs sensitive, and say instrumentations
should not capture them by default but may offer an opt-in. With capture on, input_messages() and
output_messages() write the request's messages and the reply in the conventions' shape (a list of
{"role", "parts": [{"type": "text", "content"}, {"type": "tool_call", ...}, ...]}), serialised to a JSON
string as the conventions say to do where a span cannot hold structured values, and every text goes through
redact() first: the privacy detector (privacy.detect.find_personal_data) replaces each e-mail address,
card number and phone number it finds with its kind in brackets, then the Beginner course's
security.redact_log removes key-shaped strings and secret values. Redaction is only as good as those
patterns: a name, a street address or a value spelled out ("kwame at example dot org") stays.
Source: semantic-conventions v1.41.0, docs/gen-ai/gen-ai-spans.md and gen-ai-output-messages.json (read
2026-12-03). Left out: truncation of long content, uploading content to separate storage with a reference on the span
(what the conventions recommend in production), and events as the place for content.
"""

from __future__ import annotations

import json
from typing import Any

from evidencedesk.llm import LLMRequest, LLMResponse, Message, ToolCall
from evidencedesk.privacy.detect import find_personal_data
from evidencedesk.security import redact_log

TEXT_PART, CALL_PART, RESULT_PART = "text", "tool_call", "tool_call_response"  # the conventions' part types
# The output-messages schema's FinishReason values are stop, length, content_filter, tool_call and error (any
# other string is allowed too); the kit's stop reasons are the same words but for tool_calls.
SCHEMA_FINISH_REASON = {"tool_calls": "tool_call"}


def redact(text: str, known_names: tuple[str, ...] = ()) -> str:
    """text with each e-mail address, card number and phone number that
    privacy.detect finds (and each known name) as [KIND], then keys
    and secret values as security.redact_log writes them ("[redacted]").

    Args: text (str); known_names (tuple of str): names to hide too.
    Returns: str. Raises: TypeError for a text that is not a str.
    Example: redact("lena@example.org, password: x") ->
             "[EMAIL], password: [redacted]"
    """
    found = find_personal_data(text, known_names)
    out, last = [], 0
    for span in found.spans:
        out += [found.text[last:span.start], f"[{span.kind}]"]
        last = span.end
    return redact_log("".join([*out, found.text[last:]]))


def _call_part(call: ToolCall) -> dict[str, Any]:
    arguments = call.arguments if isinstance(call.arguments, str) else json.loads(redact(json.dumps(call.arguments)))
    return {"type": CALL_PART, "id": call.id, "name": call.name,
            "arguments": redact(arguments) if isinstance(arguments, str) else arguments}


def _message(message: Message) -> dict[str, Any]:
    if message.role == "tool":
        return {"role": "tool", "parts": [{"type": RESULT_PART, "id": message.tool_call_id,
                                           "result": redact(message.content)}]}
    parts: list[dict[str, Any]] = [{"type": TEXT_PART, "content": redact(message.content)}] if message.content else []
    return {"role": message.role, "parts": parts + [_call_part(c) for c in message.tool_calls]}


def input_messages(request: LLMRequest) -> str:
    """The request's messages, redacted, as the JSON text of gen_ai.input.messages.

    Args: request (LLMRequest). Returns: str (JSON). Example: json.loads(input_messages(request))[0]["role"]
    """
    return json.dumps([_message(m) for m in request.messages], ensure_ascii=False)


def output_messages(response: LLMResponse) -> str:
    """The reply, redacted, as the JSON text of gen_ai.output.messages: one assistant message with its
    finish_reason, in the schema's words (SCHEMA_FINISH_REASON: tool_call for the kit's tool_calls).

    Args: response (LLMResponse). Returns: str (JSON). Example: json.loads(output_messages(r))[0]["finish_reason"]
    """
    message = _message(Message("assistant", response.text, tool_calls=response.tool_calls))
    reason = SCHEMA_FINISH_REASON.get(response.stop_reason, response.stop_reason)
    return json.dumps([{**message, "finish_reason": reason}], ensure_ascii=False)
