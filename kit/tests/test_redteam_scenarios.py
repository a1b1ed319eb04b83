"""Tests of evidencedesk.redteam.scenarios: every row of the table matches, and bad rows are refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencedesk.redteam.scenarios import ScenarioError, check_scenario, load_scenarios, run_scenario

ROWS = load_scenarios()


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_every_row_matches(row: dict) -> None:
    assert check_scenario(row) == []


def test_a_row_that_expects_the_wrong_thing_is_reported() -> None:
    row = {**ROWS[0], "expect": ["something else"]}
    assert check_scenario(row) == [f"r01: expected ['something else'], got {run_scenario(ROWS[0])!r}"]


def test_unknown_names_are_refused_with_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({**ROWS[0], "mutation": "pig_latin"}) + "\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match="line 1"):
        load_scenarios(path)


def test_a_probe_of_a_row_that_is_no_seed_is_refused() -> None:
    with pytest.raises(LookupError, match="not a campaign seed"):
        run_scenario({"id": "r99", "kind": "probe", "seed": "a03", "mutation": "plain",
                      "expect": {"flagged": True, "codes": []}, "why": "x"})
