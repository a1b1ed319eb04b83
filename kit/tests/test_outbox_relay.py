"""Relay: it sends unsent rows oldest first and marks each; a second relay finds nothing; a death after
the send leaves the row unsent, so the next relay sends it again."""

import pytest

from evidencedesk.outbox.crash import Crash, SimulatedCrash
from evidencedesk.outbox.receiver import IDEMPOTENT, Receiver
from evidencedesk.outbox.relay import mark_sent, relay, unsent
from evidencedesk.outbox.store import DESK_DB, StoreError, connect, create_desk, record_reply


@pytest.fixture
def conn(tmp_path):
    create_desk(tmp_path, "r-1")
    c = connect(tmp_path / DESK_DB)
    record_reply(c, "r-1", 2, "T-2002", "k-b", "second ticket first")
    record_reply(c, "r-1", 3, "T-2001", "k-a", "first ticket second")
    yield c
    c.close()


def test_unsent_rows_come_oldest_first_and_relay_marks_them(conn, tmp_path):
    assert [m.message_id for m in unsent(conn)] == ["k-b", "k-a"]
    inbox = Receiver(tmp_path, IDEMPOTENT)
    assert relay(conn, inbox) == 2 and unsent(conn) == [] and relay(conn, inbox) == 0
    assert [m for m, _ in inbox.emails()] == ["k-b", "k-a"]


def test_a_death_after_the_send_sends_again(conn, tmp_path):
    inbox = Receiver(tmp_path, IDEMPOTENT)
    with pytest.raises(SimulatedCrash):
        relay(conn, inbox, Crash(at="after_send"))
    assert [m.message_id for m in unsent(conn)] == ["k-b", "k-a"]
    relay(conn, inbox)
    seen = inbox.seen()
    assert (seen.deliveries, seen.duplicates, seen.effects) == (3, 1, 2)


def test_mark_sent_is_one_row_and_refuses_an_unknown_id(conn):
    mark_sent(conn, "k-a")
    assert [m.message_id for m in unsent(conn)] == ["k-b"]
    with pytest.raises(StoreError, match="k-zzz"):
        mark_sent(conn, "k-zzz")
    assert not conn.in_transaction
