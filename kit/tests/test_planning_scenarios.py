"""Tests of evidencedesk.planning.scenarios: the lab, the fourteen-row table and its validation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencedesk.planning.execute import REASONS
from evidencedesk.planning.scenarios import PLANNING_DATA, RowError, check_row, lab, load_rows, observed, run_row

# what the course page shows: id -> (reason, codes of a refused plan, tool calls, model calls, parked to)
EXPECTED = {
    "p01": ("done", [], 2, 2, ""), "p02": ("done", [], 1, 3, ""), "p03": ("no_plan", [], 0, 2, ""),
    "p04": ("plan_refused", ["not_allowed"], 0, 1, ""), "p05": ("plan_refused", ["unknown_field"], 0, 1, ""),
    "p06": ("plan_refused", ["cycle"], 0, 1, ""), "p07": ("plan_refused", ["untrusted_source"], 0, 1, ""),
    "p08": ("needs_approval", [], 3, 1, "evil@example.org"), "p09": ("plan_refused", ["call_limit"], 0, 1, ""),
    "p10": ("plan_refused", ["cost_budget"], 0, 1, ""), "p11": ("done", [], 4, 3, ""),
    "p12": ("replan_limit", [], 6, 3, ""), "p13": ("plan_refused", ["step_budget"], 2, 2, ""),
    "p14": ("needs_approval", [], 3, 1, "kwame@example.org"),
}
ROWS = {row["id"]: row for row in load_rows()}


def test_table_has_the_fourteen_rows_in_order() -> None:
    assert list(ROWS) == list(EXPECTED)
    assert all(row["why"] and row["expect"]["emails"] == 0 for row in ROWS.values())


@pytest.mark.parametrize("row_id", list(EXPECTED))
def test_row_runs_as_the_page_shows(row_id: str) -> None:
    got = observed(*run_row(ROWS[row_id]))
    assert (got["reason"], got["codes"], len(got["calls"]), got["model_calls"], got["parked_to"]) == EXPECTED[row_id]
    assert got["emails"] == 0 and check_row(ROWS[row_id]) == []


def test_no_refused_plan_reaches_the_gate_on_its_own() -> None:
    for row in ROWS.values():
        run, agent, _ = run_row(row)
        if run.reason == "plan_refused":  # only the earlier plans of a replanned run may have run
            assert len(run.calls) == sum(len(p.steps) for p in run.plans[:-1])


def test_the_only_injected_recipient_is_the_one_with_the_data_flow_rule_off() -> None:
    parked = {row_id: got[4] for row_id, got in EXPECTED.items() if got[4]}
    assert parked == {"p08": "evil@example.org", "p14": "kwame@example.org"} and ROWS["p08"]["guarded"] is False


def test_the_reasons_no_row_reaches() -> None:
    reached = {run_row(row)[0].reason for row in ROWS.values()}
    assert sorted(set(REASONS) - reached) == ["cost_budget", "forbidden_task", "no_answer", "step_budget",
                                              "time_budget", "unauthenticated"]


def test_check_row_names_each_mismatch() -> None:
    row = {**ROWS["p04"], "expect": {**ROWS["p04"]["expect"], "reason": "done", "model_calls": 5}}
    assert check_row(row) == ["p04 reason: expected 'done', got 'plan_refused'", "p04 model_calls: expected 5, got 1"]


def good_line() -> dict:
    return json.loads((PLANNING_DATA / "scenarios.jsonl").read_text().splitlines()[0])


@pytest.mark.parametrize("change, field", [
    ({"planner": "oracle"}, "planner"),
    ({"user": "mallory"}, "user"),
    ({"task": "refund"}, "task"),
    ({"id": "s01"}, "id"),
    ({"grant": "yes"}, "grant"),
    ({"guarded": 0}, "guarded"),
    ({"limits": {"max_steps": "3"}}, "limits.max_steps"),
    ({"limits": {"max_cost": 0.008}}, "limits.max_cost"),  # a float is never money
    ({"limits": {"max_cost": "1e3"}}, "limits.max_cost"),
    ({"limits": {"max_replans": -1}}, "limits.max_replans"),
    ({"expect": {**good_line()["expect"], "reason": "finished"}}, "expect.reason"),
    ({"expect": {**good_line()["expect"], "codes": ["oops"]}}, "expect.codes"),
    ({"colour": "red"}, "colour"),
])
def test_bad_rows_name_line_and_field(tmp_path: Path, change: dict, field: str) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(good_line()) + "\n\n" + json.dumps({**good_line(), "id": "p02", **change}) + "\n")
    with pytest.raises(RowError) as exc:
        load_rows(path)
    assert str(exc.value).startswith(f"rows.jsonl line 3: field {field}")


def test_bad_json_repeated_ids_and_unreadable_files_are_named(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text("{not json\n")
    with pytest.raises(RowError, match="line 1: not JSON"):
        load_rows(path)
    path.write_text(json.dumps(good_line()) + "\n" + json.dumps(good_line()) + "\n")
    with pytest.raises(RowError, match="line 2: field id: repeated id 'p01'"):
        load_rows(path)
    with pytest.raises(RowError, match="absent.jsonl: cannot read"):
        load_rows(tmp_path / "absent.jsonl")


def test_the_lab_wires_a_fresh_agent_and_refuses_bad_settings() -> None:
    agent, outbox = lab("typo", task="reply", grant=True)
    assert agent.gate.policy.tools_for("reply") == {"get_ticket", "lookup_document", "get_contact", "send_email_draft"}
    assert agent.gate.policy.tools_for("triage") == {"get_ticket", "lookup_document"}
    assert lab()[0].gate is not agent.gate and agent.clock() == 0.0 and outbox.sent == []
    with pytest.raises(ValueError, match="'oracle'"):
        lab("oracle")
    with pytest.raises(ValueError, match="max_replans must be an int >= 0"):
        lab(max_replans=-1)
