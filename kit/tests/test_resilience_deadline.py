"""Tests of evidencedesk.resilience.deadline: TTFT and total time, the two limits, partial text, what a cut bills."""

from __future__ import annotations

from decimal import Decimal

import pytest

from evidencedesk.llm import LENGTH, Incomplete, LLMRequest, Message, Usage, estimate_tokens
from evidencedesk.resilience.deadline import (
    CHAT,
    DEADLINE,
    ERROR_EVENT,
    ESTIMATED,
    FAMILY_DEADLINES,
    FIRST_TOKEN_TIMEOUT,
    MODEL_FAMILIES,
    PARTLY,
    PROVIDER,
    REASONING,
    Deadlines,
    deadlines_for,
    read_stream,
)
from evidencedesk.resilience.stream import NONE, SPLIT, FakeStream, StreamClosed
from evidencedesk.usage import Ledger, ManualClock, cost_of, load_prices

REQUEST = LLMRequest("small-model-1", [Message("user", "Can I return a kettle?")], max_tokens=600)
SHORT = "Yes: an unused kettle can be returned within 30 days."
LONG = "Here is the whole returns procedure, step by step. " * 40  # 2,040 characters: 128 pieces
LIMITS = Deadlines(first_token_s=2.0, total_s=10.0)
REQUEST_INPUT = 10  # llm.request_tokens(REQUEST): what the Start event reports


def read(reply: str, limits: Deadlines = LIMITS, start: float = 0.0, **script: object) -> tuple:
    clock = ManualClock(start)
    stream = FakeStream(REQUEST, clock, reply, ttft_s=0.8, interval_s=0.05, **script)
    return read_stream(stream, clock, limits), stream, clock


def test_a_short_answer_is_complete_with_both_times_measured() -> None:
    result, stream, _ = read(SHORT, start=100.0)
    assert (result.complete, result.cut, result.stop_reason, result.counted_by) == (True, "", "stop", PROVIDER)
    assert result.ttft_s == pytest.approx(0.8) and result.total_s == pytest.approx(0.95)
    assert result.answer() == SHORT and stream.finished and not stream.cancelled


def test_a_long_answer_has_the_same_first_token_and_a_much_longer_total() -> None:
    result, _, _ = read(LONG)
    assert result.complete and len(result.chunks) == 128
    assert result.ttft_s == pytest.approx(0.8) and result.total_s == pytest.approx(0.8 + 127 * 0.05)


def test_a_stuck_request_is_cut_at_the_first_token_limit_not_the_total() -> None:
    result, stream, clock = read(SHORT, stall_after=0)
    assert (result.complete, result.cut, result.ttft_s, result.text) == (False, FIRST_TOKEN_TIMEOUT, None, "")
    assert clock() == 2.0 and result.total_s == 2.0 and stream.cancelled


def test_one_total_limit_either_cuts_a_healthy_long_answer_or_waits_long_for_a_stuck_one() -> None:
    assert read(LONG, Deadlines(2.0, 2.0))[0].cut == DEADLINE
    stuck, _, clock = read(SHORT, Deadlines(10.0, 10.0), stall_after=0)
    assert stuck.cut == FIRST_TOKEN_TIMEOUT and clock() == 10.0


def test_a_cut_keeps_the_partial_text_refuses_it_as_an_answer_and_bills_what_was_streamed() -> None:
    result, stream, clock = read(LONG, Deadlines(2.0, 3.0))
    assert (result.complete, result.cut, result.counted_by, clock()) == (False, DEADLINE, ESTIMATED, 3.0)
    assert len(result.chunks) == 45 and result.text == LONG[:720] and stream.cancelled  # 0.8 s + 44 x 0.05 s = 3.0 s
    assert result.usage == Usage(10, estimate_tokens(LONG[:720])) == Usage(10, 180)
    with pytest.raises(Incomplete, match="cut at its deadline after 720 characters"):
        result.answer()
    full = read(LONG)[0]
    prices = load_prices()
    assert cost_of(result.record("c1"), prices) < cost_of(full.record("c2"), prices)
    ledger = Ledger()
    ledger.add(result.record("c1"))
    assert ledger.summary().cost == Decimal("0.000010") + Decimal("0.000720")  # 10 x 0.000001 + 180 x 0.000004


