"""Store: the state change, the outbox row and the step commit together or not at all (a real process
killed inside the transaction included); recording a key twice leaves one row; an unknown ticket writes
nothing."""

import subprocess
import sys

import pytest

from evidencedesk.outbox.crash import Crash, SimulatedCrash
from evidencedesk.outbox.store import (
    DESK_DB,
    RESOLVED,
    StoreError,
    connect,
    create_desk,
    record_reply,
    snapshot,
    step_done,
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
    subprocess.run([sys.executable, "-c", code, str(tmp_path / DESK_DB)], check=False, timeout=60)
    fresh = connect(tmp_path / DESK_DB)
    assert snapshot(fresh, "T-2001") == ("open", ()) and step_done(fresh, "r-1") == 1
    fresh.close()


def test_the_same_key_twice_is_one_row_and_a_new_key_is_another(conn):
    record_reply(conn, "r-1", 2, "T-2001", "k-1", "Hello")
    record_reply(conn, "r-1", 2, "T-2001", "k-1", "Hello again")
    assert snapshot(conn, "T-2001")[1] == (("k-1", 0),)
    record_reply(conn, "r-1", 2, "T-2001", "k-2", "Hello again")
    assert snapshot(conn, "T-2001")[1] == (("k-1", 0), ("k-2", 0))


def test_an_unknown_ticket_or_run_is_refused_and_nothing_is_written(conn):
    with pytest.raises(StoreError, match="T-9999"):
        record_reply(conn, "r-1", 2, "T-9999", "k-1", "Hello")
    assert not conn.in_transaction and step_done(conn, "r-1") == 1
    with pytest.raises(StoreError, match="r-404"):
        step_done(conn, "r-404")
