"""Tests for evidencedesk.cache: the exact-match key, free hits recorded in the ledger, and what is never cached."""

from __future__ import annotations

import pytest

from evidencedesk.budget import BudgetedClient, RunBudget
from evidencedesk.cache import SHARED, CachingClient, ResponseCache, cache_key
from evidencedesk.llm import LLMRequest, LLMResponse, Message, ScriptedClient, ToolCall, Usage
from evidencedesk.usage import Ledger, ManualClock, cost_of

RULES = Message("system", "Answer from the returns policy, version 3.")


def ask(question: str = "Can I return a kettle?", rules: Message = RULES, model: str = "small-model-1",
        max_tokens: int = 100) -> LLMRequest:
    return LLMRequest(model, [rules, Message("user", question)], max_tokens=max_tokens)


def cached_client(replies: list[str], scope: str = SHARED, cache: ResponseCache | None = None):
    ledger = Ledger()
    scripted = ScriptedClient(replies, model="small-model-1")
    paid = BudgetedClient(scripted, RunBudget(max_steps=50), ledger, ManualClock())
    return CachingClient(paid, cache if cache is not None else ResponseCache(), ledger, scope), scripted, ledger


@pytest.mark.parametrize(
    "changed",
    [
        ask(question="Can I return a toaster?"),
        ask(question="can I return a kettle?"),  # exact match: case counts
        ask(rules=Message("system", "Answer from the returns policy, version 4.")),
        ask(model="large-model-1"),
        ask(max_tokens=101),
        LLMRequest("small-model-1", [Message("user", "Can I return a kettle?"), RULES], max_tokens=100),  # order
        LLMRequest("small-model-1", [Message("system", RULES.content), Message("assistant", "Can I return a kettle?")],
                   max_tokens=100),  # role
        LLMRequest("small-model-1", [RULES, Message("user", "Can I return a kettle?")], 100, temperature=0.7),
        LLMRequest("small-model-1", [RULES, Message("user", "Can I return a kettle?")], 100,
                   tools=('{"name": "get_ticket"}',)),
        LLMRequest("small-model-1", [RULES, Message("user", "Can I return a kettle?")], 100,
                   response_format='{"type": "object"}'),
    ],
)
def test_anything_that_changes_the_answer_changes_the_key(changed: LLMRequest) -> None:
    assert cache_key(changed, SHARED) != cache_key(ask(), SHARED)


CALL = ToolCall("call_1", "get_ticket", {"ticket_id": "T-501"})


def with_history(*messages: Message) -> LLMRequest:
    return LLMRequest("small-model-1", [RULES, Message("user", "Is T-501 open?"), *messages], max_tokens=100)


def test_the_tool_fields_of_a_message_are_part_of_the_key() -> None:
    base = with_history(Message("assistant", "", tool_calls=[CALL]), Message("tool", "open", tool_call_id="call_1"))
    variants = [
        with_history(Message("assistant", "", tool_calls=[ToolCall("call_1", "get_ticket", {"ticket_id": "T-502"})]),
                     Message("tool", "open", tool_call_id="call_1")),  # other arguments
        with_history(Message("assistant", "", tool_calls=[ToolCall("call_1", "get_ticket", '{"ticket_id": "T-501"}')]),
                     Message("tool", "open", tool_call_id="call_1")),  # the same arguments as text the model wrote
        with_history(Message("assistant", "", tool_calls=[ToolCall("call_2", "get_ticket", {"ticket_id": "T-501"})]),
                     Message("tool", "open", tool_call_id="call_2")),  # another call id
        with_history(Message("assistant", "", tool_calls=[ToolCall("call_1", "lookup_document", CALL.arguments)]),
                     Message("tool", "open", tool_call_id="call_1")),  # another tool
        with_history(Message("assistant", ""), Message("user", "open")),  # no call, no result
    ]
    keys = {cache_key(request, SHARED) for request in [base, *variants]}
    assert len(keys) == 1 + len(variants)
    assert cache_key(base, SHARED) == cache_key(with_history(*base.messages[2:]), SHARED)


def test_arguments_that_are_not_json_data_are_refused_naming_them() -> None:
    odd = with_history(Message("assistant", "", tool_calls=[ToolCall("c", "t", {"when": {1, 2}})]),
                       Message("tool", "x", tool_call_id="c"))
    with pytest.raises(ValueError, match="tool call arguments must be JSON data"):
        cache_key(odd, SHARED)


def test_the_same_request_in_the_same_scope_has_the_same_key() -> None:
    key = cache_key(ask(), "kwame")
    assert key == cache_key(ask(), "kwame") and len(key) == 64
    assert key != cache_key(ask(), "lena") != cache_key(ask(), SHARED)


