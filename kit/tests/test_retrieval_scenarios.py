"""Tests of evidencedesk.retrieval.scenarios: the fourteen-row table, and how a bad row is reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencedesk.llm import ScriptedClient
from evidencedesk.retrieval.access import Library
from evidencedesk.retrieval.citations import REFUSAL, answer_question
from evidencedesk.retrieval.scenarios import (
    KINDS,
    RETRIEVAL_DATA,
    ScenarioError,
    check_row,
    load_rows,
    run_row,
)
from evidencedesk.security import Session

LIBRARY = Library.load()
ROWS = {row["id"]: row for row in load_rows()}
# what the course page shows: id -> (kind, outcome)
EXPECTED = {
    "t01": ("search", "found"), "t02": ("search", "empty"), "t03": ("rank_then_filter", "leak"),
    "t04": ("search", "found"), "t05": ("search", "found"), "t06": ("answer", "nothing_retrieved"),
    "t07": ("stats", "score_changed"), "t08": ("stats", "score_same"), "t09": ("answer", "answered"),
    "t10": ("answer", "cites_unretrieved"), "t11": ("answer", "cites_unreadable"), "t12": ("answer", "no_citation"),
    "t13": ("search", "found"), "t14": ("rechunk", "stable"),
}


def test_the_table_has_fourteen_rows_in_order_covering_every_kind() -> None:
    assert list(ROWS) == list(EXPECTED) and {row["kind"] for row in ROWS.values()} == set(KINDS)
    assert all(row["why"] for row in ROWS.values())


@pytest.mark.parametrize("row_id", list(EXPECTED))
def test_row_runs_as_the_page_shows(row_id: str) -> None:
    row = ROWS[row_id]
    assert (row["kind"], run_row(row, LIBRARY)["outcome"]) == EXPECTED[row_id]
    assert check_row(row, LIBRARY) == []


def test_no_row_returns_a_document_its_user_may_not_read() -> None:
    for row in ROWS.values():
        got = run_row(row, LIBRARY)
        if row["kind"] != "rechunk":
            readable = {c.doc_id for c in LIBRARY.readable(Session(row["user"]))}
            assert set(got["docs"]) <= readable, row["id"]


def test_the_leak_rows_and_the_right_rows_differ_only_in_the_order() -> None:
    assert run_row(ROWS["t02"], LIBRARY)["docs"] == run_row(ROWS["t03"], LIBRARY)["docs"] == []
    assert run_row(ROWS["t03"], LIBRARY)["hidden"] == 3
    assert {k: v for k, v in ROWS["t07"].items() if k not in ("id", "stats", "expect", "why")} == \
        {k: v for k, v in ROWS["t08"].items() if k not in ("id", "stats", "expect", "why")}


def test_check_row_names_each_mismatch() -> None:
    row = {**ROWS["t03"], "expect": {"outcome": "no_leak", "hidden": 0, "docs": []}}
    assert check_row(row, LIBRARY) == ["t03 outcome: expected 'no_leak', got 'leak'", "t03 hidden: expected 0, got 3"]


def test_rows_that_cannot_show_what_they_claim_are_refused() -> None:
    readable = {**ROWS["t07"], "add": {**ROWS["t07"]["add"], "tenant": "kettlewise", "owner": ""}}
    with pytest.raises(ValueError, match="t07: ana may read lh-warranty-draft"):
        run_row(readable, LIBRARY)
    absent = {**ROWS["t14"], "edit": {"doc": "kw-returns", "old": "within 99 days", "new": "x"}}
    with pytest.raises(ValueError, match="t14: the text to edit is not in document 'kw-returns'"):
        run_row(absent, LIBRARY)


def good_line() -> dict:
    return json.loads((RETRIEVAL_DATA / "scenarios.jsonl").read_text(encoding="utf-8").splitlines()[0])


@pytest.mark.parametrize(("change", "field"), [
    ({"kind": "browse"}, "kind"), ({"k": 0}, "k"), ({"k": "3"}, "k"), ({"id": "s01"}, "id"),
    ({"colour": "red"}, "colour"), ({"expect": {"outcome": "found", "hidden": -1}}, "expect.hidden"),
    ({"question": ""}, "row"), ({"kind": "answer"}, "row"), ({"kind": "stats", "stats": "global"}, "row"),
    ({"stats": "local"}, "stats"), ({"why": ""}, "why"),
])
def test_bad_rows_name_line_and_field(tmp_path: Path, change: dict, field: str) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(good_line()) + "\n\n" + json.dumps({**good_line(), "id": "t02", **change}) + "\n")
    with pytest.raises(ScenarioError) as caught:
        load_rows(path)
    assert str(caught.value).startswith(f"rows.jsonl line 3: field {field}:")


def test_a_refused_answer_row_shows_the_refusal_text() -> None:
    for row_id in ("t10", "t11", "t12"):
        row = ROWS[row_id]
        outcome = answer_question(Session(row["user"]), LIBRARY, row["question"], ScriptedClient([row["reply"]]))
        assert outcome.shown == REFUSAL, row_id
