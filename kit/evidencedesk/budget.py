"""A per-run budget, checked before every spend, and the per-call timeout it works with.

RunBudget sets three limits for one run of model calls: calls (steps), seconds on the injected clock,
and credits. BudgetedClient wraps any LLMClient: before each call it asks whether the call could cross a
limit, assuming the worst for cost (the estimated input plus the whole output allowance), and refuses
with BudgetExceeded if so; after each call it writes the usage to the ledger. Refusing before the spend
is the point: a check after the call can only report that the money is gone. TimeoutClient (a per-call
limit, defined in usage.py beside SlowClient) is re-exported here. The agent loop's RunBudget
(agent/loop.py) is this one plus a limit on failed steps in a row, and its check uses the same rules.
Left out: budgets shared between runs or users (limits.py), and cancelling a call in flight.
"""

from __future__ import annotations

from decimal import Decimal

from pydantic import BaseModel, ConfigDict, Field

from evidencedesk.llm import LLMClient, LLMRequest, LLMResponse, request_tokens
from evidencedesk.usage import (  # noqa: F401 -- CallTimeout, TimeoutClient: the per-call limit, re-exported
    CallTimeout,
    Ledger,
    ManualClock,
    TimeoutClient,
    UsageRecord,
    cost_of,
    record_usage,
)

STEP_BUDGET = "step_budget"  # the run has made max_steps calls
TIME_BUDGET = "time_budget"  # max_seconds have passed on the clock since the run began
COST_BUDGET = "cost_budget"  # the next call could take the run's spend past max_cost


class RunBudget(BaseModel):
    """Limits for one run, checked before every model call.

    max_steps (int, model calls), max_seconds (float, seconds on the injected clock),
    max_cost (Decimal, credits; an invented unit).
    Strict: no strings or bools for numbers, no float for max_cost, no NaN or infinity.
    Raises pydantic.ValidationError naming the field when a limit is not > 0, of the wrong type, or unknown.
    Example: RunBudget(max_cost=Decimal("0.002"))
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)
    max_steps: int = Field(default=8, gt=0)
    max_seconds: float = Field(default=60.0, gt=0)
    max_cost: Decimal = Field(default=Decimal("0.05"), gt=0)


class BudgetExceeded(RuntimeError):
    """A call was refused before it started, because it could cross a limit. reason: STEP_, TIME_ or COST_BUDGET.

    Example: except BudgetExceeded as refused: print(refused.reason)
    """

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason


def worst_case_cost(request: LLMRequest, table: dict) -> Decimal:
    """The most the request could cost (Decimal, credits): estimated input plus the whole output allowance.

    Args: request (LLMRequest); table (dict model -> usage.Price). Raises UnknownModel for an unpriced model.
    Example: worst_case_cost(LLMRequest("small-model-1", [Message("user", "hi")], 100), load_prices())
    """
    return cost_of(UsageRecord("next", request.model, request_tokens(request), request.max_tokens), table)


class BudgetedClient:
    """Wraps a client with a RunBudget: refuses a call that could cross a limit, records each call it makes.

    Args: inner (LLMClient); budget (RunBudget); ledger (Ledger: spend so far, credits, and the price table);
    clock (ManualClock or any callable returning seconds; the run starts when the client is made);
    run_id (str, the prefix of call ids in the ledger).
    Raises (complete): BudgetExceeded before the call; whatever inner.complete raises.
    Example: BudgetedClient(ScriptedClient(["ok"]), RunBudget(max_steps=1), Ledger(), ManualClock())
    """

    def __init__(self, inner: LLMClient, budget: RunBudget, ledger: Ledger, clock: ManualClock,
                 run_id: str = "run-1") -> None:
        self.inner, self.budget, self.ledger, self.clock, self.run_id = inner, budget, ledger, clock, run_id
        self.start = clock()
        self.calls = 0  # calls started, failed ones included

    def over_budget(self, request: LLMRequest, wait_s: float = 0.0) -> str:
        """Why the next call may not start (after waiting wait_s seconds), or "" when it may."""
        b = self.budget
        if self.calls >= b.max_steps:
            return STEP_BUDGET
        if self.clock() + wait_s - self.start >= b.max_seconds:
            return TIME_BUDGET
        if self.ledger.summary().cost + worst_case_cost(request, self.ledger.table) > b.max_cost:
            return COST_BUDGET
        return ""

    def complete(self, request: LLMRequest) -> LLMResponse:
        """Check the budget, make the call, record its usage. Raises BudgetExceeded instead of spending."""
        if reason := self.over_budget(request):
            spent = self.ledger.summary().cost
            raise BudgetExceeded(reason, f"{self.calls} calls, {self.clock() - self.start:.2f} s, {spent} credits")
        self.calls += 1
        response = self.inner.complete(request)
        self.ledger.add(record_usage(request, response, f"{self.run_id}-c{self.calls}"))
        return response