def test_message_boundaries_cannot_be_faked_by_moving_text() -> None:
    one = LLMRequest("m", [Message("user", "a"), Message("user", "b c")], 10)
    two = LLMRequest("m", [Message("user", "a b"), Message("user", "c")], 10)
    assert cache_key(one, SHARED) != cache_key(two, SHARED)


@pytest.mark.parametrize("scope", ["", None, 7])
def test_a_scope_is_required(scope: object) -> None:
    with pytest.raises(ValueError, match="scope"):
        cache_key(ask(), scope)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="scope"):
        CachingClient(ScriptedClient([]), ResponseCache(), Ledger(), scope)  # type: ignore[arg-type]


def test_a_hit_costs_nothing_and_is_recorded_as_a_hit() -> None:
    client, scripted, ledger = cached_client(["Yes, within 30 days."])
    first, second = client.complete(ask()), client.complete(ask())
    assert first.text == second.text and len(scripted.requests) == 1
    assert second.usage == Usage() and first.usage.output_tokens > 0
    hit = ledger.records[-1]
    assert (hit.cache_hit, hit.input_tokens, hit.output_tokens, hit.call_id) == (True, 0, 0, "shared-hit1")
    summary = ledger.summary()
    assert (summary.calls, summary.cache_hits) == (2, 1)
    assert cost_of(hit, ledger.table) == 0 and summary.cost == cost_of(ledger.records[0], ledger.table) > 0


def test_one_users_answer_is_never_served_to_another() -> None:
    cache = ResponseCache()
    kwame, _, _ = cached_client(["Your ticket T-501 is open."], scope="kwame", cache=cache)
    lena, lena_model, _ = cached_client(["You have no open tickets."], scope="lena", cache=cache)
    question = ask("What is the status of my ticket?")
    assert kwame.complete(question).text == "Your ticket T-501 is open."
    assert lena.complete(question).text == "You have no open tickets." and len(lena_model.requests) == 1


def test_a_write_is_never_served_from_the_cache_or_stored() -> None:
    client, scripted, ledger = cached_client(["Reminder sent.", "Reminder sent."])
    send = ask("Send the customer a reminder about T-501.")
    client.complete(send, write=True)
    client.complete(send, write=True)
    assert len(scripted.requests) == 2 and len(client.cache) == 0 and ledger.summary().cache_hits == 0


def test_a_failed_call_is_not_cached() -> None:
    client, scripted, _ = cached_client([])
    with pytest.raises(Exception, match="used up"):
        client.complete(ask())
    assert len(client.cache) == 0


def test_the_cache_drops_its_oldest_entry_when_full() -> None:
    cache = ResponseCache(max_entries=2)
    for key in ("a", "b", "c"):
        cache.put(key, LLMResponse(key, "m"))
    assert (cache.get("a"), len(cache)) == (None, 2) and cache.get("c") == LLMResponse("c", "m")


@pytest.mark.parametrize("size", [0, -1, 1.5, True, "10"])
def test_the_cache_size_must_be_a_positive_int(size: object) -> None:
    with pytest.raises(ValueError, match="max_entries"):
        ResponseCache(size)  # type: ignore[arg-type]


def test_a_request_above_temperature_0_is_asked_fresh_and_never_stored() -> None:
    client, scripted, _ = cached_client(["one sample", "another sample"])
    warm = LLMRequest("small-model-1", [RULES, Message("user", "Suggest a gift.")], 100, temperature=0.7)
    assert [client.complete(warm).text for _ in range(2)] == ["one sample", "another sample"]
    assert client.hits == 0 and len(client.cache) == 0 and len(scripted.requests) == 2


def test_an_answer_older_than_its_ttl_is_not_served() -> None:
    clock = ManualClock()
    client, scripted, _ = cached_client(["old answer", "new answer"], cache=ResponseCache(ttl_s=3600, clock=clock))
    assert client.complete(ask()).text == "old answer"
    clock.advance(3599)
    assert client.complete(ask()).text == "old answer" and client.hits == 1
    clock.advance(1)
    assert client.complete(ask()).text == "new answer" and len(scripted.requests) == 2


@pytest.mark.parametrize(("ttl_s", "clock"), [(0, ManualClock()), (float("nan"), ManualClock()), (-1, ManualClock()),
                                               (float("inf"), ManualClock()), (60, None)])
def test_a_ttl_must_be_positive_finite_seconds_with_a_clock(ttl_s: float, clock: object) -> None:
    with pytest.raises(ValueError, match="ttl_s"):
        ResponseCache(ttl_s=ttl_s, clock=clock)  # type: ignore[arg-type]
