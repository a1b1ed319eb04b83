"""Tests for evidencedesk.limits: per-user limits on calls and credits over a day of the manual clock."""

from __future__ import annotations

from decimal import Decimal

import pytest
from pydantic import ValidationError

from evidencedesk.budget import worst_case_cost
from evidencedesk.limits import (
    DAILY_CALLS,
    DAILY_COST,
    DAY_S,
    DailyLimit,
    LimitedClient,
    UsageLimitReached,
    UserLimits,
)
from evidencedesk.llm import LLMRequest, Message, ScriptedClient
from evidencedesk.usage import ManualClock, load_prices

PRICES = load_prices()


def ask(max_tokens: int = 100) -> LLMRequest:
    return LLMRequest("small-model-1", [Message("user", "Where is my parcel?")], max_tokens=max_tokens)


def client(limits: UserLimits, user: str, replies: int = 50) -> LimitedClient:
    return LimitedClient(ScriptedClient(["On its way."] * replies, model="small-model-1"), limits, user, PRICES)


def test_a_user_is_refused_after_max_calls_and_others_are_not() -> None:
    limits = UserLimits(DailyLimit(max_calls=2), ManualClock())
    kwame, lena = client(limits, "kwame"), client(limits, "lena")
    kwame.complete(ask())
    kwame.complete(ask())
    with pytest.raises(UsageLimitReached) as refused:
        kwame.complete(ask())
    assert (refused.value.user_id, refused.value.reason, refused.value.resets_at_s) == ("kwame", DAILY_CALLS, DAY_S)
    assert lena.complete(ask()).text == "On its way." and limits.used("kwame")[0] == 2


def test_the_credit_limit_refuses_before_the_spend() -> None:
    limit = Decimal("0.001")
    limits = UserLimits(DailyLimit(max_cost=limit), ManualClock())
    kwame = client(limits, "kwame")
    with pytest.raises(UsageLimitReached, match=DAILY_COST):
        for _ in range(50):
            kwame.complete(ask())
    calls, spent = limits.used("kwame")
    assert 1 < calls < 50 and spent <= limit < spent + worst_case_cost(ask(), PRICES)


def test_the_allowance_comes_back_when_the_next_day_starts() -> None:
    clock = ManualClock()
    limits = UserLimits(DailyLimit(max_calls=1), clock)
    kwame = client(limits, "kwame")
    kwame.complete(ask())
    clock.advance(DAY_S - 1)  # 23:59:59 on day 0: still refused
    with pytest.raises(UsageLimitReached):
        kwame.complete(ask())
    clock.advance(1)  # day 1 starts
    assert limits.day() == 1 and limits.used("kwame") == (0, Decimal(0))
    kwame.complete(ask())
    assert limits.used("kwame")[0] == 1


def test_a_fixed_window_lets_a_user_spend_twice_around_midnight() -> None:
    """The known cost of a fixed daily window: max_calls just before midnight and again just after."""
    clock = ManualClock(DAY_S - 10)
    limits = UserLimits(DailyLimit(max_calls=3), clock)
    kwame = client(limits, "kwame")
    for _ in range(3):
        kwame.complete(ask())
    clock.advance(20)
    for _ in range(3):
        kwame.complete(ask())
    assert limits.day() == 1 and limits.used("kwame")[0] == 3


def test_a_failed_call_counts_as_a_call_and_costs_nothing() -> None:
    limits = UserLimits(DailyLimit(max_calls=5), ManualClock())
    broken = LimitedClient(ScriptedClient([]), limits, "kwame", PRICES)
    with pytest.raises(Exception, match="used up"):
        broken.complete(ask())
    assert limits.used("kwame") == (1, Decimal(0))


def test_a_refused_call_never_reaches_the_model() -> None:
    limits = UserLimits(DailyLimit(max_calls=1), ManualClock())
    scripted = ScriptedClient(["a", "b"], model="small-model-1")
    limited = LimitedClient(scripted, limits, "kwame", PRICES)
    limited.complete(ask())
    with pytest.raises(UsageLimitReached):
        limited.complete(ask())
    assert len(scripted.requests) == 1


@pytest.mark.parametrize(("field", "value"), [("max_calls", 0), ("max_calls", "5"), ("max_cost", 0.1),
                                              ("max_cost", Decimal("NaN")), ("per_hour", 3)])
def test_daily_limit_is_strict(field: str, value: object) -> None:
    with pytest.raises(ValidationError) as exc:
        DailyLimit(**{field: value})
    assert exc.value.errors()[0]["loc"] == (field,)
