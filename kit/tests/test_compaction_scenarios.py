"""Tests of evidencedesk.compaction.scenarios: the lab's request variants and the sixteen-row table."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from evidencedesk.compaction.promptcache import prefix_blocks
from evidencedesk.compaction.scenarios import (
    USERS,
    VARIANTS,
    BudgetExpect,
    CacheExpect,
    ClipExpect,
    RunExpect,
    ScenarioError,
    SummaryExpect,
    check_row,
    clock_text,
    load_rows,
    run_row,
    variant_request,
)
from evidencedesk.compaction.steps import COMPACTION_DATA, RULES
from evidencedesk.usage import ManualClock

ROWS = {row["id"]: row for row in load_rows()}
KINDS = {"c01": "cache", "c02": "cache", "c03": "cache", "c04": "cache", "c05": "cache", "c06": "cache",
         "c07": "cache", "c08": "cache", "c09": "clip", "c10": "summary", "c11": "budget", "c12": "budget",
         "c13": "run", "c14": "run", "c15": "cache", "c16": "cache"}


def test_table_has_the_sixteen_rows_in_order() -> None:
    assert {k: r["kind"] for k, r in ROWS.items()} == KINDS and list(ROWS) == list(KINDS)
    assert all(row["why"] for row in ROWS.values())


@pytest.mark.parametrize("row_id", list(KINDS))
def test_row_runs_as_it_expects(row_id: str) -> None:
    assert check_row(ROWS[row_id]) == []


def test_the_outcomes_the_page_names() -> None:
    outcomes = {row_id: run_row(ROWS[row_id])["outcomes"] for row_id in ("c02", "c03", "c07", "c08")}
    assert outcomes == {"c02": ["miss"] * 3, "c03": ["miss", "hit", "hit"], "c07": ["miss", "miss"],
                        "c08": ["miss", "hit", "hit"]}
    assert run_row(ROWS["c13"])["answer"] != run_row(ROWS["c14"])["answer"]


def test_a_wait_past_the_lifetime_writes_the_prefix_again_and_costs_more_under_a_write_premium() -> None:
    quick, parked = run_row(ROWS["c15"]), run_row(ROWS["c16"])
    assert quick["written"] == [384, 0] and parked["written"] == [384, 384]
    assert Decimal(parked["cost_5m"]) > Decimal(quick["cost_5m"])


def test_every_expect_model_has_a_docstring() -> None:
    for model in (CacheExpect, ClipExpect, SummaryExpect, BudgetExpect, RunExpect):
        assert model.__doc__ and "expects" in model.__doc__


def test_check_row_names_each_mismatch() -> None:
    row = {**ROWS["c01"], "expect": {"outcomes": ["hit", "hit", "hit"], "cost": "1"}}
    assert check_row(row) == ["c01 outcomes: expected ['hit', 'hit', 'hit'], got ['miss', 'hit', 'hit']",
                              "c01 cost: expected '1', got '0.0004848'"]


def test_the_clock_reads_nine_in_the_morning_at_zero() -> None:
    assert (clock_text(ManualClock()), clock_text(ManualClock(3725.5))) == ("09:00:00", "10:02:05")


def test_each_variant_changes_only_what_it_says() -> None:
    clock = ManualClock()
    stable = prefix_blocks(variant_request("stable", 1, clock))
    time_early = variant_request("time_early", 1, clock)
    assert time_early.messages[0].content == f"Time: 09:00:00\n{RULES}"
    time_late = variant_request("time_late", 1, clock)
    assert time_late.messages[-1].content == "Time: 09:00:00"
    assert [b.digest for b in prefix_blocks(time_late)[:len(stable)]] == [b.digest for b in stable]
    assert variant_request("user_early", 1, clock).messages[0].content.startswith(f"You are helping {USERS[1]}.")
    assert variant_request("user_late", 2, clock).messages[-1].content == f"You are helping {USERS[2]}."
    reordered = variant_request("tools_reordered", 2, clock)
    assert reordered.tools == tuple(reversed(variant_request("stable", 2, clock).tools))
    assert variant_request("tools_reordered", 3, clock).tools == variant_request("stable", 3, clock).tools
    assert variant_request("short", 1, clock).tools == ()
    with pytest.raises(ValueError, match="variant must be one of"):
        variant_request("time_middle", 1, clock)
    assert len(VARIANTS) == 7


def good_line() -> dict:
    return json.loads((COMPACTION_DATA / "scenarios.jsonl").read_text().splitlines()[0])


@pytest.mark.parametrize("change, field", [
    ({"variant": "time_middle"}, "row.cache.variant"),
    ({"calls": 0}, "row.cache.calls"),
    ({"calls": "3"}, "row.cache.calls"),
    ({"wait_s": -1.0}, "row.cache.wait_s"),
    ({"expect": {"outcomes": ["hot"]}}, "row.cache.expect.outcomes.0"),
    ({"expect": {"outcomes": ["hit"], "cost": 0.1}}, "row.cache.expect.cost"),
    ({"kind": "teleport"}, "row"),
    ({"id": "r01"}, "row.cache.id"),
    ({"colour": "red"}, "row.cache.colour"),
])
def test_bad_rows_name_line_and_field(tmp_path: Path, change: dict, field: str) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(good_line()) + "\n\n" + json.dumps({**good_line(), "id": "c02", **change}) + "\n")
    with pytest.raises(ScenarioError) as exc:
        load_rows(path)
    assert str(exc.value).startswith(f"rows.jsonl line 3: field {field}:")


def test_bad_levels_repeated_ids_and_unreadable_files_are_named(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    budget = {**ROWS["c11"], "expect": {"level": "squeezed"}}
    path.write_text(json.dumps(budget) + "\n")
    with pytest.raises(ScenarioError, match="line 1: field row.budget.expect.level: .*unknown level 'squeezed'"):
        load_rows(path)
    path.write_text(json.dumps(good_line()) + "\n" + json.dumps(good_line()) + "\n")
    with pytest.raises(ScenarioError, match="line 2: field id: repeated id 'c01'"):
        load_rows(path)
    with pytest.raises(ScenarioError, match="absent.jsonl: cannot read the compaction table"):
        load_rows(tmp_path / "absent.jsonl")
