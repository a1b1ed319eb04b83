"""The escalation target as page 2's fallback chain (evidencedesk.routing.compose)."""

from decimal import Decimal

import pytest

from evidencedesk.budget import RunBudget
from evidencedesk.llm import LLMRequest, Message
from evidencedesk.providers import OVERLOAD, Fault
from evidencedesk.routing.cascade import ESCALATED, TARGET_DOWN, EscalationFailed, cascade_for
from evidencedesk.routing.compose import ChainClient, NoRoute, escalation_chain
from evidencedesk.routing.models import PROMPT, load_route_cases
from evidencedesk.usage import Ledger, ManualClock

CASES = load_route_cases()[:30]
G17 = CASES[16]


def ask():
    return LLMRequest("small-model-1", [Message("system", PROMPT), Message("user", G17.input)], 200)


def run(beta, alpha, alpha_model="large-model-1", budget=None):
    clock, ledger = ManualClock(), Ledger()
    target = ChainClient(escalation_chain(beta, alpha, clock, alpha_model), ledger, budget)
    cascade = cascade_for(CASES, Decimal("0.8"), clock=clock, ledger=ledger, expensive=target)
    try:
        text = cascade.complete(ask()).text
    except EscalationFailed:
        text = None
    return text, cascade.log[-1], target, ledger


def test_beta_answers_the_escalation():
    text, routed, target, _ = run(["18.50"], [])
    assert text == "18.50" and routed.route == ESCALATED and target.runs[0].answered_by == "beta"


def test_beta_down_alpha_serves_the_same_model_and_the_route_stays_an_escalation():
    text, routed, target, ledger = run([Fault(OVERLOAD)] * 2, ["18.50"])
    assert text == "18.50" and routed.route == ESCALATED and routed.model == "large-model-1"
    assert [a.outcome for a in target.runs[0].attempts] == ["overloaded", "overloaded", "ok"]
    assert ledger.records[-1].model == "large-model-1"


def test_both_down_is_no_route_and_the_cascade_refuses():
    text, routed, target, _ = run([Fault(OVERLOAD)] * 2, [Fault(OVERLOAD)] * 2)
    assert text is None and routed.route == TARGET_DOWN and target.runs[0].reason == "no_provider_left"


def test_a_fallback_to_a_smaller_model_is_refused_though_paid():
    text, routed, _, ledger = run([Fault(OVERLOAD)] * 2, ["€18.50"], alpha_model="small-model-1")
    assert text is None and routed.route == TARGET_DOWN
    assert ledger.records[-1].model == "small-model-1" and ledger.records[-1].call_id.startswith("expensive-chain")


def test_the_chain_client_raises_no_route_with_the_chains_reason():
    clock, ledger = ManualClock(), Ledger()
    client = ChainClient(escalation_chain(["18.50"], [], clock), ledger, RunBudget(max_cost=Decimal("0.0001")))
    with pytest.raises(NoRoute, match="cost_budget"):
        client.complete(ask())
    assert ledger.summary().cost == 0
