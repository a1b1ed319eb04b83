"""Direct (commit, then send): a death between the two loses the email for good; without a death, one."""

import pytest

from evidencedesk.outbox.crash import Crash, SimulatedCrash
from evidencedesk.outbox.direct import commit_then_send
from evidencedesk.outbox.receiver import IDEMPOTENT, Receiver
from evidencedesk.outbox.store import DESK_DB, StoreError, connect, create_desk, snapshot, step_done


def test_without_a_crash_one_email(tmp_path):
    create_desk(tmp_path, "r-1")
    conn = connect(tmp_path / DESK_DB)
    inbox = Receiver(tmp_path, IDEMPOTENT)
    commit_then_send(conn, inbox, "r-1", 2, "T-2001", "k-1", "Hi")
    assert inbox.seen().effects == 1 and snapshot(conn, "T-2001") == ("resolved", ())
    conn.close()


def test_a_death_after_the_commit_leaves_a_done_step_and_no_email(tmp_path):
    create_desk(tmp_path, "r-1")
    conn = connect(tmp_path / DESK_DB)
    inbox = Receiver(tmp_path, IDEMPOTENT)
    with pytest.raises(SimulatedCrash):
        commit_then_send(conn, inbox, "r-1", 2, "T-2001", "k-1", "Hi", Crash(at="after_commit"))
    conn.close()
    fresh = connect(tmp_path / DESK_DB)
    assert step_done(fresh, "r-1") == 2 and inbox.seen().deliveries == 0
    fresh.close()


@pytest.mark.parametrize("ticket, run, name", [("T-9999", "r-1", "T-9999"), ("T-2001", "r-404", "r-404")])
def test_an_unknown_ticket_or_run_is_refused_and_nothing_is_sent(tmp_path, ticket, run, name):
    create_desk(tmp_path, "r-1")
    conn = connect(tmp_path / DESK_DB)
    inbox = Receiver(tmp_path, IDEMPOTENT)
    with pytest.raises(StoreError, match=name):
        commit_then_send(conn, inbox, run, 2, ticket, "k-1", "Hi")
    assert not conn.in_transaction and snapshot(conn, "T-2001") == ("open", ()) and inbox.seen().deliveries == 0
    conn.close()
