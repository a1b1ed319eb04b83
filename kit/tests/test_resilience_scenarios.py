"""Tests of evidencedesk.resilience.scenarios: the lab, the fourteen-row resilience table and its validation."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from evidencedesk.budget import RunBudget
from evidencedesk.providers import OVERLOAD, Fault
from evidencedesk.resilience.breaker import CLOSED
from evidencedesk.resilience.scenarios import (
    ANSWERS,
    REASONS,
    RESILIENCE_DATA,
    ScenarioError,
    ask,
    attempts_of,
    check_row,
    lab,
    load_rows,
    run_row,
    run_stream_row,
)

# what the course page shows: id -> (reason, answered by, attempts, alerts)
EXPECTED = {
    "r01": ("answered", "alpha", 1, 0), "r02": ("answered", "alpha", 2, 0), "r03": ("answered", "beta", 2, 0),
    "r04": ("answered", "beta", 3, 0), "r05": ("answered", "beta", 3, 0), "r06": ("answered", "beta", 2, 1),
    "r07": ("answered", "beta", 2, 0), "r08": ("fix_request", "", 1, 0), "r09": ("cost_budget", "", 3, 0),
    "r10": ("answered", "beta", 2, 0), "r11": ("answered", "beta", 2, 0), "r12": ("answered", "alpha", 1, 0),
    "r13": ("answered", "beta", 2, 0), "r14": ("no_provider_left", "", 4, 0),
    "r15": ("answered", "beta", 2, 1), "r16": ("answered", "beta", 2, 1), "r17": ("answered", "beta", 3, 0),
    "r18": ("answered", "beta", 2, 0),
}
# the streamed rows: id -> (complete, cut, counted_by)
STREAMED = {
    "r19": (False, "first_token_timeout", "estimated"), "r20": (True, "", "provider"), "r21": (True, "", "provider"),
    "r22": (False, "error_event", "provider input, estimated output"), "r23": (True, "", "estimated"),
}
ALL_ROWS = {row["id"]: row for row in load_rows()}
ROWS = {row_id: row for row_id, row in ALL_ROWS.items() if "stream" not in row}  # the chain runs


def test_table_has_the_twenty_three_rows_in_order() -> None:
    assert list(ALL_ROWS) == list(EXPECTED) + list(STREAMED) and all(row["why"] for row in ALL_ROWS.values())


@pytest.mark.parametrize("row_id", list(STREAMED))
def test_streamed_row_reads_as_the_page_shows(row_id: str) -> None:
    read = run_stream_row(ALL_ROWS[row_id])
    assert (read.complete, read.cut, read.counted_by) == STREAMED[row_id] and check_row(ALL_ROWS[row_id]) == []


def test_a_row_runs_by_its_own_kind_only() -> None:
    with pytest.raises(ValueError, match="streamed row"):
        run_row(ALL_ROWS["r19"])
    with pytest.raises(ValueError, match="chain row"):
        run_stream_row(ALL_ROWS["r01"])


def test_an_exhausted_quota_leaves_the_breaker_count_alone() -> None:
    _, chain = run_row(ROWS["r16"])
    assert chain.routes[0].breaker.failures == 2 and chain.routes[0].breaker.in_flight == 0


def test_jitter_changes_when_the_retry_starts_not_what_happens() -> None:
    plain, jittered = run_row(ROWS["r04"])[0], run_row(ROWS["r17"])[0]
    assert attempts_of(plain) == attempts_of(jittered)
    assert (round(plain.attempts[-1].at_s, 2), round(jittered.attempts[-1].at_s, 2)) == (1.9, 1.55)


def test_check_row_names_a_streamed_mismatch() -> None:
    row = {**ALL_ROWS["r20"], "expect_stream": {**ALL_ROWS["r20"]["expect_stream"], "ttft_s": 1.0}}
    assert check_row(row) == ["r20 ttft_s: expected 1.0, got 40.8"]


@pytest.mark.parametrize("row_id", list(EXPECTED))
def test_row_runs_as_the_page_shows(row_id: str) -> None:
    run, _ = run_row(ROWS[row_id])
    assert (run.reason, run.answered_by, len(run.attempts), len(run.alerts)) == EXPECTED[row_id]
    assert check_row(ROWS[row_id]) == []


def test_no_run_spends_past_its_budget_and_failed_attempts_cost_nothing() -> None:
    for row in ROWS.values():
        run, _ = run_row(row)
        limit = Decimal(row["limits"].get("max_cost", str(RunBudget().max_cost)))
        assert run.ledger.summary().cost <= limit
        assert all(a.cost == 0 for a in run.attempts if a.outcome != "ok")


def test_every_end_reason_but_two_budgets_is_reached() -> None:
    reached = {run_row(row)[0].reason for row in ROWS.values()}
    assert sorted(set(REASONS) - reached) == ["step_budget", "time_budget"]


def test_the_two_providers_answer_in_different_words() -> None:
    by = {run_row(ROWS[r])[0].answered_by: run_row(ROWS[r])[0].response.text for r in ("r01", "r04")}
    assert by == ANSWERS and ANSWERS["alpha"] != ANSWERS["beta"]


def test_check_row_names_each_mismatch() -> None:
    row = {**ROWS["r01"], "expect": {"reason": "fix_request", "answered_by": "beta", "attempts": ["beta:ok"],
                                     "alerts": 1, "alpha_breaker": "open"}}
    assert check_row(row) == [
        "r01 reason: expected 'fix_request', got 'answered'",
        "r01 answered_by: expected 'beta', got 'alpha'",
        "r01 attempts: expected ['beta:ok'], got ['alpha:ok']",
        "r01 alerts: expected 1, got 0",
        "r01 alpha_breaker: expected 'open', got 'closed'",
    ]


def test_lab_builds_a_fresh_chain_on_a_fresh_clock() -> None:
    chain, clock = lab([Fault(OVERLOAD), Fault(OVERLOAD)], ["Sure."])
    run = chain.run(ask("Can I return a kettle?"), RunBudget())
    assert attempts_of(run) == ["alpha:overloaded", "alpha:overloaded", "beta:ok"]
    assert round(clock(), 2) == 1.9  # 0.4 + 0.5 wait + 0.4 + 0.6
    again, clock2 = lab(["Yes."], [])
    assert clock2() == 0.0 and again.routes[0].breaker.state == CLOSED
    assert again.routes[0].breaker is not chain.routes[0].breaker


def good_line() -> dict:
    return json.loads((RESILIENCE_DATA / "scenarios.jsonl").read_text().splitlines()[0])


@pytest.mark.parametrize("change, field", [
    ({"alpha": ["explode"]}, "alpha"),
    ({"limits": {"max_cost": 0.005}}, "limits.max_cost"),
    ({"limits": {"max_cost": "1e3"}}, "limits.max_cost"),
    ({"limits": {"max_steps": "3"}}, "limits.max_steps"),
    ({"limits": {"max_tokens": 5}}, "limits.max_tokens"),
    ({"long_input": "yes"}, "long_input"),
    ({"failures_before": -1}, "failures_before"),
    ({"retry_after_s": "1"}, "retry_after_s"),
    ({"expect": {"reason": "done", "answered_by": "", "attempts": ["alpha:ok"], "alerts": 0,
                 "alpha_breaker": "closed"}}, "expect.reason"),
    ({"expect": {"reason": "answered", "answered_by": "gamma", "attempts": ["alpha:ok"], "alerts": 0,
                 "alpha_breaker": "closed"}}, "expect.answered_by"),
    ({"expect": {"reason": "answered", "answered_by": "", "attempts": ["alpha:ok"], "alerts": 0,
                 "alpha_breaker": "ajar"}}, "expect.alpha_breaker"),
    ({"id": "s01"}, "id"),
    ({"beta": ["quota"]}, "beta"),
    ({"stream": {"model": "small-model-1"}}, "row"),  # a stream with a chain's expect
    ({"stream": {"model": "small-model-1", "usage_style": "last"}, "expect": None,
      "expect_stream": {"complete": True, "cut": "", "counted_by": "provider", "ttft_s": 0.8}}, "stream.usage_style"),
    ({"colour": "red"}, "colour"),
])
def test_bad_rows_name_line_and_field(tmp_path: Path, change: dict, field: str) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(good_line()) + "\n\n" + json.dumps({**good_line(), "id": "r02", **change}) + "\n")
    with pytest.raises(ScenarioError) as exc:
        load_rows(path)
    assert str(exc.value).startswith(f"rows.jsonl line 3: field {field}:")


def test_bad_json_repeated_ids_and_unreadable_files_are_named(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text('{"id": "r01", "id": "r02"}\n')
    with pytest.raises(ScenarioError, match="line 1: not JSON \\(repeated key 'id'"):
        load_rows(path)
    path.write_text(json.dumps(good_line()) + "\n" + json.dumps(good_line()) + "\n")
    with pytest.raises(ScenarioError, match="line 2: field id: repeated id 'r01'"):
        load_rows(path)
    with pytest.raises(ScenarioError, match="absent.jsonl: cannot read the resilience table"):
        load_rows(tmp_path / "absent.jsonl")
