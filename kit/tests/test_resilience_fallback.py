"""Tests of evidencedesk.resilience.fallback: the checks before each attempt, and what each failure leads to."""

from __future__ import annotations

from decimal import Decimal

import pytest

from evidencedesk.budget import COST_BUDGET, STEP_BUDGET, TIME_BUDGET, RunBudget, worst_case_cost
from evidencedesk.llm import (
    AuthFailed,
    BadRequest,
    LLMError,
    LLMRequest,
    Message,
    Overloaded,
    RateLimited,
    ScriptedClient,
    ServerError,
)
from evidencedesk.resilience.breaker import CLOSED, HALF_OPEN, OPEN, CircuitBreaker
from evidencedesk.resilience.errors import QuotaExhausted
from evidencedesk.resilience.failures import ScriptedDraw
from evidencedesk.resilience.fallback import (
    ANSWERED,
    BREAKER_OPEN,
    FIX_REQUEST,
    NO_PROVIDER_LEFT,
    OK,
    PROBE_OUT,
    FallbackChain,
    Route,
)
from evidencedesk.usage import ManualClock, load_prices

REQUEST = LLMRequest("placeholder", [Message("user", "Can I return a kettle?")], max_tokens=200)


def chain(alpha: list[str | LLMError], beta: list[str | LLMError],
          draw: ScriptedDraw | None = None) -> tuple[FallbackChain, ManualClock]:
    clock = ManualClock()
    routes = [Route("alpha", ScriptedClient(alpha), "small-model-1", CircuitBreaker("alpha", clock)),
              Route("beta", ScriptedClient(beta), "large-model-1", CircuitBreaker("beta", clock))]
    return FallbackChain(routes, clock, draw=draw), clock


def outcomes(run) -> list[tuple[str, str]]:
    return [(a.provider, a.outcome) for a in run.attempts]


def test_the_primary_answers_and_its_cost_is_recorded() -> None:
    run = chain(["Yes."], [])[0].run(REQUEST, RunBudget())
    assert (run.reason, run.answered_by, run.response.text) == (ANSWERED, "alpha", "Yes.")
    assert outcomes(run) == [("alpha", OK)]
    assert run.attempts[0].cost == run.ledger.summary().cost > 0 and run.ledger.records[0].model == "small-model-1"


def test_a_retryable_error_is_retried_here_once_then_the_next_provider_answers() -> None:
    fallback, clock = chain([Overloaded("busy", "alpha"), ServerError("oops", "alpha")], ["Sure."])
    run = fallback.run(REQUEST, RunBudget())
    assert outcomes(run) == [("alpha", "overloaded"), ("alpha", "server_error"), ("beta", OK)]
    assert [a.then for a in run.attempts] == ["wait 0.50 s, retry", "next provider", ANSWERED]
    assert clock() == 0.5 and run.answered_by == "beta" and run.ledger.records[0].model == "large-model-1"


def test_a_rate_limit_waits_as_long_as_asked_or_moves_on_when_that_is_over_the_cap() -> None:
    fallback, clock = chain([RateLimited("busy", "alpha", retry_after_s=2.0), "Yes."], [])
    assert fallback.run(REQUEST, RunBudget()).answered_by == "alpha" and clock() == 2.0
    fallback, clock = chain([RateLimited("busy", "alpha", retry_after_s=60.0)], ["Sure."])
    assert fallback.run(REQUEST, RunBudget()).answered_by == "beta" and clock() == 0.0


def test_a_wait_past_the_time_budget_moves_on_instead_of_waiting() -> None:
    fallback, clock = chain([RateLimited("busy", "alpha", retry_after_s=3.0)], ["Sure."])
    run = fallback.run(REQUEST, RunBudget(max_seconds=2.5))
    assert run.answered_by == "beta" and clock() == 0.0


