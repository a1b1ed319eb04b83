"""The decision log: a request decided on one copy of a checkpoint stays decided on every copy in its folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_agent_sendlog import saved

from evidencedesk.agent.approval import ALREADY_DECIDED, APPROVED, DECLINED
from evidencedesk.agent.checkpoint import CheckpointError, decide
from evidencedesk.agent.decisionlog import DECISION_LOG, DecisionLog, DecisionLogError
from evidencedesk.helpdesk import Outbox
from evidencedesk.security import Session


def test_a_request_declined_on_the_file_cannot_be_approved_on_an_earlier_copy(tmp_path: Path) -> None:
    """Decisions are shared like sends: declining run.json, then approving a copy taken before, sends nothing."""
    path = saved(tmp_path)
    shutil.copy(path, tmp_path / "earlier.json")
    outbox = Outbox()
    assert decide(path, "pa-1", "decline", by=Session("maria"), outbox=outbox).code == DECLINED

    again = decide(tmp_path / "earlier.json", "pa-1", "approve", by=Session("maria"), outbox=outbox)

    assert (again.ok, again.code, outbox.sent) == (False, ALREADY_DECIDED, [])
    assert DecisionLog(tmp_path / DECISION_LOG).decided("r1", "pa-1") == (DECLINED, "maria")


def test_an_approval_on_an_earlier_copy_by_another_approver_is_already_decided(tmp_path: Path) -> None:
    path = saved(tmp_path)
    shutil.copy(path, tmp_path / "earlier.json")
    outbox = Outbox()
    assert decide(path, "pa-1", "approve", by=Session("maria"), outbox=outbox).code == APPROVED
    same = decide(tmp_path / "earlier.json", "pa-1", "approve", by=Session("maria"), outbox=outbox)
    other = decide(tmp_path / "earlier.json", "pa-1", "decline", by=Session("maria"), outbox=outbox)

    assert same.ok and same.code == APPROVED  # the same decision again: the send log replays, nothing new is sent
    assert (other.ok, other.code) == (False, ALREADY_DECIDED)
    assert len(outbox.sent) == 1


def test_a_decision_log_that_is_not_ours_refuses_the_decision_by_name(tmp_path: Path) -> None:
    path = saved(tmp_path)
    (tmp_path / DECISION_LOG).write_text("not a record\n", encoding="ascii")
    outbox = Outbox()
    with pytest.raises(CheckpointError, match=r"run\.json: bad_checkpoint: decisions\.jsonl line 1"):
        decide(path, "pa-1", "approve", by=Session("maria"), outbox=outbox)
    assert outbox.sent == []


def test_the_log_reads_back_what_it_recorded_and_refuses_a_line_that_is_not_a_record(tmp_path: Path) -> None:
    log = DecisionLog(tmp_path / DECISION_LOG)
    assert log.decided("r1", "pa-1") is None
    log.record("r1", "pa-1", DECLINED, "maria")
    log.record("r2", "pa-1", APPROVED, "kwame")
    assert (log.decided("r1", "pa-1"), log.decided("r2", "pa-1"), log.decided("r1", "pa-2")) == (
        (DECLINED, "maria"), (APPROVED, "kwame"), None)
    (tmp_path / DECISION_LOG).write_text('{"run_id": "r1"}\n', encoding="ascii")
    with pytest.raises(DecisionLogError, match=r"^decisions\.jsonl line 1: not a decision record$"):
        log.decided("r1", "pa-1")
