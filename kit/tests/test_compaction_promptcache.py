"""Tests of evidencedesk.compaction.promptcache: prefix blocks, the invented provider's cache, the caching provider."""

from __future__ import annotations

import dataclasses
import math

import pytest

from evidencedesk.cache import SHARED, CachingClient, ResponseCache
from evidencedesk.compaction.promptcache import (
    CACHE_TTL_S,
    HIT,
    MIN_PREFIX_TOKENS,
    MISS,
    TOO_SHORT,
    CachingProvider,
    PrefixCache,
    prefix_blocks,
)
from evidencedesk.llm import (
    LLMRequest,
    Message,
    ScriptedClient,
    ServerError,
    ToolCall,
    request_tokens,
)
from evidencedesk.usage import Ledger, ManualClock

RULES = "You answer help-desk questions from the policy. " * 30  # about 370 tokens: over the minimum
TOOL = '{"name": "get_ticket", "description": "Read a ticket.", "parameters": {}}'


def ask(*extra: Message, rules: str = RULES, model: str = "small-model-1",
        tools: tuple[str, ...] = (TOOL,)) -> LLMRequest:
    return LLMRequest(model, [Message("system", rules), Message("user", "Is T-601 open?"), *extra], 50, tools=tools)


def test_the_invented_rule_is_256_tokens_and_five_minutes() -> None:
    assert (MIN_PREFIX_TOKENS, CACHE_TTL_S) == (256, 300.0)


def test_blocks_are_the_tools_then_the_messages_and_add_up_to_the_request() -> None:
    call = ToolCall("call_1", "get_ticket", {"ticket_id": "T-601"})
    request = ask(Message("assistant", "", tool_calls=(call,)), Message("tool", "{}", tool_call_id="call_1"))
    blocks = prefix_blocks(request)
    assert [b.kind for b in blocks] == ["tool", "system", "user", "assistant", "tool"]
    assert blocks[-1].end == request_tokens(request) and sum(b.tokens for b in blocks) == blocks[-1].end
    assert all(a.end < b.end for a, b in zip(blocks, blocks[1:]))


def test_a_digest_changes_with_anything_before_it_and_only_then() -> None:
    base = prefix_blocks(ask())
    assert [b.digest for b in prefix_blocks(ask())] == [b.digest for b in base]
    late = prefix_blocks(ask(Message("user", "Time: 09:00:02")))
    assert [b.digest for b in late[:3]] == [b.digest for b in base]
    early = prefix_blocks(ask(rules="Time: 09:00:02\n" + RULES))
    assert early[0].digest == base[0].digest and early[1].digest != base[1].digest and early[2].digest != base[2].digest
    assert prefix_blocks(ask(model="large-model-1"))[0].digest != base[0].digest  # a cache is per model
    calls = [Message("assistant", "", tool_calls=(ToolCall("c1", "get_ticket", {"ticket_id": t}),)) for t in "AB"]
    assert prefix_blocks(ask(calls[0]))[-1].digest != prefix_blocks(ask(calls[1]))[-1].digest


def test_prefix_blocks_refuses_what_is_not_a_request() -> None:
    with pytest.raises(TypeError, match="request must be an LLMRequest"):
        prefix_blocks("hello")  # type: ignore[arg-type]
    assert prefix_blocks(LLMRequest("m", [], 1)) == []


def test_the_first_call_misses_and_the_same_request_then_hits_whole() -> None:
    cache = PrefixCache(ManualClock())
    first, again = cache.read(ask()), cache.read(ask())
    assert (first.outcome, first.cached_tokens) == (MISS, 0)
    assert (again.outcome, again.cached_tokens) == (HIT, request_tokens(ask()))


def test_a_growing_conversation_reads_the_previous_request_from_the_cache() -> None:
    cache = PrefixCache(ManualClock())
    cache.read(ask())
    grown = ask(Message("assistant", "It is open."), Message("user", "And T-602?"))
    read = cache.read(grown)
    assert (read.outcome, read.cached_tokens, read.input_tokens) == (HIT, request_tokens(ask()), request_tokens(grown))


def test_a_change_early_misses_and_a_change_late_keeps_the_prefix() -> None:
    clock = ManualClock()
    early, late = PrefixCache(clock), PrefixCache(clock)
    outcomes = {"early": [], "late": []}
    for second in range(3):
        stamp = f"Time: 09:00:0{second}"
        outcomes["early"].append(early.read(ask(rules=f"{stamp}\n{RULES}")).outcome)
        outcomes["late"].append(late.read(ask(Message("user", stamp))).outcome)
        clock.advance(1)
    assert outcomes == {"early": [MISS, MISS, MISS], "late": [MISS, HIT, HIT]}


def test_a_request_under_the_minimum_is_never_read_or_stored() -> None:
    cache = PrefixCache(ManualClock())
    short = ask(rules="Be brief.", tools=())
    assert request_tokens(short) < MIN_PREFIX_TOKENS
    assert [cache.read(short).outcome for _ in range(3)] == [TOO_SHORT] * 3 and len(cache) == 0


