"""The mail service's side (sqlite3, a database of its own): the idempotent receiver, and the naive one.

Every delivery is written to arrivals, so the table shows what the receiver saw. The idempotent receiver
then inserts the message id into processed, whose PRIMARY KEY makes it unique, with ON CONFLICT DO NOTHING
(https://www.sqlite.org/lang_upsert.html, read 2026-12-03): if the insert changed no row, the id was seen
before and nothing else happens. If it did, the side effect (a row in emails: what the customer receives)
is written in the same transaction, so the id is recorded exactly when the effect is. This is the
idempotent consumer of microservices.io (https://microservices.io/patterns/communication-style/
idempotent-consumer.html, read 2026-12-03). The naive receiver writes an email for every delivery.
A real mail provider is not a sqlite file: one that takes an idempotency key keeps it for a limited time
(Stripe's keys may be pruned once they are 24 hours old: https://docs.stripe.com/api/idempotent_requests).
Left out: the network between relay and receiver (a call here is a function call), acknowledgements that
get lost, and pruning old ids.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict

from evidencedesk.outbox.store import connect, transaction

INBOX_DB = "inbox.db"  # the receiver's own file
RECEIVER_SCHEMA = """
CREATE TABLE arrivals (seq INTEGER PRIMARY KEY, message_id TEXT NOT NULL);
CREATE TABLE processed (message_id TEXT PRIMARY KEY);
CREATE TABLE emails (seq INTEGER PRIMARY KEY, message_id TEXT NOT NULL,
                     recipient TEXT NOT NULL, body TEXT NOT NULL);
"""
IDEMPOTENT, NAIVE = "idempotent", "naive"
KINDS = (IDEMPOTENT, NAIVE)
APPLIED, DUPLICATE = "applied", "duplicate"


class Seen(BaseModel):
    """What the receiver saw: deliveries, deliveries of an id it had seen before, emails written."""

    model_config = ConfigDict(frozen=True)
    deliveries: int
    duplicates: int
    effects: int


class Receiver:
    """A mail service with its own database file; kind is IDEMPOTENT or NAIVE.

    Args: folder (str or Path, an existing folder: INBOX_DB is created there if missing); kind (str).
    Raises: ValueError naming kind if it is not one of KINDS.
    Example: Receiver(tmp, IDEMPOTENT).deliver("r-2001/2/send_reply", "a@example.org", "Hi") -> "applied"
    """

    def __init__(self, folder: str | Path, kind: str) -> None:
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
        self.path, self.kind = Path(folder) / INBOX_DB, kind
        if not self.path.exists():
            conn = connect(self.path)
            try:
                conn.executescript(RECEIVER_SCHEMA)
            finally:
                conn.close()

    def deliver(self, message_id: str, recipient: str, body: str) -> str:
        """Take one delivery: APPLIED (an email written) or DUPLICATE (none).

        Args: message_id (str, the idempotency key); recipient, body (str).
        Returns: APPLIED or DUPLICATE (the naive kind: always APPLIED).
        Raises: sqlite3.OperationalError if the inbox file is locked.
        Example: inbox.deliver("k-1", "a@example.org", "Hi") -> "applied"
        """
        conn = connect(self.path)  # a connection per request, as a service
        try:
            with transaction(conn):
                conn.execute("INSERT INTO arrivals (message_id) VALUES (?)",
                             (message_id,))
                if self.kind == IDEMPOTENT:
                    new = conn.execute(
                        "INSERT INTO processed VALUES (?)"
                        " ON CONFLICT (message_id) DO NOTHING", (message_id,))
                    if new.rowcount == 0:  # seen before: the arrival only
                        return DUPLICATE
                conn.execute("INSERT INTO emails (message_id, recipient, body)"
                             " VALUES (?, ?, ?)", (message_id, recipient, body))
            return APPLIED
        finally:
            conn.close()

    def seen(self) -> Seen:
        """Count deliveries, repeated deliveries and emails from the receiver's file.

        Returns: Seen. Example: Receiver(tmp, "naive").seen() -> Seen(deliveries=0, duplicates=0, effects=0)
        """
        conn = connect(self.path)
        try:
            deliveries, distinct = conn.execute(
                "SELECT count(*), count(DISTINCT message_id) FROM arrivals").fetchone()
            effects = conn.execute("SELECT count(*) FROM emails").fetchone()[0]
        finally:
            conn.close()
        return Seen(deliveries=deliveries, duplicates=deliveries - distinct, effects=effects)

    def emails(self) -> list[tuple[str, str]]:
        """The emails the customer received, as (message_id, body), in the order written.

        Returns: list of (str, str). Example: Receiver(tmp, "naive").emails() -> []
        """
        conn = connect(self.path)
        try:
            return conn.execute("SELECT message_id, body FROM emails ORDER BY seq").fetchall()
        finally:
            conn.close()
