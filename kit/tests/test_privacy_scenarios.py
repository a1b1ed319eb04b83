"""Tests of evidencedesk.privacy.scenarios: the twenty rows the course page prints, and their validation."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from evidencedesk.privacy.measure import PRIVACY_DATA
from evidencedesk.privacy.scenarios import (ScenarioError, check_scenario, load_scenarios, run_scenario, safe_prompt,
                                            spaced)

ROWS = {row["id"]: row for row in load_scenarios()}


def test_the_table_has_twenty_rows_of_five_kinds() -> None:
    assert list(ROWS) == [f"s{n:02d}" for n in range(1, 21)]
    assert Counter(row["kind"] for row in ROWS.values()) == {"minimise": 4, "restore": 5, "output": 5, "canary": 4,
                                                              "audit": 2}


@pytest.mark.parametrize("row_id", list(ROWS))
def test_each_row_runs_as_it_expects(row_id: str) -> None:
    assert check_scenario(ROWS[row_id]) == []


def test_key_rows_say_what_the_page_says() -> None:
    assert run_scenario(ROWS["s03"])["text"] == "Please send <TEXT_1> the invoice; mine is <EMAIL_1>."
    assert run_scenario(ROWS["s07"])["mangled"] == ("<name 1>", "EMAIL_1")
    assert run_scenario(ROWS["s13"]) == {"verdict": "block", "kinds": ("KEY",)}
    assert run_scenario(ROWS["s17"]) == {"leaked": False, "copied": 0}
    assert run_scenario(ROWS["s18"]) == {"leaked": False, "copied": 9}


def test_check_scenario_names_each_difference() -> None:
    wrong = {**ROWS["s10"], "expect": {"verdict": "redact", "kinds": ["EMAIL"]}}
    assert check_scenario(wrong) == ["s10 verdict: expected 'redact', got 'pass'",
                                     "s10 kinds: expected ('EMAIL',), got ()"]


def test_the_canary_placeholders_are_filled_in() -> None:
    _, canary = safe_prompt()
    assert spaced(canary).replace(" ", "") == canary and " " in spaced(canary)


def good() -> dict:
    return json.loads((PRIVACY_DATA / "scenarios.jsonl").read_text(encoding="utf-8").splitlines()[0])


@pytest.mark.parametrize("change, field", [
    ({"kind": "redact"}, "row"),
    ({"id": "x01"}, "minimise.id"),
    ({"why": ""}, "minimise.why"),
    ({"expect": {"text": 3}}, "minimise.expect.text"),
    ({"kind": "audit", "prompt": "other", "expect": {"codes": []}, "text": None, "known_names": None}, "audit.prompt"),
    ({"kind": "output", "reply": "x", "expect": {"verdict": "maybe", "kinds": []}, "text": None},
     "output.expect.verdict"),
])
def test_a_bad_row_is_named_by_line_and_field(tmp_path: Path, change: dict, field: str) -> None:
    row = {k: v for k, v in {**good(), "id": "s02", **change}.items() if v is not None}
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(good()) + "\n" + json.dumps(row) + "\n", encoding="utf-8")
    with pytest.raises(ScenarioError) as exc:
        load_scenarios(path)
    assert str(exc.value).startswith(f"rows.jsonl line 2: field {field}:")


def test_repeated_ids_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(good()) + "\n" + json.dumps(good()) + "\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match="line 2: field id: repeated id 's01'"):
        load_scenarios(path)
