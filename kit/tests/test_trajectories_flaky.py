"""Tests of evidencedesk.trajectories.flaky: flaky cases found by re-running, and quarantine with owner and expiry."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from evidencedesk.evals.runner import EvalRun
from evidencedesk.trajectories.candidates import CONFIGS
from evidencedesk.trajectories.cases import SET, EvalSet, golden_set
from evidencedesk.trajectories.flaky import (
    MAX_DAYS,
    Flaky,
    Quarantine,
    QuarantineError,
    flaky_cases,
    live_quarantine,
    load_quarantine,
)
from evidencedesk.trajectories.runner import repeat

GOLDEN = golden_set()
SAMPLED = repeat(GOLDEN, CONFIGS["sampled"], 4)
DAY = datetime.date


def test_four_runs_find_the_five_exact_refund_cases_with_their_pass_counts() -> None:
    found = flaky_cases(SAMPLED)
    assert list(found) == ["t13", "t14", "t15", "t16", "t17"]
    assert [(f.passed, f.runs, f.failed_runs) for f in found.values()] == [
        (2, 4, (0, 3)), (3, 4, (1,)), (2, 4, (0, 3)), (3, 4, (1,)), (2, 4, (0, 3))]
    assert found["t13"].line() == "t13 passed 2/4, failed runs 0 3"


def test_one_run_can_show_no_flaky_case_and_a_steady_configuration_has_none() -> None:
    assert flaky_cases(SAMPLED[:1]) == {} and flaky_cases(SAMPLED[1:3]) == {"t14": Flaky("t14", 1, 2, (0,)),
                                                                            "t16": Flaky("t16", 1, 2, (0,))}
    assert flaky_cases(repeat(GOLDEN, CONFIGS["baseline"], 4)) == {}


def test_grading_a_property_that_holds_every_run_leaves_no_flaky_case() -> None:
    loose = EvalSet("golden, refunds as a set", tuple(
        c.model_copy(update={"rule": SET}) if "refund" in c.tags else c for c in GOLDEN.cases), GOLDEN.tickets)
    runs = repeat(loose, CONFIGS["sampled"], 4)
    assert flaky_cases(runs) == {} and [run.passed for run in runs] == [25] * 4


def test_runs_on_other_cases_are_refused() -> None:
    with pytest.raises(ValueError, match="at least one run"):
        flaky_cases([])
    with pytest.raises(ValueError, match="at position 0"):
        flaky_cases([SAMPLED[0], EvalRun("sampled", SAMPLED[1].results[1:])])


def test_the_kits_quarantine_holds_the_five_cases_for_one_owner() -> None:
    entries = load_quarantine()
    assert [q.id for q in entries] == ["t13", "t14", "t15", "t16", "t17"]
    assert {(q.owner, q.since, q.expires) for q in entries} == {("dilnoza", DAY(2026, 12, 10), DAY(2027, 1, 15))}


@pytest.mark.parametrize("today, live", [
    (DAY(2026, 12, 10), True), (DAY(2027, 1, 14), True), (DAY(2027, 1, 15), False), (DAY(2027, 2, 1), False)])
def test_an_entry_is_live_until_its_expiry_date(today: datetime.date, live: bool) -> None:
    entry = load_quarantine()[0]
    got_live, got_expired = live_quarantine([entry], today)
    assert (list(got_live), got_expired) == ((["t13"], []) if live else ([], [entry]))


def test_live_quarantine_needs_a_date_and_one_entry_per_case() -> None:
    entry = load_quarantine()[0]
    with pytest.raises(ValueError, match="today must be a datetime.date"):
        live_quarantine([entry], "2026-12-14")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="case t13 is quarantined twice"):
        live_quarantine([entry, entry], DAY(2026, 12, 14))


GOOD = {"id": "t13", "owner": "dilnoza", "since": "2026-12-10", "expires": "2027-01-15", "why": "order varies"}


@pytest.mark.parametrize("change, message", [
    ({"expires": "2026-12-10"}, "expires 0 days after since"),
    ({"expires": "2027-03-15"}, f"allowed 1 to {MAX_DAYS}"),
    ({"owner": ""}, "owner"),
    ({"owner": "the team"}, "owner"),
    ({"why": ""}, "why"),
    ({"expires": "15/01/2027"}, "expires"),
    ({"ticket": "T-702"}, "ticket"),
])
def test_a_quarantine_needs_a_named_owner_and_a_near_expiry(change: dict, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        Quarantine.model_validate({**GOOD, **change})


def test_a_bad_quarantine_file_names_its_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "quarantine.jsonl"
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps({**GOOD, "id": "t14", "owner": ""}) + "\n", encoding="utf-8")
    with pytest.raises(QuarantineError, match="quarantine.jsonl line 2: field owner"):
        load_quarantine(path)
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps(GOOD) + "\n", encoding="utf-8")
    with pytest.raises(QuarantineError, match="line 2: field id: repeated id 't13'"):
        load_quarantine(path)