def test_a_stream_that_hangs_halfway_is_cut_at_the_total_limit() -> None:
    result, _, clock = read(LONG, stall_after=10)
    assert (result.cut, len(result.chunks), clock()) == (DEADLINE, 10, 10.0)


def test_a_complete_stream_cut_at_max_tokens_is_still_not_an_answer() -> None:
    clock = ManualClock()
    tiny = LLMRequest("small-model-1", REQUEST.messages, max_tokens=3)
    result = read_stream(FakeStream(tiny, clock, SHORT, 0.8, 0.05), clock, LIMITS)
    assert result.complete and result.stop_reason == LENGTH
    with pytest.raises(Incomplete) as refused:
        result.answer()
    assert refused.value.stop_reason == LENGTH


def test_a_stream_is_read_once() -> None:
    _, stream, clock = read(SHORT)
    with pytest.raises(StreamClosed):
        read_stream(stream, clock, LIMITS)


@pytest.mark.parametrize("first, total, name", [
    (0, 10, "first_token_s"), (2, float("inf"), "total_s"), ("2", 10, "first_token_s"), (True, 10, "first_token_s"),
    (5, 2, "first_token_s"),
])
def test_bad_deadlines_are_named(first: object, total: object, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        Deadlines(first, total)  # type: ignore[arg-type]


def test_a_reasoning_model_with_hidden_thinking_is_cut_by_a_chat_first_token_limit() -> None:
    cut, _, _ = read(SHORT, FAMILY_DEADLINES[CHAT], thinking_s=40.0)
    whole, _, _ = read(SHORT, deadlines_for("reasoning-model-1"), thinking_s=40.0)
    assert (cut.complete, cut.cut, cut.total_s) == (False, FIRST_TOKEN_TIMEOUT, 2.0)
    assert whole.complete and whole.ttft_s == 40.8 and whole.answer() == SHORT


def test_streamed_thinking_counts_as_progress_before_the_first_text() -> None:
    limits = Deadlines(first_token_s=2.0, total_s=60.0)
    read_, _, _ = read(SHORT, limits, thinking_s=40.0, thinking_every_s=1.0)
    assert read_.complete and read_.thinking == 40 and read_.ttft_s == 40.8
    stuck, _, _ = read(SHORT, limits, thinking_s=40.0, thinking_every_s=1.0, stall_after=0)
    assert stuck.cut == FIRST_TOKEN_TIMEOUT and stuck.thinking == 0


def test_every_model_the_kit_knows_has_a_family_and_limits() -> None:
    assert set(MODEL_FAMILIES.values()) == set(FAMILY_DEADLINES) == {CHAT, REASONING}
    assert FAMILY_DEADLINES[REASONING].first_token_s > FAMILY_DEADLINES[CHAT].total_s
    with pytest.raises(ValueError, match="has no family"):
        deadlines_for("mystery-model")


def test_usage_comes_from_where_the_stream_sends_it() -> None:
    split_cut, _, _ = read(LONG, Deadlines(2.0, 3.0), usage_style=SPLIT)
    assert split_cut.counted_by == PARTLY and split_cut.usage.input_tokens == REQUEST_INPUT
    silent, _, _ = read(SHORT, usage_style=NONE)
    assert silent.complete and silent.counted_by == ESTIMATED and silent.usage.output_tokens == estimate_tokens(SHORT)


def test_an_error_event_cuts_the_read_and_names_the_error() -> None:
    failed, stream, _ = read(LONG, error_after=3)
    assert (failed.complete, failed.cut, failed.error) == (False, ERROR_EVENT, "overloaded_error")
    assert len(failed.chunks) == 3
    assert failed.counted_by == ESTIMATED and stream.finished
    with pytest.raises(Incomplete):
        failed.answer()
