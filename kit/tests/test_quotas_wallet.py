"""The daily spend cap: refuse before the call, reserve the worst case, settle the real cost, reset each day."""

from decimal import Decimal

import pytest

from evidencedesk.limits import DAILY_COST, DAY_S
from evidencedesk.quotas.wallet import SpendCap
from evidencedesk.usage import ManualClock, load_prices

MODEL = "small-model-1"  # 0.000001 per input token, 0.000004 per output token


def test_worst_cost_counts_the_whole_max_tokens():
    cap = SpendCap({"a": Decimal("1")}, load_prices(), ManualClock())
    assert cap.worst_cost(MODEL, 400, 500) == Decimal("0.0024")


def test_refuses_before_the_call_that_could_pass_the_cap():
    cap = SpendCap({"a": Decimal("0.005")}, load_prices(), ManualClock())
    held = [cap.admit("a", MODEL, 400, 500) for _ in range(2)]
    assert held == [Decimal("0.0024")] * 2
    assert cap.refusal("a", MODEL, 400, 500) == DAILY_COST


def test_settling_replaces_the_reservation_by_the_real_cost():
    cap = SpendCap({"a": Decimal("1")}, load_prices(), ManualClock())
    held = cap.admit("a", MODEL, 400, 500)
    cap.settle("a", MODEL, 400, 300, held)
    assert cap.spent("a") == Decimal("0.0016")


def test_without_reservations_calls_in_flight_overrun_the_cap():
    for reserve, admitted in ((True, 2), (False, 10)):
        cap = SpendCap({"a": Decimal("0.005")}, load_prices(), ManualClock(), reserve=reserve)
        started = [cap.admit("a", MODEL, 400, 500) for _ in range(10) if not cap.refusal("a", MODEL, 400, 500)]
        assert len(started) == admitted


def test_the_cap_is_per_tenant_and_resets_the_next_day():
    clock = ManualClock()
    cap = SpendCap({"a": Decimal("0.003"), "b": Decimal("0.003")}, load_prices(), clock)
    cap.admit("a", MODEL, 400, 500)
    assert cap.refusal("a", MODEL, 400, 500) == DAILY_COST and cap.refusal("b", MODEL, 400, 500) == ""
    assert cap.resets_in_s() == DAY_S
    clock.advance(DAY_S)
    assert cap.refusal("a", MODEL, 400, 500) == ""


def test_a_tenant_without_a_cap_is_an_error_not_unlimited():
    with pytest.raises(KeyError, match="no spend cap"):
        SpendCap({}, load_prices(), ManualClock()).refusal("a", MODEL, 1, 1)
