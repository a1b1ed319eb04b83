"""One process's life, a crash at a chosen boundary, and the restart that resumes from durable state.

live() is what a worker process does for run RUN_ID: it reads from the desk database which steps are
done, asks the model for the reply only if step REPLY_STEP is not, records it (the outbox path) or
commits and sends it (the DIRECT path, direct.py), and then runs the relay. The model is a scripted fake
that words the reply as it is told (WORDINGS: the first process gets the first wording, the restarted one
the second, as a real model asked twice may word it).
crash_and_resume() stages one crash: it runs live() with Crash(at=...), and if the process died, throws
away everything but the two database files, looks at the desk database, and runs live() again with no
crash, as a supervisor restarting the worker would. With hard=True the first life runs in a child Python
process that ends itself with os._exit at the boundary, a real death rather than an exception.
replayed_step() is the other way a step repeats: progress kept outside this transaction (a checkpoint
saved after the step, a framework that retries a step whose next model call timed out) asks the model
again for a step whose reply is already recorded. replanned_step() is the same with a model that plans
afresh: the resumed run looks the order up first, so the same reply comes as step REPLY_STEP + 1.
Left out: several workers at once, and a restart that itself crashes (it resumes the same way).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from evidencedesk.outbox.crash import CRASH_EXIT, Boundary, Crash, SimulatedCrash
from evidencedesk.outbox.direct import commit_then_send
from evidencedesk.outbox.keys import step_key
from evidencedesk.outbox.receiver import IDEMPOTENT, Receiver, Seen
from evidencedesk.outbox.relay import relay
from evidencedesk.outbox.store import (
    DESK_DB,
    connect,
    create_desk,
    record_reply,
    snapshot,
    step_done,
)

RUN_ID, TICKET, REPLY_STEP, TOOL = "r-2001", "T-2001", 2, "send_reply"
WORDINGS = ("Your refund for T-2001 is approved.",  # the fake model's first answer
            "Good news: the refund for T-2001 has been approved.")  # asked again
OUTBOX, DIRECT = "outbox", "direct"
PATHS = (OUTBOX, DIRECT)
State = tuple[str, tuple[tuple[str, int], ...]]  # store.snapshot(): status, outbox rows


class Outcome(BaseModel):
    """One staged crash: where, what the desk database held after it, and what the customer got."""

    model_config = ConfigDict(frozen=True)
    path: str
    crash: Boundary
    receiver: str
    died: bool  # the first life ended at the boundary
    at_crash: State  # the desk database right after the death (or the end)
    final: State  # after the restart
    seen: Seen  # what the receiver counted
    emails: tuple[tuple[str, str], ...]  # (message_id, body) the customer got


def live(folder: str | Path, crash: Crash, receiver: Receiver, wording: str,
         path: str = OUTBOX) -> None:
    """One process's life: resume run RUN_ID from the database, then relay.

    Args: folder (the run's folder); crash (Crash); receiver (Receiver);
    wording (str, the fake model's reply); path (OUTBOX or DIRECT).
    Raises: SimulatedCrash at crash.at; ValueError naming a bad path.
    Example: live(tmp, Crash(), Receiver(tmp, "idempotent"), WORDINGS[0])
    """
    if path not in PATHS:
        raise ValueError(f"path must be one of {PATHS}, got {path!r}")
    conn = connect(Path(folder) / DESK_DB)
    try:
        if step_done(conn, RUN_ID) < REPLY_STEP:  # not durably done: ask
            key = step_key(RUN_ID, REPLY_STEP, TOOL)
            if path == DIRECT:
                commit_then_send(conn, receiver, RUN_ID, REPLY_STEP,
                                 TICKET, key, wording, crash)
                return
            record_reply(conn, RUN_ID, REPLY_STEP, TICKET, key, wording, crash)
        if path == OUTBOX:
            crash.reach(Boundary.AFTER_COMMIT)
            relay(conn, receiver, crash)  # sends whatever is unsent
    finally:
        conn.close()  # without COMMIT: an open transaction is dropped


def _look(folder: Path) -> State:
    conn = connect(folder / DESK_DB)
    try:
        return snapshot(conn, TICKET)
    finally:
        conn.close()


def crash_and_resume(folder: str | Path, at: Boundary | str, kind: str = IDEMPOTENT,
                     path: str = OUTBOX, hard: bool = False) -> Outcome:
    """Stage one crash at `at` in a fresh run folder, restart if it died, and report.

    Args: folder (an empty folder); at (Boundary or its value); kind (receiver kind); path (OUTBOX or
    DIRECT); hard (bool: die in a child process through os._exit).
    Returns: Outcome. Raises: ValueError for a bad kind, path or boundary; RuntimeError if the child
    process failed for another reason than the crash (its stderr in the message).
    Example: crash_and_resume(tmp, "after_send").seen.effects -> 1
    """
    folder, at = Path(folder), Boundary(at)
    if path not in PATHS:
        raise ValueError(f"path must be one of {PATHS}, got {path!r}")
    create_desk(folder, RUN_ID, step=REPLY_STEP - 1)
    Receiver(folder, kind)  # creates the inbox (and checks kind)
    if hard:
        child = subprocess.run([sys.executable, "-m", "evidencedesk.outbox.process",
                                str(folder), at.value, kind, path],
                               capture_output=True, text=True, check=False)
        if child.returncode not in (0, CRASH_EXIT):
            raise RuntimeError(f"the child process failed: {child.stderr.strip()[-400:]}")
        died = child.returncode == CRASH_EXIT
    else:
        try:
            live(folder, Crash(at=at), Receiver(folder, kind), WORDINGS[0], path)
            died = False
        except SimulatedCrash:
            died = True  # every object of that life is dropped here
    at_crash = _look(folder)
    if died:  # the supervisor starts a new process: new connections, no memory
        live(folder, Crash(), Receiver(folder, kind), WORDINGS[1], path)
    receiver = Receiver(folder, kind)
    return Outcome(path=path, crash=at, receiver=kind, died=died, at_crash=at_crash,
                   final=_look(folder), seen=receiver.seen(), emails=tuple(receiver.emails()))


def replayed_step(folder: str | Path, key: Callable[[str], str] | None = None,
                  kind: str = IDEMPOTENT) -> Outcome:
    """Record step REPLY_STEP twice, once per wording (a replayed step), then relay.

    Args: folder (an empty folder); key (None: step_key; or a function of the text, like text_key);
    kind (receiver kind). Returns: Outcome (crash NONE).
    Example: replayed_step(tmp, text_key).seen.effects -> 2
    """
    folder = Path(folder)
    create_desk(folder, RUN_ID, step=REPLY_STEP - 1)
    receiver = Receiver(folder, kind)
    conn = connect(folder / DESK_DB)
    try:
        for wording in WORDINGS:  # the same step, proposed twice
            message_id = step_key(RUN_ID, REPLY_STEP, TOOL) if key is None else key(wording)
            record_reply(conn, RUN_ID, REPLY_STEP, TICKET, message_id, wording)
            relay(conn, receiver)
        state = snapshot(conn, TICKET)
    finally:
        conn.close()
    return Outcome(path=OUTBOX, crash=Boundary.NONE, receiver=kind, died=False, at_crash=state,
                   final=state, seen=receiver.seen(), emails=tuple(receiver.emails()))


def replanned_step(folder: str | Path, key: Callable[[int], str], kind: str = IDEMPOTENT) -> Outcome:
    """The reply recorded as step REPLY_STEP, then a resumed run that re-plans and sends it as the next step.

    The resumed run lost its progress (a checkpoint saved before the reply) and asked the model for a new
    plan: look the order up, then reply. So the same decision, reworded, arrives as step REPLY_STEP + 1.
    Args: folder (an empty folder); key (a function of the step number giving the message id);
    kind (receiver kind). Returns: Outcome (crash NONE). Raises: ValueError for a bad kind.
    Example: replanned_step(tmp, lambda step: step_key(RUN_ID, step, TOOL)).seen.effects -> 2
    """
    folder = Path(folder)
    create_desk(folder, RUN_ID, step=REPLY_STEP - 1)
    receiver = Receiver(folder, kind)
    conn = connect(folder / DESK_DB)
    try:
        for step, wording in zip((REPLY_STEP, REPLY_STEP + 1), WORDINGS, strict=True):
            record_reply(conn, RUN_ID, step, TICKET, key(step), wording)
            relay(conn, receiver)
        state = snapshot(conn, TICKET)
    finally:
        conn.close()
    return Outcome(path=OUTBOX, crash=Boundary.NONE, receiver=kind, died=False, at_crash=state,
                   final=state, seen=receiver.seen(), emails=tuple(receiver.emails()))


if __name__ == "__main__":  # the child of crash_and_resume(hard=True): folder, boundary, kind, path
    _folder, _at, _kind, _path = sys.argv[1:5]
    live(_folder, Crash(at=_at, hard=True), Receiver(_folder, _kind), WORDINGS[0], _path)
