"""Tests of evidencedesk.supplychain.scenarios: every row of the table matches, and bad rows are refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencedesk.supplychain.scenarios import ScenarioError, check_scenario, load_scenarios, run_scenario

ROWS = load_scenarios()


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_every_row_matches(row: dict) -> None:
    assert check_scenario(row) == []


def test_a_row_that_expects_the_wrong_thing_is_reported() -> None:
    row = {**ROWS[4], "expect": "not_found"}
    assert check_scenario(row) == [f"s05: expected 'not_found', got {run_scenario(ROWS[4])!r}"]


def test_a_bad_row_is_refused_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({**ROWS[0], "server": "github"}) + "\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match="line 1"):
        load_scenarios(path)
