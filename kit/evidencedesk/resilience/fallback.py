"""A fallback chain: providers in order, each behind its circuit breaker, within the run's budget.

FallbackChain.run(request, budget) tries its routes in order (the invented Alpha first, then Beta, say).
Before every attempt, on every provider, it asks two questions: does the provider's breaker let a call
through (breaker.py), and could the attempt still fit the run's budget, assuming the worst for cost
(budget.BudgetedClient.over_budget: the estimated input plus the whole output allowance, priced for the
model this route asks for)? A breaker that refuses skips the provider; a budget that refuses stops the
run with the budget's reason, before anything is spent. After a failure, failures.py decides: retry
here after a wait (only while the breaker is still closed and the wait fits the budget's time), the
next provider, or stop (a bad request). An exhausted quota goes to the next provider with an alert and is
not reported to the breaker (release): it says nothing about the provider's health. Waits use full
jitter when the chain is given a draw function (failures.full_jitter). Every attempt is recorded:
provider, outcome, cost, clock time, and what came next. A failed attempt costs what its client
wrote to the run's ledger during it: nothing, for the invented providers, which bill no refused
call. One BudgetedClient serves the whole run, so its limits count every attempt on every provider.
A fallback changes the model that answers: the answers may differ, so evaluate the fallback route too.
Left out: streaming through the chain, hedged (parallel) requests, and remembering a provider's
retry_after_s across runs.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal

from evidencedesk.budget import BudgetedClient, RunBudget
from evidencedesk.llm import LLMClient, LLMError, LLMRequest, LLMResponse
from evidencedesk.resilience.breaker import HALF_OPEN, OPEN, CircuitBreaker
from evidencedesk.resilience.failures import Draw, handling, retry_wait
from evidencedesk.retry import RetryPolicy
from evidencedesk.usage import Ledger, ManualClock

OK = "ok"
BREAKER_OPEN = "breaker_open"  # the attempt was not sent: the provider's breaker refused it
PROBE_OUT = "probe_out"  # the attempt was not sent: the breaker is half-open and its probe is out
# why a run ended without an answer (besides budget.py's STEP_BUDGET, TIME_BUDGET and COST_BUDGET)
ANSWERED = "answered"
FIX_REQUEST = "fix_request"  # a bad request: no provider gets it again unchanged
NO_PROVIDER_LEFT = "no_provider_left"  # every route failed or was skipped
CHAIN_POLICY = RetryPolicy(max_attempts=2, base_s=0.5, cap_s=4.0)  # per provider: one retry, then move on


@dataclass(frozen=True)
class Route:
    """One provider in the chain: provider (str, a name for the log), client (LLMClient, its adapter),
    model (str, the model to ask for there; priced in the price table), breaker (CircuitBreaker, its own).

    Raises: ValueError naming the field: provider or model not a non-empty str, a client without complete(),
    a breaker that is not a CircuitBreaker.
    Example: Route("alpha", AlphaClient(FakeAlphaServer(["Yes."])), "small-model-1", CircuitBreaker("alpha", clock))
    """

    provider: str
    client: LLMClient
    model: str
    breaker: CircuitBreaker

    def __post_init__(self) -> None:
        for name in ("provider", "model"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name):
                raise ValueError(f"{name} must be a non-empty str, got {getattr(self, name)!r}")
        if not callable(getattr(self.client, "complete", None)):
            raise ValueError(f"client must be an LLMClient (with complete()), got {type(self.client).__name__}")
        if not isinstance(self.breaker, CircuitBreaker):
            raise ValueError(f"breaker must be a CircuitBreaker, got {type(self.breaker).__name__}")


@dataclass(frozen=True)
class Attempt:
    """One attempt of a run: provider (str); outcome (OK, an error code, BREAKER_OPEN, or a budget reason when
    the budget refused it); cost (Decimal, credits billed); at_s (float, clock seconds when it ended); then (str)."""

    provider: str
    outcome: str
    cost: Decimal
    at_s: float
    then: str

    def __str__(self) -> str:
        return f"{self.at_s:6.2f} s  {self.provider:<6} {self.outcome:<19} {self.cost:.6f} cr  -> {self.then}"


@dataclass(frozen=True)
class ChainRun:
    """How a run ended: response (LLMResponse or None); answered_by (str, provider or ""); reason (ANSWERED,
    FIX_REQUEST, NO_PROVIDER_LEFT or a budget reason); attempts (tuple of Attempt); alerts (tuple of str,
    for an operator); ledger (usage.Ledger, what the run was billed)."""

    response: LLMResponse | None
    answered_by: str
    reason: str
    attempts: tuple[Attempt, ...]
    alerts: tuple[str, ...]
    ledger: Ledger


class _Current:
    """The route the chain is trying now. The run's one BudgetedClient wraps it, so that its limits count
    every attempt on every provider."""

    def __init__(self) -> None:
        self.client: LLMClient | None = None

    def complete(self, request: LLMRequest) -> LLMResponse:
        assert self.client is not None, "the chain sets a route before each call"
        return self.client.complete(request)


class FallbackChain:
    """Providers in order, each with its breaker; a run checks its budget before every attempt.

    Args: routes (list of Route, at least one, first is primary); clock (ManualClock, shared with the breakers);
    policy (retry.RetryPolicy, retries per provider; default CHAIN_POLICY: one retry, backoff 0.5 s, cap 4 s);
    draw (failures.Draw or None: a function returning a fraction in [0, 1) for full jitter; None waits the
    whole backoff, which only a single client can afford).
    Raises: ValueError when routes is empty or names a provider twice.
    Example: FallbackChain([alpha, beta], clock).run(request, RunBudget()).answered_by
    """

    def __init__(self, routes: list[Route], clock: ManualClock, policy: RetryPolicy = CHAIN_POLICY,
                 draw: Draw | None = None) -> None:
        names = [route.provider for route in routes]
        if not names or len(set(names)) != len(names):
            raise ValueError(f"routes must name at least one provider, each once; got {names}")
        self.routes, self.clock, self.policy, self.draw = list(routes), clock, policy, draw

    def run(self, request: LLMRequest, budget: RunBudget, ledger: Ledger | None = None,
            run_id: str = "run-1") -> ChainRun:
        """Answer request (LLMRequest; each route sets its own model) within budget (budget.RunBudget).

        ledger (usage.Ledger or None: a new one) receives every billed attempt. Returns: ChainRun.
        Raises: TypeError naming request or budget when it is not an LLMRequest or a RunBudget.
        Example: chain.run(ask("Can I return a kettle?"), RunBudget(max_cost=Decimal("0.005"))).reason
        """
        if not isinstance(request, LLMRequest):
            raise TypeError(f"request must be an LLMRequest, got {type(request).__name__}")
        if not isinstance(budget, RunBudget):
            raise TypeError(f"budget must be a budget.RunBudget, got {type(budget).__name__}")
        current, ledger = _Current(), ledger if ledger is not None else Ledger()
        paid = BudgetedClient(current, budget, ledger, self.clock, run_id)
        log: list[Attempt] = []
        alerts: list[str] = []

        def note(route: Route, outcome: str, then: str, spent: Decimal | None = None) -> None:
            """Log one attempt; spent (credits in the ledger before it) gives its cost, None: it sent nothing."""
            cost = Decimal(0) if spent is None else ledger.summary().cost - spent
            log.append(Attempt(route.provider, outcome, cost, self.clock(), then))

        def end(reason: str, response: LLMResponse | None = None, by: str = "") -> ChainRun:
            return ChainRun(response, by, reason, tuple(log), tuple(alerts), ledger)

        for route in self.routes:
            routed = replace(request, model=route.model)
            attempt = 1
            while True:
                if not route.breaker.allow():
                    note(route, PROBE_OUT if route.breaker.state == HALF_OPEN else BREAKER_OPEN, "next provider")
                    break
                if reason := paid.over_budget(routed):
                    route.breaker.release()  # the call is not sent: give its place back
                    note(route, reason, f"stop: {reason}")
                    return end(reason)
                spent, current.client = ledger.summary().cost, route.client
                try:
                    response = paid.complete(routed)
                except LLMError as error:
                    what = handling(error)
                    if what.counts or not what.next_provider:
                        route.breaker.record(ok=not what.counts)  # a bad request: the provider itself works
                    else:
                        route.breaker.release()  # an exhausted quota: no verdict on the provider's health
                    if what.alert:
                        alerts.append(f"{route.provider}: {error.code}: an operator must act")
                    if not what.next_provider:
                        note(route, error.code, f"stop: {FIX_REQUEST}", spent)
                        return end(FIX_REQUEST)
                    wait_s = retry_wait(error, attempt, self.policy, self.draw)
                    if wait_s is None or route.breaker.state == OPEN or paid.over_budget(routed, wait_s):
                        note(route, error.code, "next provider", spent)  # no retry here, or none that may start
                        break
                    note(route, error.code, f"wait {wait_s:.2f} s, retry", spent)
                    self.clock.advance(wait_s)
                    attempt += 1
                else:
                    route.breaker.record(ok=True)
                    note(route, OK, ANSWERED, spent)
                    return end(ANSWERED, response, route.provider)
        return end(NO_PROVIDER_LEFT)
