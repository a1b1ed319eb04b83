"""costs.py: cost per user and feature from the spans sums exactly to the total, and agrees with a ledger."""

from decimal import Decimal

from evidencedesk.llm import LLMRequest, LLMResponse, Message, Usage
from evidencedesk.tracing.costs import UNATTRIBUTED, attribute, roots, span_cost
from evidencedesk.tracing.genai import (
    CACHE_READ_TOKENS,
    INPUT_TOKENS,
    INVOKE_AGENT,
    OPERATION,
    OUTPUT_TOKENS,
    TracedClient,
)
from evidencedesk.tracing.lab import SMALL, Question, ask_traced, run_workload
from evidencedesk.tracing.setup import make_tracing
from evidencedesk.usage import ManualClock, load_prices


def test_parts_sum_exactly_to_the_total():
    tracing = make_tracing(ManualClock())
    run_workload(tracing, 26)
    a = attribute(tracing.spans())
    assert sum(a.by_user.values()) == a.total == sum(a.by_feature.values())
    assert set(a.by_user) == {"kwame", "lena"} and a.total > 0
    assert all(isinstance(v, Decimal) for v in a.by_user.values())


def test_a_trace_costs_what_its_chats_report_at_the_table_prices():
    tracing = make_tracing(ManualClock())
    ask_traced(tracing, Question("kwame", "policy_research", "research"))
    chats = [s for s in tracing.spans() if s.name.startswith("chat")]
    tokens_in = sum(s.attributes["gen_ai.usage.input_tokens"] for s in chats)
    tokens_out = sum(s.attributes["gen_ai.usage.output_tokens"] for s in chats)
    expected = Decimal("0.000012") * tokens_in + Decimal("0.000048") * tokens_out  # large-model-1
    assert attribute(tracing.spans()).by_feature == {"policy_research": expected}


def test_calls_without_their_root_are_unattributed_not_lost():
    tracing = make_tracing(ManualClock())
    run_workload(tracing, 5)
    spans = tracing.spans()
    root_ids = {r.context.span_id for r in roots(spans).values()}
    orphans = [s for s in spans if s.context.span_id not in root_ids]
    a, whole = attribute(orphans), attribute(spans)
    assert a.by_user == {UNATTRIBUTED: whole.total} and a.total == whole.total


class _CachedReply:
    """A scripted client: 1000 input tokens of which 800 came from the provider's prompt cache."""

    def complete(self, request):
        return LLMResponse("ok", request.model, Usage(1000, 10, cached_input_tokens=800), "stop")


def test_cached_input_tokens_are_inside_input_tokens_and_priced_once():
    tracing = make_tracing(ManualClock())
    TracedClient(_CachedReply(), tracing, "alpha").complete(LLMRequest(SMALL, [Message("user", "hi")], 50))
    (chat,) = tracing.spans()
    assert (chat.attributes[INPUT_TOKENS], chat.attributes[CACHE_READ_TOKENS]) == (1000, 800)
    price = load_prices()[SMALL]
    expected = price.input * 200 + price.cached_input * 800 + price.output * 10
    assert span_cost(chat, load_prices()) == expected < price.input * 1000 + price.output * 10


def test_token_totals_on_the_agent_span_are_not_counted_again():
    tracing = make_tracing(ManualClock())
    ask_traced(tracing, Question("kwame", "triage", "lookup"))
    before = attribute(tracing.spans())
    root = tracing.tracer.start_span("invoke_agent helpdesk", attributes={
        OPERATION: INVOKE_AGENT, INPUT_TOKENS: 10_000, OUTPUT_TOKENS: 10_000})  # totals, as the conventions recommend
    root.end()
    after = attribute(tracing.spans())
    assert (after.total, after.calls) == (before.total, before.calls)
