"""Crash: it fires at its boundary only, raises a named exception, refuses an unknown boundary, and a hard
crash ends a real process with CRASH_EXIT."""

import subprocess
import sys

import pytest
from pydantic import ValidationError

from evidencedesk.outbox.crash import CRASH_EXIT, CRASH_POINTS, Boundary, Crash, SimulatedCrash


def test_it_fires_only_at_its_boundary():
    crash = Crash(at="after_send")
    for here in Boundary:
        if here is Boundary.AFTER_SEND:
            with pytest.raises(SimulatedCrash) as caught:
                crash.reach(here)
            assert caught.value.at is Boundary.AFTER_SEND and "after_send" in str(caught.value)
        else:
            assert crash.reach(here) is None


def test_none_never_fires_and_the_points_are_the_four_boundaries():
    for here in Boundary:
        Crash().reach(here)
    assert [b.value for b in CRASH_POINTS] == ["before_commit", "after_commit", "after_send", "after_mark"]


def test_an_unknown_boundary_is_refused_by_name():
    with pytest.raises(ValidationError, match="at"):
        Crash(at="after_lunch")


def test_a_hard_crash_ends_the_process_with_no_cleanup():
    code = ("from evidencedesk.outbox.crash import Boundary, Crash\n"
            "try:\n    Crash(at='after_commit', hard=True).reach(Boundary.AFTER_COMMIT)\n"
            "finally:\n    print('cleanup ran')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == CRASH_EXIT and "cleanup ran" not in done.stdout
