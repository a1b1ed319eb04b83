"""Tests of evidencedesk.agent.boundaries: the table of approval, cancel and delegation worst cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencedesk.agent.boundaries import AGENT_DATA, check_row, load_rows, play_row, start
from evidencedesk.agent.delegation import REFUSALS
from evidencedesk.agent.scenarios import ScenarioError, load_scenarios, run_scenario
from evidencedesk.agent.state import REASONS

# what the course page shows: id -> (status, reason, emails sent, codes in order)
EXPECTED = {
    "b01": ("done", "done", 1, ["approved", "resumed", "already_finished"]),
    "b02": ("stopped", "denied", 0, ["declined", "resumed"]),
    "b03": ("awaiting_approval", "needs_approval", 0, ["own_request", "undecided"]),
    "b04": ("awaiting_approval", "needs_approval", 0, ["not_approver", "undecided"]),
    "b05": ("stopped", "denied", 0, ["expired", "resumed"]),
    "b06": ("done", "done", 1, ["approved", "already_decided", "resumed"]),
    "b07": ("awaiting_approval", "needs_approval", 0, ["unknown_id", "undecided"]),
    "b08": ("awaiting_approval", "needs_approval", 0, ["tampered", "tampered"]),
    "b09": ("stopped", "cancelled", 0, ["cancelled", "resumed"]),
    "b10": ("stopped", "cancelled", 0, []),
    "b11": ("done", "done", 1, ["approved", "already_decided", "resumed"]),
    "b12": ("done", "done", 0, []),
    "b13": ("stopped", "stuck", 0, ["depth_limit", "worker_stopped", "worker_stopped"]),
    "b14": ("stopped", "stuck", 0, ["cycle", "worker_stopped"]),
    "b15": ("stopped", "stuck", 0, ["escalation"]),
    "b16": ("stopped", "step_budget", 0, ["worker_stopped"]),
    "b17": ("stopped", "step_budget", 0, ["budget_spent"]),
    "b18": ("stopped", "stuck", 0, ["unknown_agent"]),
}
ROWS = {row["id"]: row for row in load_rows()}


def test_the_table_has_its_rows_in_order() -> None:
    assert list(ROWS) == list(EXPECTED) and all(row["why"] for row in ROWS.values())


@pytest.mark.parametrize("row_id", list(EXPECTED))
def test_row_plays_as_the_page_shows(row_id: str) -> None:
    played = play_row(ROWS[row_id])
    assert (played.state.status, played.state.reason, played.emails, played.codes) == EXPECTED[row_id]
    assert check_row(ROWS[row_id]) == []


def test_with_the_agent_pages_table_every_reason_is_reached() -> None:
    reached = {run_scenario(row)[0].reason for row in load_scenarios()}
    mine = {play_row(row).state.reason for row in ROWS.values()}
    assert {"denied", "cancelled"} <= mine and reached | mine == set(REASONS)


def test_every_delegation_refusal_is_reached() -> None:
    codes = {code for row in ROWS.values() for code in play_row(row).codes}
    assert set(REFUSALS) <= codes
    assert play_row(ROWS["b16"]).state.reason == "step_budget"  # the shared budget, reached inside a worker


def test_no_row_sends_more_than_one_email() -> None:
    assert max(play_row(row).emails for row in ROWS.values()) == 1


def test_check_row_names_each_mismatch() -> None:
    row = {**ROWS["b03"], "expect": {"status": "done", "reason": "done", "calls": [], "emails": 1, "codes": []}}
    assert check_row(row) == [
        "b03 status: expected 'done', got 'awaiting_approval'",
        "b03 reason: expected 'done', got 'needs_approval'",
        "b03 calls: expected [], got ['get_ticket', 'send_email_draft']",
        "b03 emails: expected 1, got 0",
        "b03 codes: expected [], got ['own_request', 'undecided']",
    ]


def test_start_refuses_a_team_row() -> None:
    with pytest.raises(ValueError, match="b12 is a team row"):
        start(ROWS["b12"])


def first_line() -> dict:
    return json.loads((AGENT_DATA / "boundaries.jsonl").read_text().splitlines()[0])


@pytest.mark.parametrize("change, message", [
    ({"agent": "chatty"}, "field agent: Value error, unknown model 'chatty'"),
    ({"agent": [["get_ticket"]]}, "field agent: Value error, a plan is a list of"),
    ({"team": {"lead": "sensible"}}, "field agent: give either agent or team"),
    ({"agent": None}, "field agent: give either agent or team"),
    ({"decisions": [{"do": "allow", "by": "maria"}]}, "field decisions.0.do:"),
    ({"decisions": [{"do": "approve", "by": "maria", "after_s": -1.0}]}, "field decisions.0.after_s:"),
    ({"resumes": "2"}, "field resumes:"),
    ({"user": "mallory"}, "field user: Value error, unknown user 'mallory'"),
    ({"expect": {"status": "done", "reason": "over", "calls": [], "emails": 0, "codes": []}}, "field expect.reason"),
    ({"colour": "red"}, "field colour:"),
    ({"id": "b01"}, "field id: repeated id 'b01'"),
])
def test_bad_rows_name_line_and_field(tmp_path: Path, change: dict, message: str) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(first_line()) + "\n\n" + json.dumps({**first_line(), "id": "b02", **change}) + "\n")
    with pytest.raises(ScenarioError) as exc:
        load_rows(path)
    assert str(exc.value).startswith(f"rows.jsonl line 3: {message}"), str(exc.value)


def test_a_line_that_is_not_json_or_a_file_that_is_missing_is_named(tmp_path: Path) -> None:
    (tmp_path / "rows.jsonl").write_text('{"id": "b01",\n')
    with pytest.raises(ScenarioError, match="rows.jsonl line 1: not JSON"):
        load_rows(tmp_path / "rows.jsonl")
    with pytest.raises(ScenarioError, match="absent.jsonl: cannot read"):
        load_rows(tmp_path / "absent.jsonl")
