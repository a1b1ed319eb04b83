"""Tests of evidencedesk.evals.scenarios: the eighteen rows the course page prints, and their validation."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from evidencedesk.evals.cases import EVALS_DATA
from evidencedesk.evals.scenarios import ScenarioError, check_scenario, load_scenarios, run_scenario

ROWS = {row["id"]: row for row in load_scenarios()}
# what the page shows: id -> the grade's code, or the figures
EXPECTED = {
    "e01": "pass", "e02": "mismatch", "e03": "pass", "e04": "mismatch", "e05": "pass", "e06": "out_of_tolerance",
    "e07": "out_of_tolerance", "e08": "not_a_number", "e09": "schema", "e10": "citation_not_allowed",
    "e11": ("0.0000", "0.2775"), "e12": ("0.7225", "1.0000"), "e13": "1.0000", "e14": "0.0312",
    "e15": (("0.0300", "0.0600", "0.0600"), (True, False, False)),
    "e16": (("0.0300", "0.0400", "0.0400"), (True, True, True)),
    "e17": ("0.7500", "0.2500", "0.1531"), "e18": ("0.6667", "0.3333", "0.1361"),
}


def test_the_table_has_eighteen_rows_of_five_kinds_in_order() -> None:
    assert list(ROWS) == list(EXPECTED)
    assert Counter(row["kind"] for row in ROWS.values()) == {"grade": 10, "wilson": 2, "mcnemar": 2, "holm": 2,
                                                            "sampled": 2}
    graders = Counter(row["case"]["grader"] for row in ROWS.values() if row["kind"] == "grade")
    assert graders == {"exact": 2, "set": 2, "numeric": 4, "json": 1, "citation": 1}


@pytest.mark.parametrize("row_id", list(EXPECTED))
def test_each_row_runs_as_the_page_shows(row_id: str) -> None:
    got = run_scenario(ROWS[row_id])
    shown = {"grade": lambda: got["code"], "wilson": lambda: (got["low"], got["high"]), "mcnemar": lambda: got["p"],
             "holm": lambda: (got["adjusted"], got["rejected"]),
             "sampled": lambda: (got["rate"], got["se_cases"], got["se_draws"])}
    assert shown[ROWS[row_id]["kind"]]() == EXPECTED[row_id]
    assert check_scenario(ROWS[row_id]) == []


def test_check_scenario_names_each_difference() -> None:
    wrong = {**ROWS["e05"], "expect": {"passed": False, "code": "out_of_tolerance"}}
    assert check_scenario(wrong) == ["e05 passed: expected False, got True",
                                     "e05 code: expected 'out_of_tolerance', got 'pass'"]
    assert check_scenario({**ROWS["e11"], "expect": {"low": "0.0000", "high": "0.2776"}}) == [
        "e11 high: expected '0.2776', got '0.2775'"]


def good() -> dict:
    return json.loads((EVALS_DATA / "scenarios.jsonl").read_text(encoding="utf-8").splitlines()[0])


@pytest.mark.parametrize("change, field", [
    ({"kind": "judge"}, "row"),
    ({"expect": {"passed": True, "code": "close_enough"}}, "grade.expect.code"),
    ({"case": {**good()["case"], "grader": "fuzzy"}}, "grade.case"),
    ({"case": {**good()["case"], "expected": 5}}, "grade.case"),
    ({"id": "x01"}, "grade.id"),
    ({"why": ""}, "grade.why"),
    ({"kind": "wilson", "passed": 1, "total": 0, "expect": {"low": "0", "high": "1"}, "case": None, "reply": None},
     "wilson.total"),
    ({"kind": "mcnemar", "only_a": "3", "only_b": 3, "expect": {"p": "1.0000"}}, "mcnemar.only_a"),
    ({"kind": "holm", "p_values": ["0.01"], "expect": {"adjusted": ["0.0100"], "rejected": [True]}},
     "holm.p_values.0"),
    ({"kind": "holm", "p_values": [], "expect": {"adjusted": [], "rejected": []}}, "holm.p_values"),
    ({"kind": "sampled", "passes": [[True], [1]], "expect": {"rate": "0.5000", "se_cases": "0.5000",
                                                            "se_draws": "0.3536"}}, "sampled.passes.1.0"),
    ({"kind": "sampled", "passes": [[True], []], "expect": {"rate": "0.5000", "se_cases": "0.5000",
                                                           "se_draws": "0.3536"}}, "sampled.passes"),
])
def test_a_bad_row_is_named_by_line_and_field(tmp_path: Path, change: dict, field: str) -> None:
    row = {**good(), "id": "e02", **change}
    row = {k: v for k, v in row.items() if v is not None}
    if row["kind"] != "grade":
        row = {k: v for k, v in row.items() if k not in ("case", "reply")}
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(good()) + "\n" + json.dumps(row) + "\n", encoding="utf-8")
    with pytest.raises(ScenarioError) as exc:
        load_scenarios(path)
    assert str(exc.value).startswith(f"rows.jsonl line 2: field {field}:")


def test_a_bad_case_inside_a_row_names_the_case_field_on_one_line(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps({**good(), "case": {**good()["case"], "grader": "numeric"}}) + "\n", encoding="utf-8")
    with pytest.raises(ScenarioError) as exc:
        load_scenarios(path)
    assert str(exc.value) == ("rows.jsonl line 1: field grade.case: Value error, numeric.expected: "
                              "String should match pattern '^-?[0-9]{1,15}(\\.[0-9]{1,15})?$'")


def test_repeated_ids_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(good()) + "\n" + json.dumps(good()) + "\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match="line 2: field id: repeated id 'e01'"):
        load_scenarios(path)


def test_every_public_model_of_the_table_says_what_it_holds() -> None:
    import inspect

    from evidencedesk.evals import scenarios

    models = [obj for name, obj in vars(scenarios).items()
              if inspect.isclass(obj) and not name.startswith("_") and obj.__module__ == scenarios.__name__]
    assert {m.__name__ for m in models} >= {"WilsonExpect", "McNemarExpect", "HolmExpect", "SampledExpect"}
    assert [m.__name__ for m in models if not (m.__doc__ or "").strip()] == []
