"""The split is a stable hash of the user; the guard trips only on a clear drop; rollback moves the label."""

import pytest

from evidencedesk.releases.canary import (PROMOTED, ROLLED_BACK, UNDECIDED, Guard, Request, bucket, in_canary,
                                          run_canary, traffic)
from evidencedesk.releases.prompts import PromptRegistry, PromptVersion
from evidencedesk.usage import ManualClock

V1 = PromptVersion(template="a", model="m-1", temperature=0.0, max_tokens=10)
V2 = V1.model_copy(update={"template": "b"})
GUARD = Guard("failed checks", 0.02, 100, 600.0)


def registry():
    reg = PromptRegistry()
    reg.point("production", reg.add(V1))
    reg.point("canary", V1.id)
    reg.point("canary", reg.add(V2))
    return reg


def test_the_split_is_stable_close_to_its_share_and_depends_on_the_salt():
    users = [f"u{i:05d}" for i in range(5000)]
    picked = [u for u in users if in_canary(u, 0.05, "rel-1")]
    assert picked == [u for u in users if in_canary(u, 0.05, "rel-1")]
    assert 200 <= len(picked) <= 300 and picked != [u for u in users if in_canary(u, 0.05, "rel-2")]
    assert all(in_canary(u, 0.10, "rel-1") for u in picked)  # a wider share keeps everyone already in
    assert not any(in_canary(u, 0, "rel-1") for u in users) and all(in_canary(u, 1, "rel-1") for u in users)
    with pytest.raises(ValueError):
        in_canary("u1", 1.5, "rel-1")
    with pytest.raises(ValueError):
        bucket("", "rel-1")


def test_the_guard_waits_for_its_minimum_sample_and_an_interval_clear_of_control():
    assert not GUARD.trips(50, 99, 0.09)           # too few requests, however bad
    assert GUARD.trips(27, 101, 0.09)              # 26.7% [19.1%, 36.1%] is clear of 11%
    assert not GUARD.trips(15, 101, 0.09)          # 14.9%: its interval still reaches below 11%
    with pytest.raises(ValueError):
        Guard("g", 0.02, 0, 600.0)


def test_a_bad_candidate_is_rolled_back_at_a_check_and_a_good_one_promoted():
    stream = traffic(["good", "bad"], 7200, 2.0, 5000)
    reg = registry()
    result = run_canary(stream, lambda case, on: on and case == "bad", 0.05, "rel-1", GUARD, reg, ManualClock())
    assert result.outcome == ROLLED_BACK and reg.current("canary") == V1.id and reg.current("production") == V1.id
    assert result.at % 600 == 0 and result.candidate.total >= 100 and result.checks[-1].endswith("TRIPPED")
    reg = registry()
    result = run_canary(stream, lambda case, on: False, 0.05, "rel-1", GUARD, reg, ManualClock())
    assert result.outcome == PROMOTED and reg.current("production") == V2.id and result.candidate.passed == 0


def test_the_stream_is_deterministic_and_checked():
    assert traffic(["a", "b"], 3, 2.0, 10) == [Request(0.0, "u00000", "a"), Request(2.0, "u00009", "b"),
                                               Request(4.0, "u00008", "a")]
    with pytest.raises(ValueError):
        traffic([], 3, 2.0, 10)


def test_a_canary_under_its_minimum_sample_is_undecided_not_promoted():
    stream = traffic(["good", "bad"], 7200, 2.0, 5000)
    reg = registry()
    result = run_canary(stream, lambda case, on: on and case == "bad", 0.01, "rel-1", GUARD, reg, ManualClock())
    assert result.candidate.total < GUARD.min_sample and result.candidate.value > 0.3
    assert result.outcome == UNDECIDED and reg.current("production") == V1.id and reg.current("canary") == V1.id


def test_requests_after_the_last_scheduled_check_are_checked_before_promotion():
    # 150 bad canary requests in the first 599 s: no scheduled check runs, the final one trips
    stream = [Request(i * 2.0, "u00001", "bad") for i in range(150)]
    guard = Guard("failed checks", 0.02, 100, 600.0)
    reg = registry()
    result = run_canary(stream, lambda case, on: on, 1.0, "rel-1", guard, reg, ManualClock())
    assert result.outcome == ROLLED_BACK and len(result.checks) == 1 and result.checks[0].endswith("TRIPPED")
    assert reg.current("production") == V1.id
