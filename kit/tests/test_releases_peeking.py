"""The exact false-alarm chance: one look keeps it near the interval's promise, many looks raise it."""

import math

import pytest

from evidencedesk.evals.stats import wilson
from evidencedesk.releases.peeking import false_alarm, first_tripping

P = 3 / 34


def test_first_tripping_is_the_smallest_count_above_the_threshold():
    for n in (1, 10, 100, 400):
        k = first_tripping(n, P)
        assert wilson(k, n).low > P and (k == 0 or wilson(k - 1, n).low <= P)
    assert first_tripping(5, 0.999) is None


def test_one_look_matches_the_binomial_tail():
    k = first_tripping(400, P)
    tail = sum(math.comb(400, i) * P**i * (1 - P) ** (400 - i) for i in range(k, 401))
    assert false_alarm(P, P, [400]) == pytest.approx(tail, rel=1e-9)
    assert 0.02 < tail < 0.03


def test_more_looks_mean_more_false_alarms_and_a_tolerance_fewer():
    once, every_10, every_1 = (false_alarm(P, P, looks) for looks in ([400], range(10, 401, 10), range(1, 401)))
    assert once < every_10 < every_1 and every_1 > 0.3
    assert false_alarm(P, P + 0.02, range(10, 401, 10)) < every_10
    assert false_alarm(P, P, range(1, 401), min_sample=100) < every_1


def test_bad_looks_are_refused():
    with pytest.raises(ValueError):
        false_alarm(P, P, [10, 10])
    with pytest.raises(ValueError):
        false_alarm(P, P, [])
