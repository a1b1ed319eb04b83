"""Model output in SQL, on a real database (Python's sqlite3): parameters first, then two more layers.

When a model fills in a value (a status, a ticket id), the value goes in as a parameter ("?"), never
by string formatting: tickets_with_status() is the right way, tickets_with_status_unsafe() the wrong
one, kept to show the injection. When a model writes the whole query (text-to-SQL), parameters cannot
help, so run_model_sql() runs it on a connection opened read-only (a "file:...?mode=ro" URI) with an
authorizer that allows SELECT, reads of the columns in READABLE and the functions in FUNCTIONS, and
denies everything else, and with a progress handler that stops a query after MAX_STEPS steps of
SQLite's virtual machine. The authorizer sees tables and columns, never rows: it cannot keep one user
to their own rows. build_desk() writes the small, invented database every example uses.
Left out: other databases' drivers (their placeholders differ: %s, :name, $1), ORMs, and row-level security.
Sources (read 2026-12-03): https://docs.python.org/3/library/sqlite3.html (set_authorizer, set_progress_handler,
execute), https://www.sqlite.org/uri.html (mode=ro), https://www.sqlite.org/c3ref/set_authorizer.html.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

DB_NAME = "desk.db"
TICKETS = (  # id, owner, subject, status: invented rows
    ("T-1101", "farida", "Dripping tap in the kitchen", "open"),
    ("T-1102", "jonas", "Parcel sent to the wrong address", "open"),
    ("T-1103", "farida", "Card reader offline", "closed"),
    ("T-1104", "jonas", "Invoice shows the wrong VAT number", "open"),
)
ACCOUNTS = (("farida", "sk-sim-FARIDA-0001"), ("jonas", "sk-sim-JONAS-0002"))  # invented, not keys
READABLE = {"tickets": frozenset({"id", "subject", "status"})}  # what a model's query may read
FUNCTIONS = frozenset({"count", "lower", "upper", "length"})  # the SQL functions it may call
MAX_STEPS = 100_000  # virtual-machine steps before a model's query is stopped
STEP_CHECK = 1_000  # how often (in steps) the progress handler is called
ACTIONS = {getattr(sqlite3, name): name for name in (  # authorizer action codes, named for messages
    "SQLITE_SELECT", "SQLITE_READ", "SQLITE_FUNCTION", "SQLITE_INSERT", "SQLITE_UPDATE", "SQLITE_DELETE",
    "SQLITE_ATTACH", "SQLITE_PRAGMA", "SQLITE_RECURSIVE", "SQLITE_CREATE_TABLE", "SQLITE_DROP_TABLE")}


class QueryRefused(ValueError):
    """A model's query was refused or stopped; the message says by which layer and why."""


def build_desk(folder: Path | str) -> Path:
    """Write the invented help-desk database into folder (which must exist) and return its path.

    Tables: tickets(id, owner, subject, status) from TICKETS, accounts(user, api_key) from ACCOUNTS.
    Args: folder (str or Path). Returns: Path of desk.db. Raises: FileExistsError if desk.db exists;
    FileNotFoundError if folder does not.
    Example: build_desk(tempfile.mkdtemp()).name -> "desk.db"
    """
    path = Path(folder) / DB_NAME
    if path.exists():
        raise FileExistsError(f"{path.name} already exists in that folder")
    if not Path(folder).is_dir():
        raise FileNotFoundError(f"no folder {Path(folder).name!r}")
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE tickets (id TEXT PRIMARY KEY, owner TEXT, subject TEXT, status TEXT)")
        conn.execute("CREATE TABLE accounts (user TEXT PRIMARY KEY, api_key TEXT)")
        conn.executemany("INSERT INTO tickets VALUES (?, ?, ?, ?)", TICKETS)
        conn.executemany("INSERT INTO accounts VALUES (?, ?)", ACCOUNTS)
    conn.close()  # the with block commits; it does not close
    return path


def tickets_with_status_unsafe(conn: sqlite3.Connection, owner: str, status: str) -> list[tuple[str, str]]:
    """The wrong way, kept to show the injection: the model's status formatted into the SQL text.

    Args: conn (sqlite3.Connection); owner, status (str). Returns: list of (id, subject).
    Raises: sqlite3.Error for text that does not parse as SQL once formatted in.
    Example: tickets_with_status_unsafe(conn, "farida", "x' OR '1'='1")  # every user's tickets
    """
    sql = f"SELECT id, subject FROM tickets WHERE owner = '{owner}' AND status = '{status}'"
    return conn.execute(sql).fetchall()


