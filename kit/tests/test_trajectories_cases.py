"""Tests of evidencedesk.trajectories.cases: the agent page's rows as the first eval set, the golden set, validation."""

from __future__ import annotations

import json
from collections import Counter
from decimal import Decimal
from pathlib import Path

import pytest

from evidencedesk.agent.loop import RunBudget
from evidencedesk.agent.scenarios import AGENT_DATA, load_scenarios
from evidencedesk.trajectories.cases import (
    EXACT,
    SEND,
    TRAJECTORIES_DATA,
    CaseError,
    TrajectoryCase,
    agent_set,
    from_agent_row,
    golden_set,
    load_cases,
)

AGENT = agent_set()
GOLDEN = golden_set()


def test_the_agent_table_becomes_fourteen_exact_cases_on_its_own_tickets() -> None:
    assert [c.id for c in AGENT.cases] == [f"s{n:02d}" for n in range(1, 15)]
    assert AGENT.tickets == AGENT_DATA / "tickets.json" and AGENT.name == "agent table"
    assert all(c.rule == EXACT and c.forbidden == (SEND,) and c.tags == (c.model,) for c in AGENT.cases)


@pytest.mark.parametrize("row", load_scenarios(), ids=lambda row: row["id"])
def test_each_row_keeps_its_run_settings_and_its_expected_calls_and_reason(row: dict) -> None:
    case = from_agent_row(row)
    assert (case.goal, case.user, case.task, case.grant, case.model, case.slow) == (
        row["goal"], row["user"], row["task"], row["grant"], row["model"], row["slow"])
    assert (list(case.tools), case.reason) == (row["expect"]["calls"], row["expect"]["reason"])


def test_the_bounds_are_the_rows_limits_or_the_budgets_defaults() -> None:
    cases = {c.id: c for c in AGENT.cases}
    defaults = RunBudget()
    assert (cases["s03"].max_steps, cases["s05"].max_cost) == (4, Decimal("0.005"))
    assert (cases["s01"].max_steps, cases["s01"].max_cost) == (defaults.max_steps, defaults.max_cost) == (
        8, Decimal("0.05"))
    assert cases["s14"].limits.max_calls == 2 and cases["s14"].max_steps == 8  # a gate limit is not a step bound


def test_a_row_that_expects_emails_sent_cannot_be_converted() -> None:
    row = load_scenarios()[0]
    with pytest.raises(ValueError, match="row s01 expects 1 emails; only 0 can be converted"):
        from_agent_row({**row, "expect": {**row["expect"], "emails": 1}})


def test_the_golden_set_holds_twenty_eight_cases_by_tag_and_rule() -> None:
    assert [c.id for c in GOLDEN.cases] == [f"t{n:02d}" for n in range(1, 29)]
    assert GOLDEN.tickets == TRAJECTORIES_DATA / "tickets.json"
    assert Counter(c.tags[0] for c in GOLDEN.cases) == {
        "status": 8, "policy": 4, "refund": 8, "warranty": 3, "missing": 3, "security": 2}
    assert Counter(c.rule for c in GOLDEN.cases) == {"exact": 20, "set": 3, "subsequence": 5}
    assert all(c.model is None for c in GOLDEN.cases)  # the configuration under test supplies the model
    assert [c.id for c in GOLDEN.cases if c.forbidden] == ["t27", "t28"]


def test_every_golden_ticket_is_kwames_but_one_and_two_carry_an_injected_instruction() -> None:
    tickets = json.loads(GOLDEN.tickets.read_text(encoding="utf-8"))
    assert [t["id"] for t in tickets if t["owner"] != "kwame"] == ["T-719"]
    assert [t["id"] for t in tickets if "send_email_draft" in t["body"]] == ["T-720", "T-721"]


def good() -> dict:
    return json.loads((TRAJECTORIES_DATA / "golden.jsonl").read_text(encoding="utf-8").splitlines()[0])


@pytest.mark.parametrize("change, field", [
    ({"rule": "roughly"}, "field rule"),
    ({"reason": "finished"}, "field reason: Value error, unknown reason 'finished'"),
    ({"max_cost": 0.0015}, "field max_cost"),
    ({"max_cost": "0,0015"}, "field max_cost"),
    ({"user": "mallory"}, "field user: Value error, unknown user 'mallory'"),
    ({"model": "oracle"}, "field model: Value error, unknown fake model 'oracle'"),
    ({"tools": ["get ticket"]}, "field tools.0"),
    ({"tags": []}, "field tags"),
    ({"weight": 2}, "field weight: Extra inputs are not permitted"),
    ({"max_steps": "2"}, "field max_steps"),
])
def test_a_bad_row_fails_the_load_with_its_line_and_field(tmp_path: Path, change: dict, field: str) -> None:
    path = tmp_path / "golden.jsonl"
    path.write_text(json.dumps(good()) + "\n" + json.dumps({**good(), "id": "t99", **change}) + "\n", encoding="utf-8")
    with pytest.raises(CaseError, match=f"golden.jsonl line 2: {field}"):
        load_cases(path)


def test_a_repeated_id_fails_the_load(tmp_path: Path) -> None:
    path = tmp_path / "golden.jsonl"
    path.write_text(json.dumps(good()) + "\n" + json.dumps(good()) + "\n", encoding="utf-8")
    with pytest.raises(CaseError, match="line 2: field id: repeated id 't01'"):
        golden_set(path)


def test_a_case_is_frozen() -> None:
    case = TrajectoryCase.model_validate(good())
    with pytest.raises(ValueError):
        case.max_steps = 9  # type: ignore[misc]
