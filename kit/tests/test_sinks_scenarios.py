"""Tests of evidencedesk.sinks.scenarios: the twenty-five-row table, and how a bad row is reported."""

from __future__ import annotations

import json

import pytest

from evidencedesk.sinks.scenarios import KINDS, ScenarioError, check_row, load_rows, run_row

ROWS = {row["id"]: row for row in load_rows()}


def test_the_table_covers_every_kind_in_order() -> None:
    assert list(ROWS) == [f"o{i:02d}" for i in range(1, 26)] and {r["kind"] for r in ROWS.values()} == set(KINDS)


@pytest.mark.parametrize("row_id", list(ROWS))
def test_each_row_matches(row_id: str) -> None:
    assert check_row(ROWS[row_id]) == []


def test_a_wrong_expectation_is_reported() -> None:
    row = dict(ROWS["o04"], expect="dropped 0")
    assert run_row(row) == "dropped 1" and check_row(row) == ["o04: expected 'dropped 0', got 'dropped 1'"]


def test_a_bad_row_names_its_line(tmp_path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(ROWS["o01"]) + "\n" + json.dumps(dict(ROWS["o02"], kind="ftp")) + "\n",
                    encoding="utf-8")
    with pytest.raises(ScenarioError, match="line 2"):
        load_rows(path)
