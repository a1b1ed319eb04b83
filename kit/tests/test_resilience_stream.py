"""Tests of evidencedesk.resilience.stream: the scripted stream's timetable, its reads with a wait, stalls, cancel."""

from __future__ import annotations

import pytest

from evidencedesk.llm import LENGTH, STOP, LLMRequest, Message, Usage
from evidencedesk.resilience.stream import (
    AT_END,
    CHUNK_CHARS,
    NONE,
    SPLIT,
    Delta,
    ErrorEvent,
    FakeStream,
    Final,
    Start,
    StreamClosed,
    Thinking,
)
from evidencedesk.usage import ManualClock

REQUEST = LLMRequest("small-model-1", [Message("user", "Can I return a kettle?")], max_tokens=100)
REPLY = "Yes: an unused kettle can be returned within 30 days."  # 53 characters: 4 pieces of 16


def drain(stream: FakeStream) -> list[Delta | Final]:
    events = []
    while not stream.finished:
        event = stream.read(60.0)
        assert event is not None
        events.append(event)
    return events


def test_pieces_arrive_on_the_timetable_then_the_final_event() -> None:
    clock = ManualClock(5.0)
    events = drain(FakeStream(REQUEST, clock, REPLY, ttft_s=0.8, interval_s=0.05))
    assert [e.at_s for e in events] == [5.8, 5.85, 5.9, 5.95, 5.95]
    assert "".join(e.text for e in events if isinstance(e, Delta)) == REPLY
    assert all(len(e.text) <= CHUNK_CHARS for e in events if isinstance(e, Delta))
    final = events[-1]
    assert isinstance(final, Final) and final.stop_reason == STOP
    assert final.usage == Usage(10, 14) and clock() == 5.95  # 22 characters + 4 overhead -> 10; 53 -> 14


def test_a_reply_over_the_allowance_is_cut_with_length() -> None:
    small = LLMRequest("small-model-1", REQUEST.messages, max_tokens=2)
    events = drain(FakeStream(small, ManualClock(), REPLY, ttft_s=0.5, interval_s=0.1))
    assert "".join(e.text for e in events if isinstance(e, Delta)) == REPLY[:8]
    assert isinstance(events[-1], Final) and events[-1].stop_reason == LENGTH and events[-1].usage.output_tokens == 2


def test_a_read_that_waits_too_little_moves_the_clock_and_returns_none() -> None:
    clock = ManualClock()
    stream = FakeStream(REQUEST, clock, REPLY, ttft_s=0.8, interval_s=0.05)
    assert stream.read(0.5) is None and clock() == 0.5
    assert stream.read(0.3) == Delta(REPLY[:16], 0.8) and clock() == 0.8  # arrives exactly at the limit: in time


def test_stall_after_sends_that_many_pieces_then_nothing() -> None:
    clock = ManualClock()
    stream = FakeStream(REQUEST, clock, REPLY, ttft_s=0.8, interval_s=0.05, stall_after=2)
    assert [stream.read(5.0) for _ in range(2)] == [Delta(REPLY[:16], 0.8), Delta(REPLY[16:32], 0.85)]
    assert stream.read(100.0) is None and clock() == pytest.approx(100.85) and not stream.finished
    stuck = FakeStream(REQUEST, ManualClock(), REPLY, ttft_s=0.8, interval_s=0.05, stall_after=0)
    assert stuck.read(60.0) is None


def test_stall_after_the_last_piece_is_no_stall() -> None:
    events = drain(FakeStream(REQUEST, ManualClock(), REPLY, ttft_s=0.8, interval_s=0.05, stall_after=4))
    assert isinstance(events[-1], Final)


def test_an_empty_reply_sends_only_the_final_event_at_the_first_token_time() -> None:
    events = drain(FakeStream(REQUEST, ManualClock(), "", ttft_s=0.8, interval_s=0.05))
    assert events == [Final(STOP, Usage(10, 0), 0.8)]


