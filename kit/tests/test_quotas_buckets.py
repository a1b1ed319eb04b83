"""Token buckets: continuous refill in exact fractions, a Retry-After that is never too early, both or nothing."""

from fractions import Fraction

import pytest

from evidencedesk.quotas.buckets import RateLimits, TokenBucket, TooLarge
from evidencedesk.usage import ManualClock


def test_a_full_bucket_serves_its_burst_then_says_how_long_to_wait():
    clock = ManualClock()
    bucket = TokenBucket(per_minute=6, clock=clock)  # one unit every 10 s, a burst of 6
    assert [bucket.take(1) for _ in range(7)] == [0, 0, 0, 0, 0, 0, 10]
    clock.advance(9)
    assert bucket.take(1) == 1  # 0.9 of a unit: one more second, rounded up
    clock.advance(1)
    assert bucket.take(1) == 0


def test_refill_is_continuous_and_exact_and_capped():
    clock = ManualClock()
    bucket = TokenBucket(per_minute=7, clock=clock, capacity=3)
    bucket.take(3)
    clock.advance(1)
    assert bucket.available() == Fraction(7, 60)
    clock.advance(10_000)
    assert bucket.available() == 3


def test_a_refused_take_takes_nothing():
    clock = ManualClock()
    bucket = TokenBucket(per_minute=60, clock=clock, capacity=5)
    bucket.take(4)
    assert bucket.take(2) == 1 and bucket.available() == 1


def test_more_than_the_capacity_is_too_large_not_a_wait():
    with pytest.raises(TooLarge, match="no wait helps"):
        TokenBucket(per_minute=100, clock=ManualClock()).wait_s(101)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "6"])
def test_bad_rates_are_refused_by_name(bad):
    with pytest.raises(ValueError, match="per_minute"):
        TokenBucket(per_minute=bad, clock=ManualClock())


def test_a_clock_that_goes_back_is_an_error():
    clock = ManualClock(10.0)
    bucket = TokenBucket(60, clock)
    clock.now = 5.0
    with pytest.raises(ValueError, match="went back"):
        bucket.available()


def test_rate_limits_take_from_both_buckets_or_from_neither():
    clock = ManualClock()
    limits = RateLimits(rpm=60, tpm=1_000, clock=clock)
    assert limits.admit(900) == 0
    assert limits.admit(900) == 48  # tokens are short: 800 missing at 1,000 a minute
    assert limits.requests.available() == 59  # the refused call took no request
    assert limits.tokens.available() == 100


def test_the_wait_is_the_longer_of_the_two():
    clock = ManualClock()
    limits = RateLimits(rpm=1, tpm=1_000_000, clock=clock)
    assert limits.admit(10) == 0 and limits.wait_s(10) == 60
