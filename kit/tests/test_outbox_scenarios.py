"""Every row of kit/data/outbox/scenarios.jsonl holds; a wrong expectation is reported; a bad row is refused
with its line and field."""

import pytest

from evidencedesk.outbox.crash import CRASH_POINTS
from evidencedesk.outbox.scenarios import ScenarioError, check_row, load_rows


@pytest.mark.parametrize("row", load_rows(), ids=lambda r: r.id)
def test_row_holds(row):
    assert check_row(row) == []


def test_every_boundary_has_rows_for_both_receivers_and_a_wrong_row_is_caught(tmp_path):
    rows = load_rows()
    assert {(r.crash, r.receiver) for r in rows if r.path == "outbox"} >= {
        (b, k) for b in CRASH_POINTS for k in ("idempotent", "naive")}
    wrong = next(r for r in rows if r.crash == "after_send" and r.receiver == "naive").model_copy(
        update={"expect": rows[0].expect})
    assert check_row(wrong) == ["deliveries: expected 1, got 2", "duplicates: expected 0, got 1",
                                "effects: expected 1, got 2"]
    bad = tmp_path / "s.jsonl"
    bad.write_text('{"id": "x", "path": "outbox", "crash": "after_lunch", "receiver": "naive",'
                   ' "expect": {"deliveries": 1, "duplicates": 0, "effects": 1}, "why": ""}\n', encoding="utf-8")
    with pytest.raises(ScenarioError, match="line 1: field crash"):
        load_rows(bad)
