"""Every row of kit/data/capstone/scenarios.jsonl holds; a wrong expectation and a bad row are reported."""

import pytest

from evidencedesk.capstone.scenarios import ScenarioError, check_row, load_rows


@pytest.mark.parametrize("row", load_rows(), ids=lambda r: r.id)
def test_row_holds(row):
    assert check_row(row) == []


def test_each_control_is_switched_off_in_some_row():
    rows = load_rows()
    assert {r.controls.review for r in rows} == {"approve", "decline", "off"}
    assert not all(r.controls.gate for r in rows) and not all(r.controls.tracing for r in rows)
    assert not all(r.controls.purge for r in rows)


def test_a_wrong_expectation_is_caught():
    row = load_rows()[0]
    wrong = row.model_copy(update={"expect": row.expect.model_copy(update={"detected": False})})
    assert check_row(wrong) == ["detected: expected False, got True"]


def test_a_bad_row_names_its_line(tmp_path):
    bad = tmp_path / "s.jsonl"
    bad.write_text('{"id": "c01", "controls": {}, "expect": {}, "why": "x"}\n', encoding="utf-8")
    with pytest.raises(ScenarioError, match="line 1"):
        load_rows(bad)
    bad.write_text('{"id": "c01", "controls": {"gate": "no"}, "expect": {"reached": true, "detected": true, '
                   '"contained": true, "purged": true, "clean": true}, "why": "x"}\n', encoding="utf-8")
    with pytest.raises(ScenarioError, match="gate"):
        load_rows(bad)
