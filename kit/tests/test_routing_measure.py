"""Configurations measured on the eval set with page 8's runner (evidencedesk.routing.measure)."""

from decimal import Decimal

import pytest

from evidencedesk.evals.paired import pair
from evidencedesk.routing.measure import CHEAP, EXPENSIVE, measure, name_of
from evidencedesk.routing.models import CHEAP_S, EXPENSIVE_S, VERIFIER_S, load_replies, load_route_cases

CASES = load_route_cases()[:30]


def test_single_models_are_graded_and_timed():
    cheap, expensive = measure(CASES, CHEAP), measure(CASES, EXPENSIVE)
    assert (cheap.run.passed, expensive.run.passed) == (26, 28)
    assert set(cheap.seconds) == {CHEAP_S} and set(expensive.seconds) == {EXPENSIVE_S}
    assert cheap.cost == cheap.cost_of("cheap") and expensive.cost == expensive.cost_of("expensive")


def test_threshold_0_never_escalates_and_1_escalates_all_but_certainty():
    never, always = measure(CASES, Decimal(0)), measure(CASES, Decimal(1))
    assert never.escalated == 0 and never.run.passed == measure(CASES, CHEAP).run.passed
    assert always.escalated == 30
    assert [r.reply for r in always.run.results] == [r.reply for r in measure(CASES, EXPENSIVE).run.results]


def test_a_cascade_pays_cheap_and_verifier_on_every_request():
    run = measure(CASES, Decimal("0.8"))
    assert run.cost == run.cost_of("cheap") + run.cost_of("verifier") + run.cost_of("expensive")
    assert run.cost_of("cheap") == measure(CASES, CHEAP).cost
    assert all(round(s, 9) in (CHEAP_S + VERIFIER_S, CHEAP_S + VERIFIER_S + EXPENSIVE_S) for s in run.seconds)
    assert run.escalated == sum(s > 1 for s in run.seconds)


def test_a_case_passes_in_the_cascade_exactly_as_the_model_that_answered_it():
    rows = load_replies(CASES)
    run = measure(CASES, Decimal("0.8"), rows)
    for case, result, routed in zip(CASES, run.run.results, run.log, strict=True):
        model_reply = rows[case.id].expensive if routed.escalated else rows[case.id].cheap
        assert result.reply == model_reply


def test_more_escalation_never_costs_less():
    costs = [measure(CASES, Decimal(t)).cost for t in ("0.5", "0.7", "0.9", "1")]
    assert costs == sorted(costs)


def test_runs_pair_case_by_case():
    assert pair(measure(CASES, Decimal("0.8")).run, measure(CASES, EXPENSIVE).run).discordant >= 0


def test_an_unknown_configuration_is_refused():
    with pytest.raises(ValueError, match="config"):
        measure(CASES, "medium")
    assert name_of(Decimal("0.8")) == "cascade 0.80"
