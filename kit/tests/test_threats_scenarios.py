"""Every row of the scenario table holds, and a wrong row is caught."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidencedesk.threats.scenarios import check_row, load_rows


@pytest.mark.parametrize("row", load_rows(), ids=lambda r: r["id"])
def test_row_holds(row: dict) -> None:
    assert check_row(row) == []


def test_a_wrong_expectation_is_reported() -> None:
    row = {**load_rows()[0], "expect": {"legs": "P U X", "verdict": "allowed"}}
    assert check_row(row) == ["legs: expected P U X, got P U"]


def test_both_verdicts_that_need_attention_are_in_the_table() -> None:
    assert {r["expect"]["verdict"] for r in load_rows()} == {"allowed", "supervised", "violates"}


def test_a_bad_line_is_named(tmp_path: Path) -> None:
    (tmp_path / "s.jsonl").write_text('{"id": "s1"}\n')
    with pytest.raises(ValueError, match="s.jsonl: line 1"):
        load_rows(tmp_path / "s.jsonl")
