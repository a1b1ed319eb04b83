"""The cascade: accepted, escalated, cut, cheap down and target down (evidencedesk.routing.cascade)."""

from decimal import Decimal

import pytest

from evidencedesk.llm import LENGTH, LLMRequest, LLMResponse, Message, Overloaded, ScriptedClient, Usage
from evidencedesk.routing.cascade import (
    ACCEPTED,
    CHEAP_DOWN,
    ESCALATED,
    SERVE_UNVERIFIED,
    TARGET_DOWN,
    Cascade,
    EscalationFailed,
)
from evidencedesk.routing.models import Metered, ScriptedVerifier
from evidencedesk.usage import Ledger, ManualClock

Q = "Refund for a lamp?"


def ask():
    return LLMRequest("small-model-1", [Message("system", "Be brief."), Message("user", Q)], 50)


def build(threshold, cheap=("18.50",), expensive=("18.50",), confidence="0.55", **kw):
    ledger, clock = Ledger(), ManualClock()
    verifier = ScriptedVerifier({Q: (cheap[0] if isinstance(cheap[0], str) else "", confidence)},
                                lambda c: Metered(c, ledger, clock, 0.3, "verifier"))
    cascade = Cascade(Metered(ScriptedClient(list(cheap)), ledger, clock, 0.5, "cheap", "small-model-1"),
                      Metered(ScriptedClient(list(expensive)), ledger, clock, 2.0, "expensive", "large-model-1"),
                      verifier, Decimal(threshold), ledger, clock, **kw)
    return cascade, ledger, clock


def test_a_sure_verifier_keeps_the_cheap_reply_and_calls_nothing_else():
    cascade, ledger, clock = build("0.50")
    assert cascade.complete(ask()).text == "18.50"
    (routed,) = cascade.log
    assert routed.route == ACCEPTED and not routed.escalated and routed.model == "small-model-1"
    assert [r.call_id for r in ledger.records] == ["cheap-1", "verifier-1"] and clock() == 0.8


def test_an_unsure_verifier_escalates_and_every_call_is_paid():
    cascade, ledger, clock = build("0.80", expensive=("18.49",))
    assert cascade.complete(ask()).text == "18.49"
    (routed,) = cascade.log
    assert routed.route == ESCALATED and routed.escalated and routed.model == "large-model-1"
    assert [r.call_id for r in ledger.records] == ["cheap-1", "verifier-1", "expensive-1"]
    assert routed.cost == ledger.summary().cost and routed.seconds == 2.8


def test_the_threshold_is_inclusive():
    cascade, _, _ = build("0.55")
    cascade.complete(ask())
    assert cascade.log[0].route == ACCEPTED


class CutClient:
    def complete(self, request):
        return LLMResponse("18.", "cut", Usage(10, 50), LENGTH)


def test_a_cut_cheap_reply_escalates_without_a_verifier_call():
    ledger, clock = Ledger(), ManualClock()
    cascade = Cascade(Metered(CutClient(), ledger, clock, 0.5, "cheap", "small-model-1"),
                      Metered(ScriptedClient(["18.50"]), ledger, clock, 2.0, "expensive", "large-model-1"),
                      ScriptedVerifier({}), Decimal("0.1"), ledger, clock)
    assert cascade.complete(ask()).text == "18.50"
    assert cascade.log[0].route == ESCALATED and cascade.log[0].confidence is None


class DownVerifier:
    def verify(self, request, reply):
        raise Overloaded("verifier busy", "alpha")


def test_a_failed_verifier_call_escalates_as_not_sure():
    ledger, clock = Ledger(), ManualClock()
    cascade = Cascade(Metered(ScriptedClient(["18.50"]), ledger, clock, 0.5, "cheap", "small-model-1"),
                      Metered(ScriptedClient(["18.49"]), ledger, clock, 2.0, "expensive", "large-model-1"),
                      DownVerifier(), Decimal("0.1"), ledger, clock)
    assert cascade.complete(ask()).text == "18.49"
    routed = cascade.log[0]
    assert routed.route == ESCALATED and routed.confidence is None and routed.model == "large-model-1"


def test_a_failed_cheap_call_goes_to_the_expensive_model_as_availability():
    cascade, ledger, _ = build("0.10", cheap=(Overloaded("busy", "alpha"),))
    assert cascade.complete(ask()).text == "18.50"
    routed = cascade.log[0]
    assert routed.route == CHEAP_DOWN and not routed.escalated and routed.confidence is None
    assert [r.call_id for r in ledger.records] == ["expensive-1"]


def test_both_down_raises_the_expensive_error():
    cascade, _, _ = build("0.10", cheap=(Overloaded("busy", "alpha"),), expensive=(Overloaded("busy", "beta"),))
    with pytest.raises(Overloaded):
        cascade.complete(ask())
    assert cascade.log[0].route == CHEAP_DOWN and cascade.log[0].model == ""


def test_a_failed_escalation_refuses_by_default():
    cascade, _, _ = build("0.80", expensive=(Overloaded("busy", "beta"),))
    with pytest.raises(EscalationFailed):
        cascade.complete(ask())
    routed = cascade.log[0]
    assert routed.route == TARGET_DOWN and routed.model == "" and not routed.verified


def test_serve_unverified_returns_the_doubted_reply_marked():
    cascade, _, _ = build("0.80", expensive=(Overloaded("busy", "beta"),), if_target_fails=SERVE_UNVERIFIED)
    assert cascade.complete(ask()).text == "18.50"
    routed = cascade.log[0]
    assert routed.route == TARGET_DOWN and routed.model == "small-model-1" and not routed.verified


def test_an_escalation_answered_by_a_smaller_model_is_no_escalation():
    ledger, clock = Ledger(), ManualClock()
    verifier = ScriptedVerifier({Q: ("18.50", "0.2")})
    cascade = Cascade(Metered(ScriptedClient(["18.50"]), ledger, clock, 0.5, "cheap", "small-model-1"),
                      Metered(ScriptedClient(["18.5"]), ledger, clock, 0.5, "expensive", "small-model-1"),
                      verifier, Decimal("0.8"), ledger, clock)
    with pytest.raises(EscalationFailed, match="small-model-1"):
        cascade.complete(ask())


@pytest.mark.parametrize("threshold", [Decimal("-0.1"), Decimal("1.1"), 0.5])
def test_a_threshold_outside_0_to_1_is_refused(threshold):
    with pytest.raises(ValueError, match="threshold"):
        Cascade(None, None, None, threshold, Ledger(), ManualClock())


def test_an_unknown_policy_is_refused():
    with pytest.raises(ValueError, match="if_target_fails"):
        Cascade(None, None, None, Decimal("0.5"), Ledger(), ManualClock(), if_target_fails="guess")
