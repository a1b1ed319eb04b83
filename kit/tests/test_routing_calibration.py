"""The verifier's reliability table (evidencedesk.routing.calibration)."""

from decimal import Decimal

import pytest

from evidencedesk.routing.calibration import EDGES, reliability


def test_buckets_count_and_rate_by_hand():
    scored = [(Decimal("0.9"), True), (Decimal("0.9"), False), (Decimal("0.3"), False), (Decimal("1"), True)]
    buckets = reliability(scored)
    assert len(buckets) == len(EDGES) - 1
    low, *_, high = buckets
    assert (low.right.passed, low.right.total) == (0, 1)
    assert buckets[3].right.total == 2 and buckets[3].right.passed == 1
    assert (high.right.passed, high.right.total) == (1, 1)  # 1 falls in the last bucket
    assert buckets[1].right is None


def test_every_pair_lands_in_exactly_one_bucket():
    scored = [(Decimal(n) / 100, n % 3 == 0) for n in range(101)]
    assert sum(b.right.total for b in reliability(scored) if b.right) == 101


@pytest.mark.parametrize("edges", [(Decimal(0), Decimal("0.5")), (Decimal("0.5"), Decimal(0), Decimal(1))])
def test_bad_edges_are_refused(edges):
    with pytest.raises(ValueError, match="edges"):
        reliability([], edges)


def test_a_confidence_out_of_range_is_refused():
    with pytest.raises(ValueError, match="confidence"):
        reliability([(Decimal("1.2"), True)])