def test_a_refused_key_falls_back_and_alerts_an_operator() -> None:
    run = chain([AuthFailed("key refused", "alpha")], ["Sure."])[0].run(REQUEST, RunBudget())
    assert outcomes(run) == [("alpha", "auth_failed"), ("beta", OK)]
    assert run.alerts == ("alpha: auth_failed: an operator must act",)


def test_a_bad_request_stops_the_run_and_no_other_provider_sees_it() -> None:
    fallback, _ = chain([BadRequest("max_tokens too large", "alpha")], ["Sure."])
    run = fallback.run(REQUEST, RunBudget())
    assert (run.reason, outcomes(run), run.response) == (FIX_REQUEST, [("alpha", "bad_request")], None)
    assert fallback.routes[1].client.requests == [] and fallback.routes[0].breaker.failures == 0


def test_the_budget_is_checked_before_the_fallback_spends_anything() -> None:
    fallback, _ = chain([Overloaded("busy"), Overloaded("busy")], ["Sure."])
    prices = load_prices()
    alpha_worst = worst_case_cost(LLMRequest("small-model-1", REQUEST.messages, 200), prices)
    beta_worst = worst_case_cost(LLMRequest("large-model-1", REQUEST.messages, 200), prices)
    limit = Decimal("0.005")
    assert alpha_worst <= limit < beta_worst
    run = fallback.run(REQUEST, RunBudget(max_cost=limit))
    assert (run.reason, outcomes(run)[-1]) == (COST_BUDGET, ("beta", COST_BUDGET))
    assert fallback.routes[1].client.requests == [] and run.ledger.summary().cost == 0


def test_the_step_budget_counts_attempts_on_every_provider() -> None:
    fallback, _ = chain([Overloaded("busy"), Overloaded("busy")], ["Sure."])
    run = fallback.run(REQUEST, RunBudget(max_steps=2))
    assert run.reason == STEP_BUDGET and outcomes(run)[-1] == ("beta", STEP_BUDGET)


class SlowFailure:
    """A client that takes 1 s on the clock and then fails as overloaded, every time."""

    def __init__(self, clock: ManualClock) -> None:
        self.clock = clock

    def complete(self, request: LLMRequest):
        self.clock.advance(1.0)
        raise Overloaded("busy", "alpha")


def test_a_run_past_its_time_stops_with_time_budget_before_the_next_attempt() -> None:
    fallback, clock = chain([], ["Sure."])
    fallback.routes[0] = Route("alpha", SlowFailure(clock), "small-model-1", CircuitBreaker("alpha", clock))
    run = fallback.run(REQUEST, RunBudget(max_seconds=1.0))
    assert run.reason == TIME_BUDGET and outcomes(run) == [("alpha", "overloaded"), ("beta", TIME_BUDGET)]
    assert fallback.routes[1].client.requests == [] and clock() == 1.0


def test_an_open_breaker_skips_its_provider_without_a_call() -> None:
    fallback, _ = chain(["Yes."], ["Sure."])
    alpha = fallback.routes[0]
    for _ in range(3):
        alpha.breaker.allow()
        alpha.breaker.record(ok=False)
    run = fallback.run(REQUEST, RunBudget())
    assert outcomes(run) == [("alpha", BREAKER_OPEN), ("beta", OK)] and alpha.client.requests == []


def test_failures_count_for_the_breaker_across_runs() -> None:
    fallback, clock = chain([Overloaded("busy")] * 3, ["Sure."] * 3)
    fallback.run(REQUEST, RunBudget())
    second = fallback.run(REQUEST, RunBudget())  # the third failure in a row opens it: no wait, no retry
    assert outcomes(second) == [("alpha", "overloaded"), ("beta", OK)] and clock() == 0.5
    assert fallback.routes[0].breaker.state == OPEN
    third = fallback.run(REQUEST, RunBudget())
    assert outcomes(third) == [("alpha", BREAKER_OPEN), ("beta", OK)] and fallback.routes[0].client.requests[3:] == []


