"""Tests of evidencedesk.redteam.measure: confusion counts, rates with Wilson intervals, the chosen threshold,
and precision at a prevalence."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evidencedesk.evals.stats import wilson
from evidencedesk.redteam.measure import Counts, choose_threshold, count, curve, precision_at
from evidencedesk.redteam.traffic import load_traffic

TUNE, HOLDOUT = load_traffic(split="tune"), load_traffic(split="holdout")


def test_counts_add_up_and_rates_are_wilson() -> None:
    c = count(TUNE, 2)
    assert (c.tp + c.fn, c.fp + c.tn) == (18, 32)
    assert c.recall == wilson(c.tp, 18) and c.fpr == wilson(c.fp, 32) and c.precision == wilson(c.tp, c.tp + c.fp)
    assert Counts(0, 3, 0, 5, 9).precision is None


def test_raising_the_threshold_never_flags_more() -> None:
    points = curve(TUNE + HOLDOUT)
    flagged = [c.tp + c.fp for c in points]
    assert flagged == sorted(flagged, reverse=True) and flagged[-1] == 0


def test_the_threshold_is_chosen_on_tune_and_scores_lower_on_holdout() -> None:
    chosen = choose_threshold(TUNE)
    assert chosen.threshold == 2 and chosen.fpr.value <= 0.10
    assert all(c.recall.value <= chosen.recall.value for c in curve(TUNE) if c.fpr.value <= 0.10)
    assert count(HOLDOUT, chosen.threshold).recall.value < chosen.recall.value


def test_precision_at_follows_bayes_rule() -> None:
    assert precision_at(0.9, 0.05, 0.01) == pytest.approx(0.009 / (0.009 + 0.0495))
    assert precision_at(0.9, 0.0, 0.001) == 1.0


@given(st.floats(0.01, 1), st.floats(0.01, 1), st.floats(0.001, 0.5), st.floats(0.001, 0.5))
def test_lower_prevalence_never_raises_precision(recall: float, fpr: float, low: float, high: float) -> None:
    low, high = sorted((low, high))
    assert precision_at(recall, fpr, low) <= precision_at(recall, fpr, high) + 1e-12


def test_bad_rates_are_refused() -> None:
    with pytest.raises(ValueError, match="prevalence must be a rate"):
        precision_at(0.5, 0.5, 1.5)
    with pytest.raises(ValueError, match="undefined"):
        precision_at(0.0, 0.0, 0.5)
    with pytest.raises(ValueError, match="max_fpr must be"):
        choose_threshold(TUNE, max_fpr=2)
    with pytest.raises(ValueError, match="at least one attack and one benign"):
        choose_threshold([m for m in TUNE if m.label == "attack"])
