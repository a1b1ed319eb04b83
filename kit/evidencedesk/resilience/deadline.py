"""Reading a stream under two limits, a first-token timeout and a total deadline; a cut answer is partial.

Two times describe a streamed call: the time to first token (TTFT), from sending the request to the
first piece of text, and the total time, to the final event. They fail in different ways. A request
stuck in a queue, or at a provider that hangs, shows no first token at all; a long answer shows its
first token early, then takes its time, and is healthy. So a client sets two limits: first_token_s,
short, gives up on a stuck request early, before the user has seen anything and while moving to
another provider costs least; total_s, longer, bounds the whole answer and must allow for the longest
answer the request permits (max_tokens times the time a token takes). The first-token limit is really a
limit on the first sign of progress: a reasoning model thinks before it writes, for seconds to minutes,
so its first text can come late on a healthy call. Where the provider streams that thinking (Thinking
events), each one counts as progress; where it does not, only a longer limit keeps the call alive. So
limits depend on the model family: FAMILY_DEADLINES is the kit's table, with figures the kit invents for
its fakes (measure your own models' times to first progress and total). read_stream reads until the
final event or a limit. At a limit it cancels the stream (close) and returns what arrived, flagged
incomplete: StreamRead.answer() refuses it with llm.Incomplete, so partial text is never used as an
answer. A cancelled stream sends no final usage, so the client counts it: the request's input tokens
(as the provider counted them, where a SPLIT stream's Start gave them) plus the output tokens already
streamed (llm.estimate_tokens of the text received). A complete stream that reports no usage (NONE)
is estimated the same way. That is what the kit bills; a real provider may bill more, since it can go
on generating after the cancel. An ErrorEvent ends the read at once, cut with the error's name.
Left out: resuming a cut stream, and showing partial text to a user (a display decision, not an answer).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from evidencedesk.llm import Incomplete, LLMResponse, Usage, estimate_tokens, request_tokens, require_complete
from evidencedesk.resilience.stream import Delta, ErrorEvent, FakeStream, Final, Start, Thinking
from evidencedesk.usage import ManualClock, UsageRecord

FIRST_TOKEN_TIMEOUT = "first_token_timeout"  # no text arrived within first_token_s
DEADLINE = "deadline"  # total_s passed before the final event
ERROR_EVENT = "error_event"  # the provider sent an error inside the stream
PROVIDER = "provider"  # the usage came in the final event, as the provider counted it
PARTLY = "provider input, estimated output"  # a SPLIT stream cut after its Start event
ESTIMATED = "estimated"  # no usage from the provider: input tokens plus the estimated tokens of the text received


@dataclass(frozen=True)
class Deadlines:
    """The two limits of one streamed call, in seconds from sending it: first_token_s and total_s (float).

    Raises: ValueError naming the field when one is not a finite number > 0, or first_token_s > total_s.
    Example: Deadlines(first_token_s=2.0, total_s=10.0)
    """

    first_token_s: float
    total_s: float

    def __post_init__(self) -> None:
        for name in ("first_token_s", "total_s"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < math.inf:
                raise ValueError(f"{name} must be a finite number of seconds > 0, got {value!r}")
        if self.first_token_s > self.total_s:
            raise ValueError(f"first_token_s ({self.first_token_s}) must not be longer than total_s ({self.total_s})")


CHAT, REASONING = "chat", "reasoning"  # reasoning models think before they write
MODEL_FAMILIES = {"small-model-1": CHAT, "large-model-1": CHAT,
                  "reasoning-model-1": REASONING}
FAMILY_DEADLINES = {  # invented figures, in seconds: measure your own models
    CHAT: Deadlines(first_token_s=2.0, total_s=10.0),
    REASONING: Deadlines(first_token_s=120.0, total_s=300.0),  # hidden thinking
}


def deadlines_for(model: str) -> Deadlines:
    """The limits for a model, from its family: FAMILY_DEADLINES[MODEL_FAMILIES[model]].

    Args: model (str, a model the kit knows). Raises: ValueError naming the model when its family is unknown.
    Example: deadlines_for("reasoning-model-1").first_token_s -> 120.0
    """
    if model not in MODEL_FAMILIES:
        raise ValueError(f"model {str(model)[:40]!r} has no family; known: {', '.join(MODEL_FAMILIES)}")
    return FAMILY_DEADLINES[MODEL_FAMILIES[model]]


@dataclass(frozen=True)
class StreamRead:
    """What reading one stream produced. text (str, every piece received, in order); chunks (tuple of Delta);
    complete (bool: the final event arrived); stop_reason (str: the final event's, "" when cut); cut (str:
    "", FIRST_TOKEN_TIMEOUT, DEADLINE or ERROR_EVENT); ttft_s (float seconds, or None when no text came);
    total_s (float, seconds from sending to the final event or the cut); model (str); usage (llm.Usage,
    tokens); counted_by (PROVIDER, PARTLY or ESTIMATED); thinking (int, Thinking events received); error
    (str, the ErrorEvent's name, or "").

    Example: read_stream(stream, clock, Deadlines(2.0, 10.0)).answer()
    """

    text: str
    chunks: tuple[Delta, ...]
    complete: bool
    stop_reason: str
    cut: str
    ttft_s: float | None
    total_s: float
    model: str
    usage: Usage
    counted_by: str
    thinking: int = 0
    error: str = ""

    def answer(self) -> str:
        """The text, only when the stream ended by itself with stop reason "stop".

        Raises: llm.Incomplete for a stream cut by a limit (stop_reason "") or one that ended for another
        reason (e.g. "length", cut at max_tokens). Example: read.answer()
        """
        if not self.complete:
            raise Incomplete(f"stream cut at its {self.cut} after {len(self.text)} characters: partial text is "
                             "not an answer")
        return require_complete(LLMResponse(self.text, self.model, self.usage, self.stop_reason)).text

    def record(self, call_id: str) -> UsageRecord:
        """The call as a ledger record (usage.UsageRecord): billed tokens, cut or not. Example: read.record("c1")"""
        return UsageRecord(call_id, self.model, self.usage.input_tokens, self.usage.output_tokens)


def read_stream(stream: FakeStream, clock: ManualClock, deadlines: Deadlines) -> StreamRead:
    """Read a stream to its final event, or cancel it at the first limit it crosses.

    Until the first sign of progress (a piece of text, or a Thinking event), the limit is sent_at +
    first_token_s; after it, sent_at + total_s. A Start event carries usage, not progress.
    Args: stream (FakeStream, unread); clock (ManualClock, the stream's); deadlines (Deadlines, seconds).
    Returns: StreamRead; when cut (a limit or an ErrorEvent), the stream is closed and usage is counted
    by the client (PARTLY or ESTIMATED: input + streamed output).
    Raises: stream.StreamClosed when the stream was already read or cancelled.
    Example: read_stream(FakeStream(request, clock, "Yes.", 0.8, 0.05), clock, Deadlines(2.0, 10.0)).text -> "Yes."
    """
    chunks: list[Delta] = []
    thinking, input_tokens = 0, None  # Thinking events seen; input tokens from a Start event
    while True:
        limit = stream.sent_at + (deadlines.total_s if chunks or thinking else deadlines.first_token_s)
        event = stream.read(max(0.0, limit - clock()))
        if isinstance(event, Start):
            input_tokens = event.input_tokens
        elif isinstance(event, Thinking):
            thinking += 1
        elif isinstance(event, Delta):
            chunks.append(event)
        elif isinstance(event, Final) and event.usage is not None:
            return _result(stream, chunks, event.stop_reason, "", event.usage, PROVIDER, event.at_s, thinking)
        else:  # the end without usage, an error event, or a limit passed: count the usage ourselves
            text = "".join(chunk.text for chunk in chunks)
            counted_by = ESTIMATED if input_tokens is None else PARTLY
            usage = Usage(request_tokens(stream.request) if input_tokens is None else input_tokens,
                          estimate_tokens(text))
            if isinstance(event, Final):
                return _result(stream, chunks, event.stop_reason, "", usage, counted_by, event.at_s, thinking)
            if isinstance(event, ErrorEvent):
                return _result(stream, chunks, "", ERROR_EVENT, usage, counted_by, event.at_s, thinking, event.name)
            stream.close()  # the limit passed first: cancel, keep what arrived
            cut = DEADLINE if chunks or thinking else FIRST_TOKEN_TIMEOUT
            return _result(stream, chunks, "", cut, usage, counted_by, clock(), thinking)


def _result(stream: FakeStream, chunks: list[Delta], stop_reason: str, cut: str, usage: Usage, counted_by: str,
            end_s: float, thinking: int, error: str = "") -> StreamRead:
    ttft = chunks[0].at_s - stream.sent_at if chunks else None
    return StreamRead("".join(chunk.text for chunk in chunks), tuple(chunks), not cut, stop_reason, cut, ttft,
                      end_s - stream.sent_at, stream.request.model, usage, counted_by, thinking, error)
