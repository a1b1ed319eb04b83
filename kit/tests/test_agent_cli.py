"""Tests of evidencedesk.agent.cli: the command line that starts, decides on and resumes a checkpoint."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from evidencedesk.agent.cli import main
from evidencedesk.agent.identity import TOKEN_ENV, issue_token


def signed_in(user: str) -> dict[str, str]:
    """The environment of a process whose person signed in as user."""
    return {**os.environ, TOKEN_ENV: issue_token(user)}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_each_command_in_a_fresh_process(tmp_path: Path) -> None:
    """Five separate Python processes share nothing but the file: the email still goes out once."""
    def cli(*argv: str) -> str:
        done = subprocess.run([sys.executable, "-m", "evidencedesk.agent.cli", *argv], cwd=tmp_path,
                              capture_output=True, text=True, timeout=60, env=signed_in("maria"))
        assert done.returncode == 0, done.stderr
        return done.stdout
    assert cli("start", "b01", "run.json") == ("b01: awaiting_approval, pa-1 (send_email_draft) asked of an approver\n"
                                               "  expires at 600.0 s; saved run.json\n")
    assert "emails sent by this process: 1" in cli("approve", "run.json", "pa-1", "--by", "maria", "--after", "120")
    assert cli("resume", "run.json").startswith("b01: resumed, now done (done)")
    assert cli("resume", "run.json").startswith("b01: already_finished, now done (done)")
    assert [line.split()[3] for line in cli("audit", "run.json").splitlines()] == [
        "ok", "needs_approval", "asked", "approved", "ok", "resumed", "already_finished"]


def test_a_forged_file_is_refused_by_name(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, issue_token("maria"))
    run(capsys, "start", "b01", str(tmp_path / "run.json"))
    forged = tmp_path / "forged.json"
    forged.write_text((tmp_path / "run.json").read_text().replace("kwame@example.org", "evil@example.org"))
    code, out, err = run(capsys, "approve", str(forged), "pa-1", "--by", "maria")
    assert (code, out) == (1, "")
    assert err == "refused: forged.json: tampered: the signature does not match the contents\n"
    assert str(tmp_path) not in err  # a file is named, its folder never printed


@pytest.mark.parametrize("by, code", [("kwame", "own_request"), ("lena", "not_approver")])
def test_a_refused_decision_exits_1_with_its_code(tmp_path: Path, capsys, monkeypatch, by: str, code: str) -> None:
    monkeypatch.setenv(TOKEN_ENV, issue_token(by))
    run(capsys, "start", "b01", str(tmp_path / "run.json"))
    assert run(capsys, "approve", str(tmp_path / "run.json"), "pa-1", "--by", by) == (
        1, "", f"refused: approve pa-1 by {by}: {code}\n  emails sent by this process: 0\n")


def test_decline_then_resume_ends_denied(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, issue_token("maria"))
    path = str(tmp_path / "run.json")
    run(capsys, "start", "b02", path)
    assert run(capsys, "decline", path, "pa-1", "--by", "maria")[1].startswith("pa-1: declined by maria\n  emails sent by this process: 0;")
    assert run(capsys, "resume", path)[1].startswith("b02: resumed, now stopped (denied)")


def test_a_run_that_never_parks_is_saved_as_it_ended(tmp_path: Path, capsys) -> None:
    assert run(capsys, "start", "b10", str(tmp_path / "run.json"))[1] == "b10: stopped cancelled; saved run.json\n"


@pytest.mark.parametrize("argv, message", [
    (["start", "b99", "run.json"], "refused: no row 'b99' in boundaries.jsonl"),
    (["start", "b12", "run.json"], "refused: row b12 is a team row"),
    (["resume", "absent.json"], "refused: absent.json: unreadable:"),
    (["start", "b01", "no/such/folder/run.json"], "refused: run.json: cannot write it (FileNotFoundError)"),
])
def test_bad_requests_are_refused_not_crashed(tmp_path: Path, capsys, monkeypatch, argv: list[str],
                                              message: str) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, *argv)
    assert (code, out) == (1, "") and err.startswith(message), err


@pytest.mark.parametrize("after", ["-1", "nan", "inf"])
def test_a_bad_time_is_a_usage_error(tmp_path: Path, capsys, after: str) -> None:
    assert run(capsys, "resume", str(tmp_path / "run.json"), "--after", after)[0] == 2


@pytest.mark.parametrize("token_for, by, code", [("kwame", "maria", "not_you"), (None, "maria", "not_signed_in"),
                                                 ("forged", "maria", "bad_token")])
def test_by_cannot_name_someone_else(tmp_path: Path, capsys, monkeypatch, token_for, by: str, code: str) -> None:
    """Kind 9: the decider is the signed-in session; --by naming another person is refused and nothing runs."""
    run(capsys, "start", "b01", str(tmp_path / "run.json"))
    if token_for == "forged":
        monkeypatch.setenv(TOKEN_ENV, "maria." + "0" * 64)  # the right shape, a signature nobody issued
    elif token_for:
        monkeypatch.setenv(TOKEN_ENV, issue_token(token_for))
    else:
        monkeypatch.delenv(TOKEN_ENV, raising=False)
    exit_code, out, err = run(capsys, "approve", str(tmp_path / "run.json"), "pa-1", "--by", by)
    assert (exit_code, out) == (1, "") and err.startswith(f"refused: approve pa-1: {code}: "), err
    monkeypatch.setenv(TOKEN_ENV, issue_token("maria"))
    assert run(capsys, "audit", str(tmp_path / "run.json"))[1].splitlines()[-1].split()[3] == "asked"  # untouched


def test_the_audit_command_prints_one_line_per_event(tmp_path: Path, capsys, monkeypatch) -> None:
    """Kind 7, as printed: an id holding a line break cannot add a line to the audit."""
    monkeypatch.setenv(TOKEN_ENV, issue_token("maria"))
    run(capsys, "start", "b01", str(tmp_path / "run.json"))
    forged = "pa-9\npa-1    send_email_draft  maria  approved          at 0.0 s"
    assert run(capsys, "approve", str(tmp_path / "run.json"), forged, "--by", "maria")[0] == 1
    lines = run(capsys, "audit", str(tmp_path / "run.json"))[1].splitlines()
    assert len(lines) == 4 and lines[-1].split()[:4] == ["?", "?", "maria", "unknown_id"]
