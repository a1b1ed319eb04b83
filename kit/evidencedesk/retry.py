"""Retries with capped exponential backoff that stop before the run's budget would be crossed.

RetryClient retries only errors that say `retryable` (llm.RateLimited and llm.LLMTimeout, usage.CallTimeout
included): the same request may succeed a moment later. BadRequest and MalformedResponse go straight to
the caller, since the same request fails the same way again. The wait after failed attempt n is
base_s * 2**(n-1) seconds, at most cap_s, or the provider's retry_after_s when that is longer; if the
provider asks for more than cap_s, RetryClient gives up rather than wait that long. Before every wait it
asks the run's BudgetedClient whether the retry could still start after the wait, and stops with
BudgetExceeded if not, instead of waiting for a call the budget would refuse anyway.
Waits move the ManualClock; a real client sleeps, and adds random jitter so that many clients do not
retry in step (Marc Brooker, "Exponential Backoff And Jitter", AWS Architecture Blog, 2015:
https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/). The kit leaves jitter out to
stay deterministic. Also left out: retrying a stream halfway, and retry budgets shared between runs.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field, model_validator

from evidencedesk.budget import BudgetedClient, BudgetExceeded
from evidencedesk.llm import LLMClient, LLMError, LLMRequest, LLMResponse
from evidencedesk.usage import ManualClock


class RetryPolicy(BaseModel):
    """How to retry: max_attempts (int, 1-20, the first try included), base_s and cap_s (float, seconds).

    Strict, like budget.RunBudget. Raises pydantic.ValidationError naming the field, or when cap_s < base_s.
    Example: RetryPolicy(max_attempts=4, base_s=0.5, cap_s=4.0).backoff(3) -> 2.0
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)
    max_attempts: int = Field(default=4, ge=1, le=20)
    base_s: float = Field(default=0.5, gt=0)
    cap_s: float = Field(default=4.0, gt=0)

    @model_validator(mode="after")
    def cap_at_least_base(self) -> RetryPolicy:
        if self.cap_s < self.base_s:
            raise ValueError(f"cap_s ({self.cap_s}) must be at least base_s ({self.base_s})")
        return self

    def backoff(self, attempt: int) -> float:
        """Seconds to wait after failed attempt number `attempt` (1-based): base_s doubled each time, capped."""
        return min(self.cap_s, self.base_s * 2 ** (attempt - 1))


@dataclass(frozen=True)
class Attempt:
    """One attempt as RetryClient logs it: number (int, from 1), outcome ("ok" or an error code), and
    then: what came next ("done", "wait 0.50 s", "give up: <why>" or "stop: <budget reason>")."""

    number: int
    outcome: str
    then: str

    def __str__(self) -> str:
        return f"attempt {self.number}: {self.outcome} -> {self.then}"


class RetryClient:
    """Wraps a client and retries retryable errors with capped backoff, within the run's budget.

    Args: inner (LLMClient); clock (ManualClock, which the waits advance); policy (RetryPolicy);
    budget (BudgetedClient or None: the run's budget, asked before each wait). `log` holds every Attempt.
    Raises (complete): the last error when it is not retryable, attempts run out, or the provider asks for
    a wait longer than cap_s; BudgetExceeded (from that error) when the budget would refuse the retry.
    Example: RetryClient(AlphaClient(FakeAlphaServer([Fault(RATE_LIMIT), "ok"])), clock).complete(request)
    """

    def __init__(self, inner: LLMClient, clock: ManualClock, policy: RetryPolicy | None = None,
                 budget: BudgetedClient | None = None) -> None:
        self.inner, self.clock, self.budget = inner, clock, budget
        self.policy = policy if policy is not None else RetryPolicy()
        self.log: list[Attempt] = []

    def complete(self, request: LLMRequest) -> LLMResponse:
        """Try, and on a retryable error wait and try again, until done or a reason to stop."""
        attempt = 1
        while True:  # ends: the last attempt allowed either returns or raises
            try:
                response = self.inner.complete(request)
            except LLMError as error:
                self.clock.advance(self._wait_or_raise(error, attempt, request))
                attempt += 1
            else:
                self.log.append(Attempt(attempt, "ok", "done"))
                return response

    def _wait_or_raise(self, error: LLMError, attempt: int, request: LLMRequest) -> float:
        """The seconds to wait before the next attempt; raises instead when there should be none."""
        wait_s = max(self.policy.backoff(attempt), getattr(error, "retry_after_s", 0.0))  # the provider's, if longer
        if why := self._no_retry(error, attempt, wait_s):
            self.log.append(Attempt(attempt, error.code, f"give up: {why}"))
            raise error
        if self.budget is not None and (reason := self.budget.over_budget(request, wait_s)):
            self.log.append(Attempt(attempt, error.code, f"stop: {reason}"))
            raise BudgetExceeded(reason, f"no retry after {error.code} (attempt {attempt})") from error
        self.log.append(Attempt(attempt, error.code, f"wait {wait_s:.2f} s"))
        return wait_s

    def _no_retry(self, error: LLMError, attempt: int, wait_s: float) -> str:
        """Why this failure gets no retry at all, or "" when it may get one."""
        if not error.retryable:
            return "not retryable"  # the same request fails the same way again
        if attempt == self.policy.max_attempts:
            return "out of attempts"
        if wait_s > self.policy.cap_s:
            return f"asked to wait {wait_s:.2f} s, over the {self.policy.cap_s:.2f} s cap"
        return ""
