"""A streamed answer as events on a ManualClock, played by a scripted fake that says it is one.

A provider that streams sends its answer as many small events instead of one body: pieces of text
(deltas) as the model writes them, then one final event with the stop reason. Where the usage comes is
the provider's choice, and usage_style plays three real ones (read 2026-12-03):
- AT_END: the whole usage in the last event: the OpenAI Responses API's response.completed
  (https://developers.openai.com/api/docs/guides/streaming-responses), or Chat Completions' extra last
  chunk, with empty choices, sent only when the request sets stream_options={"include_usage": true};
- SPLIT: Anthropic's Messages stream, whose message_start carries the input tokens before any text and
  whose message_delta carries the cumulative output tokens at the end
  (https://platform.claude.com/docs/en/build-with-claude/streaming): a Start event, then the Final;
- NONE: Chat Completions without include_usage: no usage at all, even for a complete answer.
A reasoning model first thinks, unseen, for thinking_s seconds; where the provider streams that work
(Anthropic's thinking_delta events, the Responses API's reasoning summary events), thinking_every_s
sends a Thinking event that often, with no answer text in it. error_after=n plays an error event
inside a stream that began with HTTP 200 (Anthropic's `event: error`, e.g. overloaded_error; the
Responses API's `error` or `response.failed`): n pieces, then an ErrorEvent, then nothing.
FakeStream plays such a stream from a script: the reply, the time to its first token (ttft_s) and the
interval between pieces (interval_s), in seconds on the injected ManualClock. Reading it works like
reading a socket with a timeout: read(wait_s) returns the next event if it arrives within wait_s
seconds, and moves the clock to the moment it arrived; otherwise it moves the clock on by wait_s and
returns None. close() is the cancel: nothing can be read after it. A script can stall (stall_after=n:
the provider sends n pieces, then nothing more), which is how a request stuck in a queue (n = 0) or a
generation that hangs halfway looks from the client's side.
Left out: real wire formats (server-sent events), the network, tool-call deltas, reasoning tokens in the
usage (real providers bill them as output tokens), and real timing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from evidencedesk.llm import CHARS_PER_TOKEN, LENGTH, STOP, LLMRequest, Usage, estimate_tokens, request_tokens
from evidencedesk.usage import ManualClock

CHUNK_CHARS = 16  # characters per text delta in the fake's stream (real providers send a token or a few)
AT_END, SPLIT, NONE = "at_end", "split", "none"  # where a stream reports its usage (see the docstring)
USAGE_STYLES = (AT_END, SPLIT, NONE)


@dataclass(frozen=True)
class Delta:
    """One piece of streamed text: text (str) and at_s (float, seconds on the clock when it arrived).

    Example: Delta("Yes. Unused kett", 0.8)
    """

    text: str
    at_s: float


@dataclass(frozen=True)
class Final:
    """The last event of a stream: stop_reason (str, one of llm.STOP_REASONS), usage (llm.Usage, tokens as
    the provider counted them, or None when the stream reports none) and at_s (float, seconds on the clock).

    Example: Final("stop", Usage(25, 14), 1.1)
    """

    stop_reason: str
    usage: Usage | None
    at_s: float


@dataclass(frozen=True)
class Start:
    """The first event of a SPLIT stream: input_tokens (int, as the provider counted them) and at_s (float, seconds).

    Example: Start(27, 0.8)
    """

    input_tokens: int
    at_s: float


@dataclass(frozen=True)
class Thinking:
    """A sign of hidden reasoning in progress (no answer text): at_s (float, seconds). Example: Thinking(5.0)"""

    at_s: float


@dataclass(frozen=True)
class ErrorEvent:
    """An error sent inside a stream that began with HTTP 200: name (str, the provider's error type) and at_s.

    Example: ErrorEvent("overloaded_error", 1.2)
    """

    name: str
    at_s: float


Event = Delta | Final | Start | Thinking | ErrorEvent


class StreamClosed(RuntimeError):
    """read() on a stream that was cancelled, or that has already sent its final event."""


def _seconds(name: str, value: object) -> float:
    """value as float seconds, or ValueError naming the argument when it is not a finite number >= 0."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < math.inf:
        raise ValueError(f"{name} must be a finite number of seconds >= 0, got {value!r}")
    return float(value)


class FakeStream:
    """A scripted streamed reply to one request. A fake: no model and no network, only a timetable.

    The reply is cut at the request's output allowance (max_tokens x 4 characters), with stop reason
    LENGTH, as a model stops there; otherwise the final event says STOP. Piece n (from 0) arrives at
    sent_at + ttft_s + thinking_s + n * interval_s; the final event arrives with the last piece.
    Args: request (LLMRequest); clock (ManualClock; the request counts as sent at clock()); reply (str);
    ttft_s, interval_s (float, seconds >= 0); chunk_chars (int >= 1, characters a piece);
    stall_after (int >= 0 or None: send only this many pieces, then nothing, not even the final event);
    usage_style (AT_END, SPLIT or NONE); thinking_s (float, seconds >= 0 of hidden reasoning before the
    first piece); thinking_every_s (float > 0 or None: a Thinking event that often while thinking; None:
    the reasoning is not streamed); error_after (int >= 0 or None: this many pieces, then an ErrorEvent
    named error_name).
    Raises: ValueError naming the argument when one is out of range or of the wrong type.
    Example: FakeStream(request, clock, "Yes.", ttft_s=0.8, interval_s=0.05).read(1.0)  # Delta("Yes.", 0.8)
    """

    def __init__(self, request: LLMRequest, clock: ManualClock, reply: str, ttft_s: float, interval_s: float,
                 chunk_chars: int = CHUNK_CHARS, stall_after: int | None = None, *, usage_style: str = AT_END,
                 thinking_s: float = 0.0, thinking_every_s: float | None = None, error_after: int | None = None,
                 error_name: str = "overloaded_error") -> None:
        if not isinstance(request, LLMRequest) or not isinstance(reply, str):
            raise ValueError("request must be an LLMRequest and reply a str")
        ttft_s, interval_s = _seconds("ttft_s", ttft_s), _seconds("interval_s", interval_s)
        thinking_s = _seconds("thinking_s", thinking_s)
        if thinking_every_s is not None and not _seconds("thinking_every_s", thinking_every_s) > 0:
            raise ValueError(f"thinking_every_s must be a number of seconds > 0 or None, got {thinking_every_s!r}")
        for name, value, least in (("chunk_chars", chunk_chars, 1), ("stall_after", stall_after, 0),
                                   ("error_after", error_after, 0)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < least):
                raise ValueError(f"{name} must be an int >= {least}, got {value!r}")
        if usage_style not in USAGE_STYLES:
            raise ValueError(f"usage_style must be one of {USAGE_STYLES}, got {usage_style!r}")
        self.request, self.clock, self.sent_at = request, clock, clock()
        first_s = self.sent_at + ttft_s  # the first event of any kind
        text = reply[:request.max_tokens * CHARS_PER_TOKEN]  # a model stops at its output allowance
        pieces = [text[i:i + chunk_chars] for i in range(0, len(text), chunk_chars)]
        times = [round(first_s + thinking_s + n * interval_s, 6) for n in range(len(pieces))]
        usage = None if usage_style == NONE else Usage(request_tokens(request), estimate_tokens(text))
        final = Final(LENGTH if len(text) < len(reply) else STOP, usage, times[-1] if times else first_s + thinking_s)
        events: list[Event] = [Delta(piece, at) for piece, at in zip(pieces, times, strict=True)]
        if error_after is not None and error_after < len(pieces):
            at_s = times[error_after - 1] + interval_s if error_after else first_s + thinking_s
            events = [*events[:error_after], ErrorEvent(error_name, round(at_s, 6))]  # then the stream ends
        elif stall_after is None or stall_after >= len(pieces):
            events.append(final)
        else:
            events = events[:stall_after]  # the provider sends these, then goes silent
        if thinking_every_s is not None and stall_after != 0:
            beats = math.ceil(thinking_s / thinking_every_s)  # one at first_s, then every thinking_every_s
            events = [Thinking(round(first_s + n * thinking_every_s, 6)) for n in range(beats)] + events
        if usage_style == SPLIT and stall_after != 0:
            events.insert(0, Start(request_tokens(request), round(first_s, 6)))
        self._events = events
        self._next = 0  # index of the next event to deliver
        self.cancelled = False  # close() was called
        self.finished = False  # the final event was delivered

    def read(self, wait_s: float) -> Event | None:
        """The next event, if it arrives within wait_s seconds (the clock moves to its arrival); else None,
        after the clock moved on by wait_s (float, seconds >= 0).

        Raises: StreamClosed after close(), after the final event or after an ErrorEvent; ValueError for a bad wait_s.
        Example: stream.read(2.0)  # Delta(...), Final(...), another Event, or None
        """
        if self.cancelled or self.finished:
            raise StreamClosed("the stream was cancelled" if self.cancelled else "the stream has ended")
        wait_s = _seconds("wait_s", wait_s)
        now = self.clock()
        if self._next < len(self._events) and self._events[self._next].at_s <= now + wait_s:
            event = self._events[self._next]
            self.clock.advance(max(0.0, event.at_s - now))
            self._next += 1
            self.finished = isinstance(event, Final | ErrorEvent)
            return event
        self.clock.advance(wait_s)  # nothing came in time (or the provider went silent)
        return None

    def close(self) -> None:
        """Cancel the stream: stop reading; nothing more can be read. Example: stream.close()"""
        self.cancelled = True