def test_only_prefixes_of_at_least_the_minimum_are_stored() -> None:
    cache = PrefixCache(ManualClock(), min_tokens=300)
    blocks = prefix_blocks(ask())
    cache.read(ask())
    assert len(cache) == sum(1 for b in blocks if b.end >= 300) == 2  # the tool alone is under 300: not stored
    other = ask(Message("user", "x"), tools=(TOOL,), rules=RULES)
    assert cache.read(other).cached_tokens == blocks[-1].end


def test_an_entry_expires_its_lifetime_after_its_last_use() -> None:
    clock = ManualClock()
    cache = PrefixCache(clock, ttl_s=300)
    cache.read(ask())
    clock.advance(299.9)
    assert cache.read(ask()).outcome == HIT  # read at 299.9 s: renewed until 599.9 s
    clock.advance(299.9)
    assert cache.read(ask()).outcome == HIT
    clock.advance(300)
    stored = sum(1 for b in prefix_blocks(ask()) if b.end >= MIN_PREFIX_TOKENS)
    assert cache.read(ask()).outcome == MISS and len(cache) == stored == 2  # written again


def test_at_exactly_the_lifetime_an_entry_is_gone() -> None:
    clock = ManualClock()
    cache = PrefixCache(clock, ttl_s=10)
    cache.read(ask())
    clock.advance(10)
    assert cache.read(ask()).outcome == MISS


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"min_tokens": 0}, "min_tokens"), ({"min_tokens": 2.5}, "min_tokens"), ({"min_tokens": True}, "min_tokens"),
    ({"ttl_s": 0}, "ttl_s"), ({"ttl_s": math.nan}, "ttl_s"), ({"ttl_s": math.inf}, "ttl_s"), ({"ttl_s": "5"}, "ttl_s"),
])
def test_a_cache_refuses_settings_out_of_range(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        PrefixCache(ManualClock(), **kwargs)


def test_a_cache_needs_a_clock_and_a_provider_needs_a_prefix_cache() -> None:
    with pytest.raises(TypeError, match="clock"):
        PrefixCache(300)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="cache must be a PrefixCache"):
        CachingProvider(ScriptedClient(["x"]), ResponseCache())  # type: ignore[arg-type]


def test_the_provider_runs_the_model_every_time_and_reports_cached_tokens() -> None:
    model = ScriptedClient(["It is open.", "It is still open."], model="small-model-1")
    provider = CachingProvider(model, PrefixCache(ManualClock()))
    first, second = provider.complete(ask()), provider.complete(ask())
    assert len(model.requests) == 2 and (first.text, second.text) == ("It is open.", "It is still open.")
    assert (first.usage.cached_input_tokens, second.usage.cached_input_tokens) == (0, request_tokens(ask()))
    assert second.usage.input_tokens == request_tokens(ask())
    assert [r.outcome for r in provider.reads] == [MISS, HIT]


def test_cached_tokens_never_exceed_what_the_model_reported() -> None:
    class Undercounting(ScriptedClient):
        def complete(self, request: LLMRequest):  # type: ignore[no-untyped-def]
            response = super().complete(request)
            return dataclasses.replace(response, usage=dataclasses.replace(response.usage, input_tokens=5))

    provider = CachingProvider(Undercounting(["a", "b"]), PrefixCache(ManualClock()))
    provider.complete(ask())
    assert provider.complete(ask()).usage.cached_input_tokens == 5


def test_a_failed_call_reads_and_stores_nothing() -> None:
    provider = CachingProvider(ScriptedClient([ServerError("down"), "Yes."]), PrefixCache(ManualClock()))
    with pytest.raises(ServerError):
        provider.complete(ask())
    assert provider.reads == [] and len(provider.cache) == 0
    assert provider.complete(ask()).usage.cached_input_tokens == 0


def test_unlike_the_response_cache_the_prompt_cache_never_replays_an_answer() -> None:
    answers = ScriptedClient(["First answer.", "Second answer."])
    replayed = CachingClient(answers, ResponseCache(), Ledger(), scope=SHARED)
    assert [replayed.complete(ask()).text for _ in range(2)] == ["First answer.", "First answer."]
    assert len(answers.requests) == 1  # the response cache called no model the second time
    model = ScriptedClient(["First answer.", "Second answer."])
    provider = CachingProvider(model, PrefixCache(ManualClock()))
    assert [provider.complete(ask()).text for _ in range(2)] == ["First answer.", "Second answer."]
    assert len(model.requests) == 2


def test_a_read_reports_the_tokens_it_wrote_past_the_cached_part() -> None:
    clock = ManualClock()
    cache = PrefixCache(clock)
    first = cache.read(ask())
    assert (first.outcome, first.cached_tokens, first.written_tokens) == (MISS, 0, first.input_tokens)
    again = cache.read(ask())
    assert (again.outcome, again.written_tokens) == (HIT, 0)  # everything was stored: nothing new to write
    longer = cache.read(ask(Message("user", "And T-602? " * 20)))
    assert longer.outcome == HIT and longer.written_tokens == longer.input_tokens - longer.cached_tokens > 0
    clock.advance(CACHE_TTL_S + 1)
    expired = cache.read(ask())
    assert (expired.outcome, expired.written_tokens) == (MISS, expired.input_tokens)  # expired: written again
    assert cache.read(ask(rules="short")).written_tokens == 0  # too short: nothing stored
