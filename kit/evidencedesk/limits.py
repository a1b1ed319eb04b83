"""Per-user usage limits over a day on the injected clock: how many calls and credits each user may spend.

A day is 86,400 seconds of the ManualClock counted from 0: day 0 is [0, 86400), day 1 the next, and so
on. Every user's counts start again at the same moment (a fixed daily window, not a rolling 24 hours).
LimitedClient checks the user's allowance before each call, assuming the worst cost as budget.py does,
and charges the real cost afterwards. A run budget protects you from one runaway run; a daily limit
protects you from one user (or one stolen account) starting run after run.
Left out: rolling windows, per-minute rate limits (the provider's RateLimited is one), and keeping the
counts anywhere but in memory.
"""

from __future__ import annotations

from decimal import Decimal

from pydantic import BaseModel, ConfigDict, Field

from evidencedesk.budget import worst_case_cost
from evidencedesk.llm import LLMClient, LLMRequest, LLMResponse
from evidencedesk.usage import ManualClock, Price, cost_of, record_usage

DAY_S = 86_400  # seconds in one day of the manual clock
DAILY_CALLS = "daily_calls"  # the user has made max_calls calls today
DAILY_COST = "daily_cost"  # the next call could take the user's spend today past max_cost


class DailyLimit(BaseModel):
    """What one user may spend per day: max_calls (int, calls) and max_cost (Decimal, credits).

    Strict like budget.RunBudget. Raises pydantic.ValidationError naming the field.
    Example: DailyLimit(max_calls=20, max_cost=Decimal("0.01"))
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)
    max_calls: int = Field(default=100, gt=0)
    max_cost: Decimal = Field(default=Decimal("0.10"), gt=0)


class UsageLimitReached(RuntimeError):
    """A user's call was refused by their daily limit. Attributes: user_id, reason (DAILY_CALLS or DAILY_COST),
    resets_at_s (float, the clock time in seconds when the user's next day starts)."""

    def __init__(self, user_id: str, reason: str, resets_at_s: float) -> None:
        super().__init__(f"{user_id}: {reason}; the allowance resets at {resets_at_s:.0f} s")
        self.user_id, self.reason, self.resets_at_s = user_id, reason, resets_at_s


class UserLimits:
    """Calls and credits per user for the current day of the clock; a new day starts everyone at zero.

    Args: limit (DailyLimit); clock (ManualClock or any callable returning seconds).
    Example: limits = UserLimits(DailyLimit(max_calls=2), clock); limits.refusal("kwame", Decimal(0)) -> ""
    """

    def __init__(self, limit: DailyLimit, clock: ManualClock) -> None:
        self.limit, self.clock = limit, clock
        self._day = -1
        self._used: dict[str, tuple[int, Decimal]] = {}  # user -> (calls, credits) today

    def day(self) -> int:
        """Today's number: 0 for the first 86,400 seconds of the clock, then 1, 2, ..."""
        return int(self.clock() // DAY_S)

    def used(self, user_id: str) -> tuple[int, Decimal]:
        """(calls, credits) the user has used today; counts from an earlier day are forgotten."""
        if self.day() != self._day:
            self._day, self._used = self.day(), {}
        return self._used.get(user_id, (0, Decimal(0)))

    def refusal(self, user_id: str, worst_cost: Decimal) -> str:
        """Why the user's next call (costing at most worst_cost credits) may not start today, or ""."""
        calls, spent = self.used(user_id)
        if calls >= self.limit.max_calls:
            return DAILY_CALLS
        if spent + worst_cost > self.limit.max_cost:
            return DAILY_COST
        return ""

    def charge(self, user_id: str, cost: Decimal, calls: int = 1) -> None:
        """Add calls (int) and cost (Decimal, credits) to the user's use today."""
        used_calls, spent = self.used(user_id)
        self._used[user_id] = (used_calls + calls, spent + cost)


class LimitedClient:
    """Wraps a client for one user: refuses a call their daily limit cannot cover, charges what it cost.

    Args: inner (LLMClient); limits (UserLimits, shared by every user's client); user_id (str);
    table (dict model -> Price, credits per token). A call that fails still counts as a call (0 credits).
    Raises (complete): UsageLimitReached before the call; whatever inner.complete raises.
    Example: LimitedClient(ScriptedClient(["ok"]), limits, "kwame", load_prices()).complete(request)
    """

    def __init__(self, inner: LLMClient, limits: UserLimits, user_id: str, table: dict[str, Price]) -> None:
        self.inner, self.limits, self.user_id, self.table = inner, limits, user_id, table

    def complete(self, request: LLMRequest) -> LLMResponse:
        """Check the user's allowance, make the call, charge its real cost."""
        if reason := self.limits.refusal(self.user_id, worst_case_cost(request, self.table)):
            raise UsageLimitReached(self.user_id, reason, (self.limits.day() + 1) * DAY_S)
        self.limits.charge(self.user_id, Decimal(0))  # the call counts as soon as it starts
        response = self.inner.complete(request)
        self.limits.charge(self.user_id, cost_of(record_usage(request, response, "daily"), self.table), calls=0)
        return response
