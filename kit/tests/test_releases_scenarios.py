"""Every row of kit/data/releases/scenarios.jsonl holds; a wrong expectation and a bad line are reported."""

import pytest

from evidencedesk.releases.scenarios import check_row, load_rows, run_row


@pytest.mark.parametrize("row", load_rows(), ids=lambda r: r["id"])
def test_row_holds(row):
    assert check_row(row) == []


def test_a_wrong_row_is_caught_and_a_bad_line_named(tmp_path):
    row = next(r for r in load_rows() if r["id"] == "c05")  # stops at the pin check: a cheap release
    report = run_row(row)
    assert check_row(dict(row, expect={"outcome": "PROMOTED"}), report) == [
        "outcome: expected 'PROMOTED', got 'stopped at pin'"]
    bad = tmp_path / "s.jsonl"
    bad.write_text('{"id": "x", "change": {"colour": 1}, "behaviour": "baseline", "expect": {}, "why": ""}\n',
                   encoding="utf-8")
    with pytest.raises(ValueError, match="line 1"):
        load_rows(bad)
