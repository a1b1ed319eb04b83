"""Store: the state change, the outbox row and the step commit together or not at all (a real process
killed inside the transaction included); recording a key twice leaves one row; an unknown ticket writes
nothing."""

import subprocess
import sys

import pytest

from evidencedesk.outbox.crash import CRASH_EXIT, Boundary, Crash, SimulatedCrash
from evidencedesk.outbox.store import (
    DESK_DB,
    RESOLVED,
    StoreError,
    connect,
    create_desk,
    record_reply,
    snapshot,
    step_done,
    transaction,
)


@pytest.fixture
def conn(tmp_path):
    create_desk(tmp_path, "r-1")
    c = connect(tmp_path / DESK_DB)
    yield c
    c.close()


def test_one_transaction_writes_all_three(conn):
    record_reply(conn, "r-1", 2, "T-2001", "k-1", "Hello")
    assert snapshot(conn, "T-2001") == (RESOLVED, (("k-1", 0),)) and step_done(conn, "r-1") == 2


def test_a_crash_before_commit_leaves_nothing_once_the_connection_is_gone(tmp_path):
    create_desk(tmp_path, "r-1")
    dying = connect(tmp_path / DESK_DB)
    with pytest.raises(SimulatedCrash):
        record_reply(dying, "r-1", 2, "T-2001", "k-1", "Hello", Crash(at="before_commit"))
    dying.close()
    fresh = connect(tmp_path / DESK_DB)
    assert snapshot(fresh, "T-2001") == ("open", ()) and step_done(fresh, "r-1") == 1
    fresh.close()


def test_a_process_killed_inside_the_transaction_commits_nothing(tmp_path):
    create_desk(tmp_path, "r-1")
    code = ("import sys\nfrom evidencedesk.outbox.crash import Crash\n"
            "from evidencedesk.outbox.store import connect, record_reply\n"
            "record_reply(connect(sys.argv[1]), 'r-1', 2, 'T-2001', 'k-1', 'Hi',\n"
            "             Crash(at='before_commit', hard=True))\n")
    child = subprocess.run([sys.executable, "-c", code, str(tmp_path / DESK_DB)], capture_output=True,
                           text=True, check=False, timeout=60)
    assert child.returncode == CRASH_EXIT, child.stderr  # it died at the boundary, not on the way there
    fresh = connect(tmp_path / DESK_DB)
    assert snapshot(fresh, "T-2001") == ("open", ()) and step_done(fresh, "r-1") == 1
    fresh.close()


def test_the_same_key_twice_is_one_row_and_a_new_key_is_another(conn):
    assert record_reply(conn, "r-1", 2, "T-2001", "k-1", "Hello") is True
    assert record_reply(conn, "r-1", 2, "T-2001", "k-1", "Hello again") is False
    assert snapshot(conn, "T-2001")[1] == (("k-1", 0),)
    record_reply(conn, "r-1", 2, "T-2001", "k-2", "Hello again")
    assert snapshot(conn, "T-2001")[1] == (("k-1", 0), ("k-2", 0))


def test_an_unknown_ticket_or_run_is_refused_and_nothing_is_written(conn):
    with pytest.raises(StoreError, match="T-9999"):
        record_reply(conn, "r-1", 2, "T-9999", "k-1", "Hello")
    assert not conn.in_transaction and step_done(conn, "r-1") == 1
    with pytest.raises(StoreError, match="r-404"):
        record_reply(conn, "r-404", 2, "T-2001", "k-1", "Hello")
    assert not conn.in_transaction and snapshot(conn, "T-2001") == ("open", ())
    with pytest.raises(StoreError, match="r-404"):
        step_done(conn, "r-404")


def test_any_error_but_the_staged_death_rolls_back_and_frees_the_lock(tmp_path):
    create_desk(tmp_path, "r-1")
    conn, other = connect(tmp_path / DESK_DB), connect(tmp_path / DESK_DB)
    with pytest.raises(KeyError), transaction(conn):
        conn.execute("UPDATE tickets SET status = 'resolved' WHERE id = 'T-2001'")
        raise KeyError("not an sqlite3 error")
    assert not conn.in_transaction
    with transaction(other):  # the write lock is free again
        assert snapshot(other, "T-2001") == ("open", ())
    with pytest.raises(SimulatedCrash), transaction(conn):
        raise SimulatedCrash(Boundary.BEFORE_COMMIT)
    assert conn.in_transaction  # left open, as a dead process leaves it
    conn.close()
    other.close()
