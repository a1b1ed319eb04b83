"""Fairness measures: water-filling shares, Jain's index and its reading, nearest-rank p95."""

from fractions import Fraction

import pytest

from evidencedesk.quotas.fairness import jain_index, max_min_shares, normalised, p95


def test_max_min_gives_small_demands_in_full_and_splits_the_rest():
    shares = max_min_shares({"a": 2, "b": 10, "c": 10}, 12)
    assert shares == {"a": 2, "b": 5, "c": 5} and sum(shares.values()) == 12


def test_max_min_never_gives_more_than_asked():
    assert max_min_shares({"a": 1, "b": 2}, 100) == {"a": 1, "b": 2}


def test_jain_is_one_when_equal_and_k_over_n_when_k_share():
    assert jain_index([3, 3, 3]) == 1
    assert jain_index([1, 1, 0, 0]) == Fraction(1, 2)
    assert jain_index([1, 0, 0, 0, 0]) == Fraction(1, 5)


def test_raw_throughput_calls_an_allocation_unfair_that_normalising_calls_fair():
    demands, served = {"light": 2, "heavy": 10}, {"light": 2, "heavy": 10}
    assert jain_index(served.values()) < 1
    assert jain_index(normalised(served, max_min_shares(demands, 12)).values()) == 1


@pytest.mark.parametrize("bad", [[], [0, 0], [1, -1]])
def test_jain_refuses_what_has_no_index(bad):
    with pytest.raises(ValueError, match="non-negative"):
        jain_index(bad)


def test_p95_is_nearest_rank():
    assert p95(list(range(1, 21))) == 19
