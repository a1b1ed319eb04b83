"""Where a process can die between a decision and its side effect, and a death the tests can stage.

A reply goes through four boundaries: the transaction that records it commits, the relay sends it, the
relay marks it sent. Boundary names the points between them (and NONE for a run that never dies).
Crash(at=...) is handed to the code under test, which calls crash.reach(point) at each boundary; at the
chosen one it raises SimulatedCrash, or with hard=True ends the process at once with os._exit (no
cleanup, no finally blocks, no flush: as close to a kill as Python gets). The caller of a simulated crash
must then throw away every object of the dead process and reopen the databases, so that only what was
committed survives.
Left out: a crash inside SQLite's own commit (SQLite's journal handles it, see store.py), a torn write
on a disk that lies about fsync, and a crash of the machine rather than the process.
"""

from __future__ import annotations

import os
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

CRASH_EXIT = 137  # the exit status of a hard crash: what a shell reports for a process killed by SIGKILL


class Boundary(StrEnum):
    """The points of a reply's life where a process can die, in the order a reply reaches them."""

    NONE = "none"  # never crash
    BEFORE_COMMIT = "before_commit"  # state change and outbox row written, not committed
    AFTER_COMMIT = "after_commit"  # committed, not yet sent
    AFTER_SEND = "after_send"  # the receiver has it, the outbox row is not marked
    AFTER_MARK = "after_mark"  # sent and marked


CRASH_POINTS = tuple(b for b in Boundary if b is not Boundary.NONE)  # every boundary a test crashes at


class SimulatedCrash(Exception):
    """The process 'died' at a boundary: catch it only where a supervisor would restart the process."""

    def __init__(self, at: Boundary) -> None:
        super().__init__(f"simulated crash at {at.value}")
        self.at = at


class Crash(BaseModel):
    """The one boundary at which this process dies (NONE: never).

    at (Boundary or its value); hard (bool): end the process with os._exit(CRASH_EXIT) instead of raising.
    Raises: pydantic.ValidationError naming `at` for a value that is not a boundary.
    Example: Crash(at="after_send").reach(Boundary.AFTER_COMMIT)  # not this one: returns None
    """

    model_config = ConfigDict(frozen=True)
    at: Boundary = Boundary.NONE
    hard: bool = False

    def reach(self, here: Boundary) -> None:
        """Die here if this is the chosen boundary; otherwise do nothing.

        Raises: SimulatedCrash(here), or ends the process if hard.
        Example: Crash(at="after_send").reach(Boundary.AFTER_SEND)  # raises
        """
        if here is Boundary.NONE or here != self.at:
            return
        if self.hard:
            os._exit(CRASH_EXIT)  # no cleanup, no commit, no flush
        raise SimulatedCrash(here)
