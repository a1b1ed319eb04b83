"""The scenario table: every row holds, and a row that states the wrong outcome is caught."""

import json

import pytest

from evidencedesk.quotas.scenarios import check_row, load_rows, plan_of


@pytest.mark.parametrize("row", load_rows(), ids=lambda r: r["id"])
def test_row_holds(row):
    assert check_row(row) == []


def test_a_wrong_expectation_is_reported():
    row = dict(load_rows()[1])
    row["expect"] = dict(row["expect"], started=10)
    assert check_row(row) == ["started: expected 10, got 6"]


def test_a_row_with_a_missing_field_is_refused_by_line(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps({"id": "x"}) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="line 1"):
        load_rows(path)


def test_overrides_are_checked_like_any_plan():
    assert plan_of({"daily_cap": "0.01"}).daily_cap == plan_of({}).daily_cap / 100
    with pytest.raises(ValueError, match="rpm"):
        plan_of({"rpm": 0})
