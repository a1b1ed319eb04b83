"""The routing scenario table: every row holds (evidencedesk.routing.scenarios)."""

import pytest

from evidencedesk.routing.models import load_route_cases
from evidencedesk.routing.scenarios import ScenarioError, check_row, load_rows, run_row

CASES = load_route_cases()
ROWS = load_rows()


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_every_row_holds(row):
    assert check_row(row, CASES) == []


def test_the_table_covers_every_route():
    assert {r.expect.route for r in ROWS} == {"accepted", "escalated", "target_down"}


def test_a_changed_expectation_is_caught():
    row = ROWS[0].model_copy(update={"expect": ROWS[0].expect.model_copy(update={"passed": False})})
    assert check_row(row, CASES) == ["passed: expected False, got True"]


def test_a_row_naming_an_unknown_case_is_refused():
    with pytest.raises(ScenarioError, match="no case"):
        run_row(ROWS[0].model_copy(update={"case": "z99"}), CASES)


def test_a_bad_row_names_its_line(tmp_path):
    path = tmp_path / "scenarios.jsonl"
    path.write_text('{"id": "s01", "case": "g02", "threshold": "2"}\n', encoding="utf-8")
    with pytest.raises(ScenarioError, match="line 1"):
        load_rows(path)
