"""Tests of evidencedesk.judging.scenarios: the seventeen rows the course page prints, and their validation."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from evidencedesk.judging.pairs import JUDGING_DATA
from evidencedesk.judging.scenarios import ScenarioError, check_scenario, load_scenarios, run_scenario

ROWS = {row["id"]: row for row in load_scenarios()}
EXPECTED = {  # what the page shows: id -> kappa, (winner, calls), or (the rule's code, the judge's verdict)
    "j01": "0.4000", "j02": "0.0000", "j03": "1.0000", "j04": "-1.0000", "j05": "undefined",
    "j06": ("tie", 1), "j07": ("first", 1), "j08": ("first", 1), "j09": ("second", 1), "j10": ("tie", 2),
    "j11": ("second", 2), "j12": ("first", 2), "j13": ("mismatch", "pass"), "j14": ("pass", "fail"),
    "j15": ("0.8043", "0.1006", "0.6073", "1.0000"), "j16": ("0.3412", "0.0263", "0.2897", "0.3927"),
    "j17": ("1.0000", "0.0000", "1.0000", "1.0000"),
}


def shown(row: dict) -> object:
    got = run_scenario(row)
    return {"kappa": lambda: got["kappa"], "verdict": lambda: (got["winner"], got["calls"]),
            "grade": lambda: (got["rule"], got["judge"]),
            "kappa_interval": lambda: (got["kappa"], got["se"], got["low"], got["high"])}[row["kind"]]()


def test_the_table_has_seventeen_rows_of_four_kinds_in_order() -> None:
    assert list(ROWS) == list(EXPECTED)
    assert Counter(row["kind"] for row in ROWS.values()) == {"kappa": 5, "verdict": 7, "grade": 2, "kappa_interval": 3}
    assert Counter(row["judge"] for row in ROWS.values() if row["kind"] == "verdict") == {
        "fair": 2, "first": 2, "longer": 2, "both": 1}


@pytest.mark.parametrize("row_id", list(EXPECTED))
def test_each_row_runs_as_the_page_shows(row_id: str) -> None:
    assert shown(ROWS[row_id]) == EXPECTED[row_id]
    assert check_scenario(ROWS[row_id]) == []


def test_check_scenario_names_each_difference() -> None:
    wrong = {**ROWS["j07"], "expect": {"winner": "second", "calls": 2}}
    assert check_scenario(wrong) == ["j07 winner: expected 'second', got 'first'", "j07 calls: expected 2, got 1"]
    assert check_scenario({**ROWS["j01"], "expect": {"kappa": "0.4001"}}) == [
        "j01 kappa: expected '0.4001', got '0.4000'"]


def test_a_grade_row_reports_the_judges_reason() -> None:
    assert run_scenario(ROWS["j14"])["reason"] == "misses c1 of 1"


def row(row_id: str) -> dict:
    return json.loads(next(line for line in (JUDGING_DATA / "scenarios.jsonl").read_text(encoding="utf-8").splitlines()
                           if f'"id": "{row_id}"' in line))


@pytest.mark.parametrize("base, change, field", [
    ("j06", {"judge": "lenient"}, "verdict.judge"),
    ("j06", {"method": "majority"}, "verdict.method"),
    ("j06", {"points": ['says "30 days"']}, "verdict.points.0"),
    ("j06", {"expect": {"winner": "1", "calls": 1}}, "verdict.expect.winner"),
    ("j01", {"expect": {"kappa": "0.4"}}, "kappa.expect.kappa"),
    ("j01", {"counts": [[1, "2"], [3, 4]]}, "kappa.counts.0.1"),
    ("j15", {"expect": {"kappa": "0.8043", "se": "0.1", "low": "0.6073", "high": "1.0000"}},
     "kappa_interval.expect.se"),
    ("j15", {"expect": {"kappa": "undefined", "se": "0.1006", "low": "0.6073", "high": "1.0000"}},
     "kappa_interval.expect.kappa"),
    ("j13", {"expect": {"rule": "close_enough", "judge": "pass"}}, "grade.expect.rule"),
    ("j13", {"case": {**row("j13")["case"], "grader": "fuzzy"}}, "grade.case"),
    ("j13", {"kind": "opinion"}, "row"),
    ("j13", {"id": "e13"}, "grade.id"),
])
def test_a_bad_row_is_named_by_line_and_field(tmp_path: Path, base: str, change: dict, field: str) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(row("j01")) + "\n" + json.dumps({**row(base), "id": "j99", **change}) + "\n",
                    encoding="utf-8")
    with pytest.raises(ScenarioError) as exc:
        load_scenarios(path)
    assert str(exc.value).startswith(f"rows.jsonl line 2: field {field}:")


def test_a_bad_table_fails_when_the_row_runs() -> None:
    with pytest.raises(ValueError, match="counts must be a 2 x 2 table"):
        run_scenario({**ROWS["j01"], "counts": [[1, 2]]})


def test_repeated_ids_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(row("j01")) + "\n" + json.dumps(row("j01")) + "\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match="line 2: field id: repeated id 'j01'"):
        load_scenarios(path)


def test_an_interval_row_on_a_table_with_no_kappa_fails_when_it_runs() -> None:
    with pytest.raises(ValueError, match="kappa is undefined"):
        run_scenario({**ROWS["j15"], "labels": ["pass"], "counts": [[5]]})
