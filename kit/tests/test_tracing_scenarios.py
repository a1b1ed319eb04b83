"""Every row of kit/data/tracing/scenarios.jsonl holds; a wrong expectation is reported."""

import pytest

from evidencedesk.tracing.lab import KINDS
from evidencedesk.tracing.scenarios import check_row, load_rows


@pytest.mark.parametrize("row", load_rows(), ids=lambda r: r["id"])
def test_row_holds(row):
    assert check_row(row) == []


def test_every_kind_has_a_row_and_a_wrong_row_is_caught(tmp_path):
    rows = load_rows()
    assert set(KINDS) <= {r["kind"] for r in rows}
    wrong = dict(rows[0], expect={"content": True})
    assert check_row(wrong) == ["content: expected True, got False"]
    bad = tmp_path / "s.jsonl"
    bad.write_text('{"id": "x"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match="line 1"):
        load_rows(bad)
