"""The dual write that the outbox replaces: commit the state change, then call the receiver directly.

commit_then_send() resolves the ticket and advances the run's step in one transaction, commits, and then
sends. The two writes go to two systems that share no transaction, so a process that dies after the
commit and before the send leaves a resolved ticket, a finished step and no email: the restart sees the
step done and sends nothing. (Sending first and committing after fails the other way round: a death
between them sends again on the restart.) The approval page's send log has the same gap between the
mail service and its log line.
Left out: the receiver being down at the moment of the send (the same loss, without a crash).
"""

from __future__ import annotations

import sqlite3

from evidencedesk.outbox.crash import Boundary, Crash
from evidencedesk.outbox.receiver import Receiver
from evidencedesk.outbox.store import RESOLVED, StoreError, transaction


def commit_then_send(conn: sqlite3.Connection, receiver: Receiver,
                     run_id: str, step: int, ticket_id: str,
                     message_id: str, body: str,
                     crash: Crash = Crash()) -> None:
    """Resolve the ticket and mark the step done (committed), then send.

    Args: as store.record_reply, plus receiver (Receiver).
    Raises: StoreError (nothing written) for an unknown ticket or run; SimulatedCrash where asked.
    Example: commit_then_send(conn, inbox, "r-1", 2, "T-2001", "k", "Hi")
    """
    with transaction(conn):
        row = conn.execute("SELECT customer FROM tickets WHERE id = ?",
                           (ticket_id,)).fetchone()
        if row is None:
            raise StoreError(f"no ticket {ticket_id!r}; nothing recorded")
        conn.execute("UPDATE tickets SET status = ? WHERE id = ?",
                     (RESOLVED, ticket_id))
        if conn.execute("UPDATE runs SET step = max(step, ?) WHERE run_id = ?",
                        (step, run_id)).rowcount == 0:
            raise StoreError(f"no run {run_id!r}; nothing recorded")
        crash.reach(Boundary.BEFORE_COMMIT)
    crash.reach(Boundary.AFTER_COMMIT)  # nothing records that a send is owed
    receiver.deliver(message_id, row[0], body)
    crash.reach(Boundary.AFTER_SEND)
