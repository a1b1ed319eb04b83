"""The relay: read the outbox rows not yet sent, send each to the receiver, mark it sent.

The relay is the only code that sends. It reads unsent rows in the order they were written, delivers one,
and marks it in a transaction of its own. Sending and marking are two systems, so no transaction holds
both: a process that dies after the send and before the mark leaves the row unsent, and the next relay
sends it again. That is at-least-once delivery; the receiver's UNIQUE message id turns it into one effect.
The pattern is the transactional outbox (microservices.io, read 2026-12-03:
https://microservices.io/patterns/data/transactional-outbox.html), whose relay polls the table as this one
does; production relays may instead tail the database's log (change data capture, as Debezium's outbox
event router does: https://debezium.io/documentation/reference/stable/transformations/outbox-event-router.html).
Left out: claiming rows so that two relays rarely send the same one (PostgreSQL's SELECT ... FOR UPDATE
SKIP LOCKED: https://www.postgresql.org/docs/current/sql-select.html#SQL-FOR-UPDATE-SHARE, or a lease with an
expiry; neither makes one sender, since a relay can outlive its claim), retries with backoff when the
receiver is down, and deleting old sent rows.
"""

from __future__ import annotations

import sqlite3

from pydantic import BaseModel, ConfigDict

from evidencedesk.outbox.crash import Boundary, Crash
from evidencedesk.outbox.receiver import Receiver
from evidencedesk.outbox.store import StoreError, transaction


class Message(BaseModel):
    """One outbox row: its position, idempotency key, ticket, recipient and body."""

    model_config = ConfigDict(frozen=True)
    seq: int
    message_id: str
    ticket_id: str
    recipient: str
    body: str


def unsent(conn: sqlite3.Connection) -> list[Message]:
    """The outbox rows with sent = 0, oldest first.

    Args: conn (the desk database). Returns: list[Message] ([] when all are sent).
    Example: unsent(conn)[0].message_id -> "r-2001/2/send_reply"
    """
    rows = conn.execute(
        "SELECT seq, message_id, ticket_id, recipient, body FROM outbox"
        " WHERE sent = 0 ORDER BY seq").fetchall()
    names = ("seq", "message_id", "ticket_id", "recipient", "body")
    return [Message(**dict(zip(names, row, strict=True))) for row in rows]


def mark_sent(conn: sqlite3.Connection, message_id: str) -> None:
    """Set sent = 1 on one row, in a transaction of its own.

    Args: conn (the desk database); message_id (str). Raises: StoreError naming an id with no row.
    Example: mark_sent(conn, "r-2001/2/send_reply")
    """
    with transaction(conn):
        if conn.execute("UPDATE outbox SET sent = 1 WHERE message_id = ?",
                        (message_id,)).rowcount == 0:
            raise StoreError(f"no outbox row {message_id!r}")


def relay(conn: sqlite3.Connection, receiver: Receiver,
          crash: Crash = Crash()) -> int:
    """Send every unsent row once, marking each after its send.

    Args: conn (the desk database); receiver (Receiver);
    crash (Crash: where to die). Returns: rows this call sent (int).
    Raises: SimulatedCrash at AFTER_SEND or AFTER_MARK, if asked.
    Example: relay(conn, Receiver(tmp, "idempotent")) -> 1
    """
    sent = 0
    for message in unsent(conn):
        receiver.deliver(message.message_id, message.recipient, message.body)
        sent += 1
        crash.reach(Boundary.AFTER_SEND)  # received; the row still says unsent
        mark_sent(conn, message.message_id)
        crash.reach(Boundary.AFTER_MARK)
    return sent
