"""Tests of evidencedesk.agent.scenarios: the lab, the fourteen-row failure table and its validation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from evidencedesk.agent.scenarios import (
    AGENT_DATA,
    ScenarioError,
    check_scenario,
    lab,
    load_scenarios,
    run_scenario,
)
from evidencedesk.agent.state import REASONS
from evidencedesk.usage import SlowClient

# what the course page shows: id -> (status, reason, tool calls that reached the gate); no row sends an email
EXPECTED = {
    "s01": ("done", "done", 2), "s02": ("stopped", "repeated_call", 1), "s03": ("stopped", "step_budget", 4),
    "s04": ("stopped", "time_budget", 2), "s05": ("stopped", "cost_budget", 4), "s06": ("stopped", "stuck", 0),
    "s07": ("stopped", "stuck", 0), "s08": ("stopped", "stuck", 0), "s09": ("done", "done", 1),
    "s10": ("awaiting_approval", "needs_approval", 2), "s11": ("stopped", "repeated_call", 1),
    "s12": ("stopped", "unauthenticated", 0), "s13": ("stopped", "forbidden_task", 0),
    "s14": ("stopped", "call_limit", 3),
}
ROWS = {row["id"]: row for row in load_scenarios()}


def test_table_has_the_fourteen_rows_in_order() -> None:
    assert list(ROWS) == list(EXPECTED)
    assert all(row["why"] and row["expect"]["emails"] == 0 for row in ROWS.values())


@pytest.mark.parametrize("row_id", list(EXPECTED))
def test_row_runs_as_the_page_shows(row_id: str) -> None:
    run, outbox = run_scenario(ROWS[row_id])
    assert (run.state.status, run.reason, len(run.calls), len(outbox.sent)) == (*EXPECTED[row_id], 0)
    assert check_scenario(ROWS[row_id]) == []


def test_every_reason_but_the_next_pages_is_reached() -> None:
    reached = {run_scenario(row)[0].reason for row in ROWS.values()}
    assert sorted(set(REASONS) - reached) == ["cancelled", "denied"]


def test_check_scenario_names_each_mismatch() -> None:
    row = {**ROWS["s02"], "expect": {"status": "done", "reason": "done", "calls": [], "emails": 1}}
    assert check_scenario(row) == [
        "s02 status: expected 'done', got 'stopped'",
        "s02 reason: expected 'done', got 'repeated_call'",
        "s02 calls: expected [], got ['get_ticket']",
        "s02 emails: expected 1, got 0",
    ]


def good_line() -> dict:
    return json.loads((AGENT_DATA / "scenarios.jsonl").read_text().splitlines()[0])


@pytest.mark.parametrize("change, field", [
    ({"model": "chatty"}, "model"),
    ({"limits": {"max_steps": 0}}, "limits.max_steps"),
    ({"limits": {"max_tokens": 5}}, "limits.max_tokens"),
    ({"expect": {"status": "done", "reason": "finished", "calls": [], "emails": 0}}, "expect.reason"),
    ({"id": "row-1"}, "id"),
    ({"colour": "red"}, "colour"),
])
def test_bad_rows_name_line_and_field(tmp_path: Path, change: dict, field: str) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(good_line()) + "\n\n" + json.dumps({**good_line(), "id": "s02", **change}) + "\n")
    with pytest.raises(ScenarioError) as exc:
        load_scenarios(path)
    assert str(exc.value).startswith(f"rows.jsonl line 3: field {field}:")


def test_bad_json_and_repeated_ids_are_named(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text("{not json\n")
    with pytest.raises(ScenarioError, match="line 1: not JSON"):
        load_scenarios(path)
    path.write_text(json.dumps(good_line()) + "\n" + json.dumps(good_line()) + "\n")
    with pytest.raises(ScenarioError, match="line 2: field id: repeated id 's01'"):
        load_scenarios(path)


def test_lab_wires_a_fresh_agent() -> None:
    agent, outbox = lab(user="", slow=0.5)
    assert agent.memory.owner == "anonymous" and agent.session.tasks == frozenset()
    assert isinstance(agent.decider.client, SlowClient) and outbox.sent == []
    assert lab()[0].gate is not agent.gate and agent.clock() == 0.0


def test_lab_rejects_an_unknown_model() -> None:
    with pytest.raises(ValueError, match="'oracle'"):
        lab(model="oracle")


# Regression tests for the attack findings: strict rows, strict JSON, known users and tasks, lab arguments.
@pytest.mark.parametrize("change, field", [
    ({"grant": "yes"}, "grant"),
    ({"grant": "false"}, "grant"),
    ({"grant": 0}, "grant"),
    ({"slow": "0.5"}, "slow"),
    ({"limits": {"max_steps": "3"}}, "limits.max_steps"),
    ({"limits": {"max_steps": True}}, "limits.max_steps"),
    ({"limits": {"max_seconds": "4"}}, "limits.max_seconds"),
    ({"limits": {"max_cost": 0.005}}, "limits.max_cost"),  # a float is never money
    ({"limits": {"max_cost": "1e3"}}, "limits.max_cost"),
    ({"limits": {"max_cost": " 0.005"}}, "limits.max_cost"),
    ({"limits": {"max_cost": "0"}}, "limits.max_cost"),
    ({"expect": {"status": "done", "reason": "done", "calls": [], "emails": "0"}}, "expect.emails"),
    ({"user": "mallory"}, "user"),
    ({"user": "Kwame"}, "user"),
    ({"task": "refund"}, "task"),
    ({"id": "s\u0660\u0661"}, "id"),
])
def test_rows_are_strict_and_name_line_and_field(tmp_path: Path, change: dict, field: str) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(good_line()) + "\n" + json.dumps({**good_line(), "id": "s02", **change}) + "\n")
    with pytest.raises(ScenarioError) as exc:
        load_scenarios(path)
    assert str(exc.value).startswith(f"rows.jsonl line 2: field {field}:")


def test_max_cost_is_a_decimal_string_and_the_real_table_keeps_loading(tmp_path: Path) -> None:
    s05 = ROWS["s05"]
    assert s05["limits"] == {"max_cost": "0.005"} and check_scenario(s05) == []
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps({**good_line(), "user": "", "limits": {"max_cost": "0.5"}}) + "\n")
    assert load_scenarios(path)[0]["user"] == ""  # "" (nobody signed in) is a known user


@pytest.mark.parametrize("line, reason", [
    ("[" * 100_000 + "]" * 100_000, "nested more than"),
    ('{"id": "s01", "id": "s02"}', "repeated key 'id'"),
    ('{"id": "s01", "slow": NaN}', "NaN is not a JSON number"),
])
def test_lines_that_break_strict_json_are_named(tmp_path: Path, line: str, reason: str) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(good_line()) + "\n" + line + "\n")
    with pytest.raises(ScenarioError, match=f"rows.jsonl line 2: not JSON \\({reason}"):
        load_scenarios(path)


def test_a_file_that_is_not_utf8_or_is_missing_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_bytes(json.dumps(good_line()).replace("refund", "r\u00e9fund").encode("latin-1"))
    with pytest.raises(ScenarioError, match="rows.jsonl: cannot read the scenario table \\(UnicodeDecodeError\\)"):
        load_scenarios(path)
    with pytest.raises(ScenarioError, match="absent.jsonl: cannot read"):
        load_scenarios(tmp_path / "absent.jsonl")


@pytest.mark.parametrize("slow", [-1, -0.5, float("nan"), float("inf"), "0.5", True])
def test_lab_refuses_a_bad_slow_naming_it(slow: object) -> None:
    with pytest.raises(ValueError, match="slow must be a finite number of seconds >= 0"):
        lab(slow=slow)  # type: ignore[arg-type]


@pytest.mark.parametrize("user", [None, 7, ["kwame"]])
def test_lab_names_user_id_for_a_user_that_is_not_text(user: object) -> None:
    with pytest.raises(ValidationError) as exc:
        lab(user=user)  # type: ignore[arg-type]
    assert exc.value.errors()[0]["loc"] == ("user_id",)
