"""Tests of evidencedesk.agent.sendlog: one idempotency store for every process that can send."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evidencedesk.agent.approval import ApprovalDesk
from evidencedesk.agent.checkpoint import Checkpoint
from evidencedesk.agent.identity import TOKEN_ENV, issue_token
from evidencedesk.agent.loop import FixedPlan
from evidencedesk.agent.scenarios import lab
from evidencedesk.agent.sendlog import SEND_LOG, SendLog, SendLogError
from evidencedesk.helpdesk import Outbox
from evidencedesk.tools import DUPLICATE

EMAIL = {"to": "kwame@example.org", "subject": "Re: T-601", "body": "Your refund is on its way.",
         "idempotency_key": "t-601-reply-1"}
PLAN = [("get_ticket", {"ticket_id": "T-601"}), ("send_email_draft", EMAIL)]

# A process that loads the checkpoint, says so, waits for the word "go" on stdin, approves as maria and saves,
# then prints how many emails its own mail service sent. The parent says "go" only when every process has loaded.
APPROVER = """
import sys
from evidencedesk.agent.checkpoint import Checkpoint, CheckpointError
from evidencedesk.helpdesk import Outbox
from evidencedesk.security import Session
outbox = Outbox()
checkpoint = Checkpoint.load(sys.argv[1], outbox=outbox)
print("loaded", flush=True)
assert sys.stdin.readline() == "go\\n"
checkpoint.desk.approve("pa-1", by=Session("maria"))
try:
    checkpoint.save(sys.argv[1])
except CheckpointError as exc:
    print(exc.code, file=sys.stderr)
print(len(outbox.sent), flush=True)
"""


def saved(folder: Path, name: str = "run.json") -> Path:
    agent, _ = lab(decider=FixedPlan(PLAN), task="reply", grant=True)
    run = agent.run("Reply to T-601.", run_id="r1")
    desk = ApprovalDesk(agent.gate, agent.clock)
    desk.ask(run.state.pending_id)
    Checkpoint.of(agent, run.state, desk).save(folder / name)
    return folder / name


def test_a_repeat_from_another_log_object_gets_the_first_result_and_sends_nothing(tmp_path: Path) -> None:
    one, two = SendLog(tmp_path / SEND_LOG, Outbox()), SendLog(tmp_path / SEND_LOG, Outbox())
    first = one.send_email_draft(**EMAIL)
    assert two.send_email_draft(**EMAIL) == first and (len(one.sent), len(two.sent)) == (1, 0)
    other = two.send_email_draft(**{**EMAIL, "body": "something else"})
    assert other.code == DUPLICATE and two.sent == []
    assert EMAIL["body"] not in (tmp_path / SEND_LOG).read_text()  # a digest of the draft, never the draft


@pytest.mark.parametrize("content", ["not json\n", '{"key": "k"}\n', "[]\n"])
def test_a_log_that_is_not_ours_sends_nothing_and_is_named(tmp_path: Path, content: str) -> None:
    (tmp_path / SEND_LOG).write_text(content)
    log = SendLog(tmp_path / SEND_LOG, Outbox())
    with pytest.raises(SendLogError, match=rf"^{SEND_LOG} line 1: not a send record; nothing sent$"):
        log.send_email_draft(**EMAIL)
    assert log.sent == []


def test_two_processes_approving_one_checkpoint_at_once_send_one_email(tmp_path: Path) -> None:
    """Kind 1: both processes load the file before either approves; one email between them."""
    path = saved(tmp_path)
    children = [subprocess.Popen([sys.executable, "-c", APPROVER, str(path)], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    assert [child.stdout.readline() for child in children] == ["loaded\n"] * 2  # both hold the same file now
    for child in children:
        child.stdin.write("go\n")
        child.stdin.flush()
    outputs = [child.communicate() for child in children]
    assert [child.returncode for child in children] == [0, 0], outputs
    assert sorted(int(out) for out, _ in outputs) == [0, 1]  # one email between them
    assert sorted(err for _, err in outputs) == ["", "changed\n"]  # and the later save overwrote nothing


def test_a_checkpoint_and_an_earlier_copy_approved_in_two_processes_send_one_email(tmp_path: Path) -> None:
    """Kind 1, through the command line: each approval is its own process, with a mail service of its own."""
    path = saved(tmp_path)
    shutil.copy(path, tmp_path / "earlier.json")  # a valid copy, taken before anyone decided
    env = {**os.environ, TOKEN_ENV: issue_token("maria")}
    outs = [subprocess.run([sys.executable, "-m", "evidencedesk.agent.cli", "approve", name, "pa-1", "--by", "maria"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=60, env=env)
            for name in ("run.json", "earlier.json")]
    assert [out.returncode for out in outs] == [0, 0], [out.stderr for out in outs]
    assert [out.stdout.split("emails sent by this process: ")[1][0] for out in outs] == ["1", "0"]

