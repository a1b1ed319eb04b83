"""Break-even escalation rates in credits and seconds (evidencedesk.routing.breakeven)."""

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evidencedesk.routing.breakeven import break_even, cascade_cost, latency_break_even


def test_at_break_even_the_cascade_costs_what_the_expensive_model_costs():
    cheap, verify, expensive = Decimal(1), Decimal(1), Decimal(12)
    rate = break_even(cheap, verify, expensive)
    assert rate == 1 - Decimal(2) / Decimal(12)
    assert cascade_cost(rate, cheap, verify, expensive) == expensive


def test_a_verifier_as_dear_as_the_expensive_model_never_pays():
    assert break_even(Decimal(1), Decimal(12), Decimal(12)) < 0


def test_latency_break_even_by_hand():
    assert latency_break_even(0.5, 0.3, 2.0) == pytest.approx(0.6)
    assert latency_break_even(0.4, 0.3, 0.6) < 0


amounts = st.decimals(min_value=0, max_value=100, places=3)


@settings(max_examples=200, derandomize=True, database=None)
@given(amounts, amounts, amounts.filter(lambda x: x > 0), st.decimals(min_value=0, max_value=1, places=3))
def test_cheaper_exactly_below_break_even(cheap, verify, expensive, rate):
    saving = cascade_cost(rate, cheap, verify, expensive) < expensive
    assert saving == (rate < break_even(cheap, verify, expensive))


@pytest.mark.parametrize("bad", [Decimal(-1), Decimal("NaN"), 1.0])
def test_bad_amounts_are_refused_by_name(bad):
    with pytest.raises(ValueError, match="cheap"):
        break_even(bad, Decimal(1), Decimal(2))


def test_a_free_expensive_model_and_a_bad_rate_are_refused():
    with pytest.raises(ValueError, match="expensive"):
        break_even(Decimal(1), Decimal(1), Decimal(0))
    with pytest.raises(ValueError, match="rate"):
        cascade_cost(Decimal("1.5"), Decimal(1), Decimal(1), Decimal(2))
    with pytest.raises(ValueError, match="expensive_s"):
        latency_break_even(0.5, 0.3, 0)