def test_nothing_can_be_read_after_close_or_after_the_end() -> None:
    stream = FakeStream(REQUEST, ManualClock(), REPLY, ttft_s=0.8, interval_s=0.05)
    stream.close()
    with pytest.raises(StreamClosed, match="cancelled"):
        stream.read(1.0)
    ended = FakeStream(REQUEST, ManualClock(), REPLY, ttft_s=0.8, interval_s=0.05)
    drain(ended)
    with pytest.raises(StreamClosed, match="ended"):
        ended.read(1.0)


@pytest.mark.parametrize("arguments, name", [
    ({"ttft_s": -1}, "ttft_s"), ({"ttft_s": float("nan")}, "ttft_s"), ({"interval_s": float("inf")}, "interval_s"),
    ({"ttft_s": "0.8"}, "ttft_s"), ({"interval_s": True}, "interval_s"), ({"chunk_chars": 0}, "chunk_chars"),
    ({"chunk_chars": 2.5}, "chunk_chars"), ({"stall_after": -1}, "stall_after"),
])
def test_bad_arguments_are_named(arguments: dict, name: str) -> None:
    settings = {"ttft_s": 0.8, "interval_s": 0.05, **arguments}
    with pytest.raises(ValueError, match=name):
        FakeStream(REQUEST, ManualClock(), REPLY, **settings)


@pytest.mark.parametrize("wait", [-0.1, float("nan"), "1"])
def test_a_bad_wait_is_named(wait: object) -> None:
    with pytest.raises(ValueError, match="wait_s"):
        FakeStream(REQUEST, ManualClock(), REPLY, 0.8, 0.05).read(wait)  # type: ignore[arg-type]


def _req(max_tokens: int = 600) -> LLMRequest:
    return LLMRequest("small-model-1", [Message("user", "Can I return a kettle?")], max_tokens=max_tokens)


def _drain(stream: FakeStream) -> list[object]:
    events = []
    while not stream.finished:
        event = stream.read(1000.0)
        if event is None:
            break
        events.append(event)
    return events


def test_usage_styles_put_the_usage_where_each_provider_does() -> None:
    at_end = _drain(FakeStream(_req(), ManualClock(), "Yes.", 0.8, 0.05, usage_style=AT_END))
    split = _drain(FakeStream(_req(), ManualClock(), "Yes.", 0.8, 0.05, usage_style=SPLIT))
    none = _drain(FakeStream(_req(), ManualClock(), "Yes.", 0.8, 0.05, usage_style=NONE))
    assert isinstance(at_end[-1], Final) and at_end[-1].usage is not None
    assert isinstance(split[0], Start) and split[0].input_tokens == at_end[-1].usage.input_tokens
    assert isinstance(none[-1], Final) and none[-1].usage is None


def test_hidden_thinking_delays_the_first_text_and_streamed_thinking_shows_progress() -> None:
    hidden = _drain(FakeStream(_req(), ManualClock(), "Yes.", 0.8, 0.05, thinking_s=20.0))
    shown = _drain(FakeStream(_req(), ManualClock(), "Yes.", 0.8, 0.05, thinking_s=20.0, thinking_every_s=5.0))
    assert isinstance(hidden[0], Delta) and hidden[0].at_s == 20.8
    assert [e.at_s for e in shown if isinstance(e, Thinking)] == [0.8, 5.8, 10.8, 15.8]
    assert [e for e in shown if isinstance(e, Delta)][0].at_s == 20.8


def test_an_error_event_ends_a_stream_that_began_well() -> None:
    stream = FakeStream(_req(), ManualClock(), "x" * 64, 0.8, 0.05, error_after=2)
    events = _drain(stream)
    assert [type(e) for e in events] == [Delta, Delta, ErrorEvent] and events[-1].name == "overloaded_error"
    assert events[-1].at_s == 0.9 and stream.finished
    with pytest.raises(StreamClosed):
        stream.read(1.0)


@pytest.mark.parametrize("settings, name", [
    ({"usage_style": "last"}, "usage_style"), ({"thinking_s": -1}, "thinking_s"),
    ({"thinking_every_s": 0}, "thinking_every_s"), ({"error_after": -1}, "error_after"),
])
def test_bad_new_settings_are_named(settings: dict[str, object], name: str) -> None:
    with pytest.raises(ValueError, match=name):
        FakeStream(_req(), ManualClock(), "Yes.", 0.8, 0.05, **settings)  # type: ignore[arg-type]
