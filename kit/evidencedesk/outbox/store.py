"""The help desk's database (sqlite3): the ticket's state change and the intent to send, in one transaction.

The desk database holds three tables: tickets (id, customer, status), runs (run_id, step: the last step
of each agent run that is durably done) and outbox (one row per message to send: a UNIQUE message id,
the recipient, the body, and sent = 0 until the relay marks it). record_reply() resolves the ticket,
inserts the outbox row and advances the run's step inside one BEGIN IMMEDIATE transaction: SQLite commits
all three or none, even if the process dies halfway (atomic commit, read 2026-12-03:
https://www.sqlite.org/atomiccommit.html). BEGIN IMMEDIATE starts the write at once: SQLite's transactions are
serializable whatever the BEGIN (https://www.sqlite.org/isolation.html), but a deferred one that reads first
fails with SQLITE_BUSY at its first write if another connection wrote meanwhile; IMMEDIATE waits, or fails,
at BEGIN, before anything is done (https://www.sqlite.org/lang_transaction.html). The outbox insert is INSERT ... ON CONFLICT(message_id) DO
NOTHING (https://www.sqlite.org/lang_upsert.html), so recording the same message twice leaves one row.
Connections are opened with isolation_level=None, so that Python's sqlite3 opens no transaction of its
own and BEGIN/COMMIT are exactly the ones written here
(https://docs.python.org/3/library/sqlite3.html#sqlite3-transaction-control-isolation-level; from Python 3.12
the same is autocommit=True, the kit supports 3.11).
Left out: several writers on several machines (SQLite allows one writer at a time, on one machine's file
system), schema migrations, WAL mode and busy timeouts.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from evidencedesk.outbox.crash import Boundary, Crash, SimulatedCrash

DESK_DB = "desk.db"  # the file's name, in the run's folder
SCHEMA = """
CREATE TABLE tickets (id TEXT PRIMARY KEY, customer TEXT NOT NULL,
                      status TEXT NOT NULL);
CREATE TABLE runs (run_id TEXT PRIMARY KEY, step INTEGER NOT NULL);
CREATE TABLE outbox (seq INTEGER PRIMARY KEY,
                     message_id TEXT NOT NULL UNIQUE,
                     ticket_id TEXT NOT NULL, recipient TEXT NOT NULL,
                     body TEXT NOT NULL, sent INTEGER NOT NULL DEFAULT 0);
"""
TICKETS = (  # id, customer, status: invented rows
    ("T-2001", "buyer.2001@example.org", "open"),
    ("T-2002", "buyer.2002@example.org", "open"),
    ("T-2003", "buyer.2003@example.org", "open"),
)
OPEN, RESOLVED = "open", "resolved"


class StoreError(ValueError):
    """A reply cannot be recorded: the message names the ticket or run and what was wrong."""


def connect(path: str | Path) -> sqlite3.Connection:
    """Open a database file with no implicit transactions (BEGIN and COMMIT are ours).

    Args: path (str or Path). Raises: sqlite3.OperationalError if the file cannot be opened.
    Example: conn = connect(folder / DESK_DB)
    """
    return sqlite3.connect(Path(path), isolation_level=None)


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE ... COMMIT; ROLLBACK on any exception but one.

    A SimulatedCrash is the staged death: it leaves the block with the
    transaction open, as a dead process would, and the caller closes
    the connection without committing (which rolls it back).
    Raises: whatever the block raised; sqlite3.OperationalError
    ("database is locked") if another connection holds the write lock.
    Example: with transaction(conn): conn.execute("UPDATE ...")
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except SimulatedCrash:
        raise
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def create_desk(folder: str | Path, run_id: str, step: int = 1) -> Path:
    """Create DESK_DB in folder with TICKETS and one run whose steps up to `step` are done.

    Args: folder (str or Path, an existing folder); run_id (str); step (int, steps already done).
    Returns: the database's Path. Raises: sqlite3.OperationalError if the file already has the tables.
    Example: create_desk(tmp, "r-2001")
    """
    path = Path(folder) / DESK_DB
    conn = connect(path)
    try:
        conn.executescript(SCHEMA)
        with transaction(conn):
            conn.executemany("INSERT INTO tickets VALUES (?, ?, ?)", TICKETS)
            conn.execute("INSERT INTO runs VALUES (?, ?)", (run_id, step))
    finally:
        conn.close()
    return path


def step_done(conn: sqlite3.Connection, run_id: str) -> int:
    """The last step of run_id that is committed.

    Args: conn (a connection from connect()); run_id (str).
    Returns: int. Raises: StoreError naming an unknown run.
    Example: step_done(conn, "r-2001") -> 1
    """
    row = conn.execute("SELECT step FROM runs WHERE run_id = ?", (run_id,)).fetchone()
    if row is None:
        raise StoreError(f"no run {run_id!r} in the desk database")
    return int(row[0])


def record_reply(conn: sqlite3.Connection, run_id: str, step: int,
                 ticket_id: str, message_id: str, body: str,
                 crash: Crash = Crash()) -> bool:
    """Resolve the ticket, queue the reply and mark the step done: one transaction.

    Args: conn (a connection from connect()); run_id (str); step (int, the step this reply is);
    ticket_id (str); message_id (str, the idempotency key); body (str); crash (Crash: where to die).
    Returns: True if the outbox row is new, False if message_id was there (the first row is kept).
    Raises: StoreError (nothing written) for an unknown ticket or run; SimulatedCrash at BEFORE_COMMIT.
    Example: record_reply(conn, "r-2001", 2, "T-2001", "r-2001/2/send_reply", "Refund approved.")
    """
    with transaction(conn):
        row = conn.execute("SELECT customer FROM tickets WHERE id = ?",
                           (ticket_id,)).fetchone()
        if row is None:
            raise StoreError(f"no ticket {ticket_id!r}; nothing recorded")
        conn.execute("UPDATE tickets SET status = ? WHERE id = ?",
                     (RESOLVED, ticket_id))
        new = conn.execute(
            "INSERT INTO outbox (message_id, ticket_id, recipient, body)"
            " VALUES (?, ?, ?, ?) ON CONFLICT (message_id) DO NOTHING",
            (message_id, ticket_id, row[0], body)).rowcount == 1
        if conn.execute("UPDATE runs SET step = max(step, ?) WHERE run_id = ?",
                        (step, run_id)).rowcount == 0:
            raise StoreError(f"no run {run_id!r}; nothing recorded")
        crash.reach(Boundary.BEFORE_COMMIT)  # all written, nothing committed
    return new


def snapshot(conn: sqlite3.Connection, ticket_id: str) -> tuple[str, tuple[tuple[str, int], ...]]:
    """(the ticket's status, its outbox rows as (message_id, sent) in insertion order).

    Args: conn; ticket_id (str). Returns: ("missing", ()) for an unknown ticket.
    Example: snapshot(conn, "T-2001") -> ("resolved", (("r-2001/2/send_reply", 0),))
    """
    status = conn.execute("SELECT status FROM tickets WHERE id = ?", (ticket_id,)).fetchone()
    rows = conn.execute("SELECT message_id, sent FROM outbox WHERE ticket_id = ? ORDER BY seq",
                        (ticket_id,)).fetchall()
    return (status[0] if status else "missing", tuple((m, int(s)) for m, s in rows))
