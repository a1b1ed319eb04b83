"""Quality escalation and availability fallback, composed: the cascade's escalation target is page 2's
fallback chain, so a provider's outage and the verifier's doubt are handled by different code.

A cascade escalates because the verifier doubts an answer: a decision about quality. A fallback chain
(resilience.fallback.FallbackChain) moves to the next provider because a call failed: a decision about
availability, which says nothing about the answer. ChainClient wraps a chain as an LLMClient for the
cascade's expensive step: the chain tries its providers in order, each behind its breaker and within the
run's budget, and bills every attempt into the cascade's ledger; when no provider answers it raises
NoRoute, and the cascade's own policy (cascade.REFUSE or SERVE_UNVERIFIED) decides what the user gets.
escalation_chain() builds the page's target from page 2's invented providers: the expensive model at Beta,
then the same model at Alpha. A chain whose later route asks for a smaller model would quietly turn an
escalation into a downgrade; the cascade refuses an escalated answer from a model outside escalate_to.
Left out: streaming, and sharing breakers between the cheap and the expensive step.
"""

from __future__ import annotations

from evidencedesk.budget import RunBudget
from evidencedesk.llm import LLMError, LLMRequest, LLMResponse
from evidencedesk.providers import AlphaClient, BetaClient, FakeAlphaServer, FakeBetaServer
from evidencedesk.resilience.breaker import CircuitBreaker
from evidencedesk.resilience.fallback import ChainRun, FallbackChain, Route
from evidencedesk.resilience.scenarios import ALPHA_LATENCY_S, BETA_LATENCY_S, Script, timed
from evidencedesk.routing.models import EXPENSIVE_MODEL
from evidencedesk.usage import Ledger, ManualClock


class NoRoute(LLMError):
    """The fallback chain ended without an answer; the message holds the chain's reason."""

    code = "no_route"


class ChainClient:
    """A FallbackChain as an LLMClient: one chain run per call, billed into ledger, within budget.

    Args: chain (resilience.fallback.FallbackChain); ledger (usage.Ledger, the cascade's); budget
    (budget.RunBudget, per call; default RunBudget()). runs keeps every ChainRun, for the log.
    Raises (complete): NoRoute naming the chain's reason when no provider answered.
    Example: ChainClient(chain, ledger).complete(request).text
    """

    def __init__(self, chain: FallbackChain, ledger: Ledger, budget: RunBudget | None = None) -> None:
        self.chain, self.ledger, self.budget = chain, ledger, budget if budget is not None else RunBudget()
        self.runs: list[ChainRun] = []

    def complete(self, request: LLMRequest) -> LLMResponse:
        """The chain's answer to request. Raises NoRoute when it has none."""
        run_id = f"expensive-chain{len(self.runs) + 1}"
        run = self.chain.run(request, self.budget, self.ledger, run_id)
        self.runs.append(run)
        if run.response is None:
            raise NoRoute(f"fallback chain ended with {run.reason}")
        return run.response


def escalation_chain(beta: Script, alpha: Script, clock: ManualClock, alpha_model: str = EXPENSIVE_MODEL
                     ) -> FallbackChain:
    """Page 2's chain turned into an escalation target: Beta, then Alpha, both asked for the expensive model.

    Args: beta, alpha (lists of str replies and providers.Fault: each fake server's script); clock (the
    cascade's ManualClock; each attempt takes page 2's invented 0.6 s at Beta and 0.4 s at Alpha);
    alpha_model (str, the model the second route asks for; a smaller one makes the fallback a downgrade).
    Example: escalation_chain([Fault(OVERLOAD)] * 2, ["18.50"], clock)
    """
    routes = [Route("beta", BetaClient(timed(FakeBetaServer(beta), clock, BETA_LATENCY_S)), EXPENSIVE_MODEL,
                    CircuitBreaker("beta", clock)),
              Route("alpha", AlphaClient(timed(FakeAlphaServer(alpha), clock, ALPHA_LATENCY_S)), alpha_model,
                    CircuitBreaker("alpha", clock))]
    return FallbackChain(routes, clock)
