"""Real providers' stop words, each mapped to one of the kit's four stop reasons, or to none, with its source.

The kit's stop reasons (llm.STOP_REASONS) borrow the names of OpenAI's Chat Completions finish_reason;
each real API says it in its own words, in its own field, and some say it in two fields (the Responses
API: status, then incomplete_details.reason) or not at all (a Responses reply with function_call items
is just "completed"; Gemini's FinishReason has no value for a function call, so a reply that holds one
says STOP). STOP_WORDS is the table an adapter for a real provider would start from: the API, the field,
the value, the kit's reason ("" where none of the four fits, with what to do instead), and the source.
Every value was read in the provider's own documentation on READ_ON; a note may add what replies are
measured to do beyond it (OpenAI's "stop" on a call forced by naming it in tool_choice is measured, in
vLLM PR #25054, not documented). The calls in a reply still decide whether tools run, whatever the word
(calling.rounds.next_step). Left out: streaming events, and values for features the kit does not model
(server tools, image output, Gemini's LANGUAGE and OTHER): reason_for refuses them until they are mapped.
"""
from __future__ import annotations

from dataclasses import dataclass

from evidencedesk.llm import CONTENT_FILTER, LENGTH, STOP, STOP_REASONS, TOOL_CALLS

READ_ON = "2026-12-03"  # the day every value and link below was read
SOURCES = {  # where each API documents its stop words
    "openai-chat": "https://developers.openai.com/api/reference/resources/chat",
    "openai-responses": "https://developers.openai.com/api/reference/resources/responses/methods/create",
    "anthropic": "https://platform.claude.com/docs/en/build-with-claude/handling-stop-reasons",
    "gemini": "https://ai.google.dev/api/generate-content#FinishReason",
}
API_NAMES = {"openai-chat": "OpenAI Chat Completions", "openai-responses": "OpenAI Responses",
             "anthropic": "Anthropic Messages", "gemini": "Gemini generateContent"}


@dataclass(frozen=True)
class StopWord:
    """One documented value: api (a key of SOURCES), field (str, where it is), value (str), reason (one of
    llm.STOP_REASONS, or "" when none fits), note (str: what it means, or what to do when reason is "").

    Raises: ValueError naming api or reason when unknown.
    Example: StopWord("anthropic", "stop_reason", "max_tokens", LENGTH, "cut at max_tokens")
    """

    api: str
    field: str
    value: str
    reason: str
    note: str

    def __post_init__(self) -> None:
        if self.api not in SOURCES:
            raise ValueError(f"api must be one of {sorted(SOURCES)}, got {self.api!r}")
        if self.reason not in ("", *STOP_REASONS):
            raise ValueError(f"reason must be '' or one of {STOP_REASONS}, got {self.reason!r}")


STOP_WORDS = (
    StopWord("openai-chat", "finish_reason", "stop", STOP, "ended, or a stop sequence; measured also on a "
             "call forced by name in tool_choice (undocumented): read tool_calls"),
    StopWord("openai-chat", "finish_reason", "length", LENGTH, "cut at the token limit; a call in it is truncated"),
    StopWord("openai-chat", "finish_reason", "tool_calls", TOOL_CALLS, "the model called tools"),
    StopWord("openai-chat", "finish_reason", "content_filter", CONTENT_FILTER, "omitted by the content filters"),
    StopWord("openai-chat", "finish_reason", "function_call", TOOL_CALLS, "deprecated: the old functions API"),
    StopWord("openai-responses", "status", "completed", STOP, "read the output items: function_call items "
             "are calls"),
    StopWord("openai-responses", "status", "failed", "", "read error: no answer and no call; a provider "
             "failure, not a stop"),
    StopWord("openai-responses", "incomplete_details.reason", "max_output_tokens", LENGTH, "with status "
             "incomplete"),
    StopWord("openai-responses", "incomplete_details.reason", "content_filter", CONTENT_FILTER, "with status "
             "incomplete"),
    StopWord("anthropic", "stop_reason", "end_turn", STOP, "ended by itself"),
    StopWord("anthropic", "stop_reason", "stop_sequence", STOP, "one of your stop_sequences"),
    StopWord("anthropic", "stop_reason", "max_tokens", LENGTH, "cut at max_tokens; a tool_use in it is truncated"),
    StopWord("anthropic", "stop_reason", "model_context_window_exceeded", LENGTH, "filled the context window: "
             "truncated"),
    StopWord("anthropic", "stop_reason", "tool_use", TOOL_CALLS, "the model called tools"),
    StopWord("anthropic", "stop_reason", "refusal", CONTENT_FILTER, "the model declined"),
    StopWord("anthropic", "stop_reason", "pause_turn", "", "a server-tool loop paused: send the content back "
             "to go on; not an answer"),
    StopWord("gemini", "finishReason", "STOP", STOP, "ended, or a stop sequence; also with functionCall "
             "parts: read them"),
    StopWord("gemini", "finishReason", "MAX_TOKENS", LENGTH, "cut at maxOutputTokens"),
    StopWord("gemini", "finishReason", "SAFETY", CONTENT_FILTER, "flagged for safety"),
    StopWord("gemini", "finishReason", "RECITATION", CONTENT_FILTER, "flagged for recitation"),
    StopWord("gemini", "finishReason", "BLOCKLIST", CONTENT_FILTER, "a term from a blocklist"),
    StopWord("gemini", "finishReason", "PROHIBITED_CONTENT", CONTENT_FILTER, "may be prohibited content"),
    StopWord("gemini", "finishReason", "SPII", CONTENT_FILTER, "may hold sensitive personal data"),
    StopWord("gemini", "finishReason", "MALFORMED_FUNCTION_CALL", "", "the call could not be read: no call "
             "to run, no answer; ask again"),
    StopWord("gemini", "finishReason", "UNEXPECTED_TOOL_CALL", "", "a call to a tool not declared, or "
             "with calling off: run nothing; no answer"),
)


def reason_for(api: str, value: str) -> str:
    """The kit's stop reason for a documented value ("" when none fits), or KeyError naming api and value.

    Args: api (a key of SOURCES); value (str, the provider's word). Returns: str.
    Raises: KeyError for a value STOP_WORDS does not list: an adapter must not guess.
    Example: reason_for("anthropic", "max_tokens") -> "length"
    """
    for word in STOP_WORDS:
        if (word.api, word.value) == (api, value):
            return word.reason
    raise KeyError(f"{api}: {value!r} is not in STOP_WORDS")


def markdown_table() -> str:
    """STOP_WORDS as a Markdown table, one row per value, the API linked to its source.

    Example: markdown_table().splitlines()[0] -> "| API | field = value | kit | meaning, or what to do |"
    """
    rows = ["| API | field = value | kit | meaning, or what to do |", "|---|---|---|---|"]
    for w in STOP_WORDS:
        rows.append(f"| [{API_NAMES[w.api]}]({SOURCES[w.api]}) | `{w.field}` = `{w.value}` | "
                    f"{f'`{w.reason}`' if w.reason else 'none'} | {w.note} |")
    return "\n".join(rows)