def tickets_with_status(conn: sqlite3.Connection, owner: str, status: str) -> list[tuple[str, str]]:
    """Owner's tickets with a status, the value passed as a parameter: it is compared, never parsed as SQL.

    Args: conn (sqlite3.Connection); owner, status (str). Returns: list of (id, subject), by id.
    Raises: sqlite3.ProgrammingError for a value sqlite3 cannot bind.
    Example: tickets_with_status(conn, "farida", "open") -> [("T-1101", "Dripping tap in the kitchen")]
    """
    sql = "SELECT id, subject FROM tickets WHERE owner = ? AND status = ? ORDER BY id"
    return conn.execute(sql, (owner, status)).fetchall()


def open_read_only(path: Path | str) -> sqlite3.Connection:
    """Open an existing database read-only, through a "file:...?mode=ro" URI (uri=True).

    Path.as_uri() percent-encodes the path, so a "?" or "#" in a folder name cannot change the URI.
    Any write then fails with sqlite3.OperationalError "attempt to write a readonly database".
    Args: path (str or Path). Returns: sqlite3.Connection.
    Raises: sqlite3.OperationalError when the file does not exist (read-only mode never creates it).
    Example: open_read_only(build_desk(tempfile.mkdtemp())).execute("SELECT 1").fetchone() -> (1,)
    """
    return sqlite3.connect(Path(path).resolve().as_uri() + "?mode=ro", uri=True)


def authorizer(readable: dict[str, frozenset[str]] = READABLE,
               functions: frozenset[str] = FUNCTIONS) -> Callable[[int, str | None, str | None, str | None,
                                                                   str | None], int]:
    """An authorizer callback for Connection.set_authorizer: SELECT, reads of the columns in readable (and of
    a readable table with no column, as count(*) does) and calls to the functions in functions are allowed
    (SQLITE_OK); every other action is denied (SQLITE_DENY).

    SQLite calls it while it prepares a statement, once per action, with the table and column of a read.
    Args: readable (dict table -> frozenset of columns); functions (frozenset of lowercase names).
    Returns: the callback. Example: conn.set_authorizer(authorizer())
    """
    def check(action: int, arg1: str | None, arg2: str | None, db: str | None, source: str | None) -> int:
        if action == sqlite3.SQLITE_SELECT:
            return sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_READ and arg1 in readable and (arg2 in readable[arg1] or arg2 == ""):
            return sqlite3.SQLITE_OK  # "" is a read of the table with no column (count(*)): allowed
        if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() in functions:
            return sqlite3.SQLITE_OK
        return sqlite3.SQLITE_DENY
    return check


def run_model_sql(path: Path | str, sql: str) -> list[tuple[object, ...]]:
    """Run one query a model wrote, inside three layers: read-only, the authorizer, a step limit.

    Args: path (str or Path, an existing database); sql (str, one statement).
    Returns: the rows. Raises: TypeError for a non-str sql; QueryRefused naming the layer that refused
    ("read-only", "authorizer", "step limit") or "sqlite3" for any other error (a syntax error, a second
    statement: execute() runs one statement only).
    Example: run_model_sql(db, "SELECT api_key FROM accounts")  # QueryRefused: authorizer: access ... prohibited
    """
    if not isinstance(sql, str):
        raise TypeError(f"sql must be a str, got {type(sql).__name__}")
    conn = open_read_only(path)
    steps = [0]

    def over_limit() -> int:
        steps[0] += STEP_CHECK
        return 1 if steps[0] > MAX_STEPS else 0

    conn.set_authorizer(authorizer())
    conn.set_progress_handler(over_limit, STEP_CHECK)
    try:
        return conn.execute(sql).fetchall()
    except sqlite3.Error as exc:
        message = str(exc)
        layer = ("read-only" if "readonly" in message else "step limit" if message == "interrupted"
                 else "authorizer" if "prohibited" in message or "not authorized" in message else "sqlite3")
        raise QueryRefused(f"{layer}: {message}") from None
    finally:
        conn.close()
