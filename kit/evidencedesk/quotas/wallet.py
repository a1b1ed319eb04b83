"""Denial of wallet: a daily spend cap per tenant that refuses a call before it is made, not after.

OWASP's LLM10:2025 Unbounded Consumption has "Denial of Wallet (DoW)" among its attack scenarios: excessive
operations that exploit pay-per-use pricing and cause unsustainable costs
(https://genai.owasp.org/llmrisk/llm102025-unbounded-consumption/, read 2026-12-03). Rate limits bound how fast
a tenant spends; only a cap bounds how much. SpendCap reuses the Beginner course's daily limits
(limits.UserLimits, keyed by tenant instead of user) with one addition that concurrency needs: the worst case of
a call (usage.cost_of its input tokens and its whole max_tokens) is reserved when the call is admitted, and
settled to its real cost when it ends. Checking the spend so far without the reservations lets every call in
flight pass the same check, and the cap is overrun by as many calls as run at once (the `reserve=False` switch
keeps that mistake to show it).
Left out: money in a real currency, caps per month or per user within a tenant, and alerts before the cap.
"""

from __future__ import annotations

import math
from decimal import Decimal

from evidencedesk.limits import DAILY_COST, DAY_S, DailyLimit, UserLimits
from evidencedesk.usage import ManualClock, Price, UsageRecord, cost_of

NO_CALL_LIMIT = 10**9  # SpendCap counts credits only; the rate limits count calls


class SpendCap:
    """A daily cap of credits per tenant, with the worst case of each call reserved until it ends.

    Args: caps (dict tenant -> Decimal credits per day, > 0); table (dict model -> usage.Price); clock
    (ManualClock; a day is limits.DAY_S seconds from 0); reserve (bool, default True; False is the mistake).
    Raises KeyError naming a tenant without a cap (refusal), UnknownModel for an unpriced model.
    Example: SpendCap({"a": Decimal("1")}, load_prices(), clock).refusal("a", "small-model-1", 800, 400) -> ""
    """

    def __init__(self, caps: dict[str, Decimal], table: dict[str, Price], clock: ManualClock,
                 reserve: bool = True) -> None:
        self.limits = {tenant: UserLimits(DailyLimit(max_calls=NO_CALL_LIMIT, max_cost=cap), clock)
                       for tenant, cap in caps.items()}
        self.table, self.clock, self.reserve = table, clock, reserve

    def worst_cost(self, model: str, input_tokens: int, max_tokens: int) -> Decimal:
        """The most a call could cost (Decimal credits): its input and its whole max_tokens of output."""
        return cost_of(UsageRecord("next", model, input_tokens, max_tokens), self.table)

    def refusal(self, tenant: str, model: str, input_tokens: int,
                max_tokens: int) -> str:
        """limits.DAILY_COST when the call's worst case could take today's
        spend past the tenant's cap, else ""."""
        if tenant not in self.limits:
            raise KeyError(f"tenant {tenant!r} has no spend cap")
        worst = self.worst_cost(model, input_tokens, max_tokens)
        return self.limits[tenant].refusal(tenant, worst)

    def admit(self, tenant: str, model: str, input_tokens: int,
              max_tokens: int) -> Decimal:
        """Record an admitted call: hold its worst case (nothing when
        reserve=False). Returns the credits held."""
        held = Decimal(0)
        if self.reserve:
            held = self.worst_cost(model, input_tokens, max_tokens)
        self.limits[tenant].charge(tenant, held, calls=1)
        return held

    def settle(self, tenant: str, model: str, input_tokens: int,
               output_tokens: int, held: Decimal) -> None:
        """The call ended: replace what admit() held by its real cost, with
        the output_tokens it produced."""
        real = cost_of(UsageRecord("done", model, input_tokens, output_tokens),
                       self.table)
        self.limits[tenant].charge(tenant, real - held, calls=0)

    def spent(self, tenant: str) -> Decimal:
        """Credits spent or held by the tenant today."""
        return self.limits[tenant].used(tenant)[1]

    def resets_in_s(self) -> int:
        """Whole seconds until every tenant's day starts again (limits.DAY_S days from clock 0)."""
        return math.ceil(DAY_S - self.clock() % DAY_S)


__all__ = ["DAILY_COST", "NO_CALL_LIMIT", "SpendCap"]