def test_when_every_provider_fails_the_run_says_so() -> None:
    run = chain([Overloaded("busy")] * 2, [Overloaded("busy")] * 2)[0].run(REQUEST, RunBudget())
    assert (run.reason, run.response, len(run.attempts)) == (NO_PROVIDER_LEFT, None, 4)


@pytest.mark.parametrize("names", [[], ["alpha", "alpha"]])
def test_routes_must_name_each_provider_once(names: list[str]) -> None:
    clock = ManualClock()
    routes = [Route(n, ScriptedClient([]), "small-model-1", CircuitBreaker(n, clock)) for n in names]
    with pytest.raises(ValueError, match="each once"):
        FallbackChain(routes, clock)


@pytest.mark.parametrize("field, value", [("provider", ""), ("model", None), ("client", object()),
                                          ("breaker", "closed")])
def test_a_bad_route_names_its_field(field: str, value: object) -> None:
    clock = ManualClock()
    fields = {"provider": "alpha", "client": ScriptedClient([]), "model": "small-model-1",
              "breaker": CircuitBreaker("alpha", clock), field: value}
    with pytest.raises(ValueError, match=f"^{field} must be"):
        Route(**fields)


def test_run_names_a_request_or_budget_of_the_wrong_type() -> None:
    fallback, _ = chain(["Yes."], [])
    with pytest.raises(TypeError, match="request must be an LLMRequest, got str"):
        fallback.run("Can I return a kettle?", RunBudget())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="budget must be a budget.RunBudget, got dict"):
        fallback.run(REQUEST, {"max_cost": "0.005"})  # type: ignore[arg-type]


def test_an_exhausted_quota_is_never_retried_alerts_and_leaves_the_breaker_alone() -> None:
    fallback, _ = chain([Overloaded("busy", "alpha"), ServerError("oops", "alpha"),
                         QuotaExhausted("no credit", "alpha")], ["Sure."] * 3)
    fallback.run(REQUEST, RunBudget())  # two failures counted against Alpha
    breaker = fallback.routes[0].breaker
    assert breaker.failures == 2
    run = fallback.run(REQUEST, RunBudget())
    assert outcomes(run) == [("alpha", "quota_exhausted"), ("beta", OK)] and len(run.alerts) == 1
    assert "quota_exhausted" in run.alerts[0] and run.attempts[0].then == "next provider"
    assert (breaker.state, breaker.failures, breaker.in_flight) == (CLOSED, 2, 0)  # not counted, not left out


def test_the_chain_waits_a_jittered_backoff_when_given_a_draw() -> None:
    fallback, clock = chain([Overloaded("busy", "alpha"), "Yes."], [], draw=ScriptedDraw([0.2]))
    run = fallback.run(REQUEST, RunBudget())
    assert [a.then for a in run.attempts] == ["wait 0.10 s, retry", ANSWERED] and clock() == 0.1


def test_a_half_open_breaker_with_its_probe_out_skips_the_provider() -> None:
    fallback, clock = chain(["Yes."], ["Sure."])
    breaker = fallback.routes[0].breaker
    for _ in range(3):
        breaker.allow()
        breaker.record(ok=False)
    clock.advance(30.0)
    assert breaker.allow()  # another caller's probe, still out
    run = fallback.run(REQUEST, RunBudget())
    assert outcomes(run) == [("alpha", PROBE_OUT), ("beta", OK)] and breaker.state == HALF_OPEN


def test_a_budget_refusal_gives_the_breaker_its_place_back() -> None:
    fallback, clock = chain(["Yes."], [])
    breaker = fallback.routes[0].breaker
    for _ in range(3):
        breaker.allow()
        breaker.record(ok=False)
    clock.advance(30.0)
    run = fallback.run(REQUEST, RunBudget(max_cost=Decimal("0.000001")))
    assert run.reason == COST_BUDGET and breaker.state == HALF_OPEN and breaker.in_flight == 0
    assert breaker.allow()  # the probe's place is free for the next call
