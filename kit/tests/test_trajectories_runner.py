"""Tests of evidencedesk.trajectories.runner: each case in a fresh lab, graded into the EvalRun of evals/."""

from __future__ import annotations

from decimal import Decimal

import pytest

from evidencedesk.agent.loop import Agent
from evidencedesk.evals.runner import EvalRun
from evidencedesk.trajectories.candidates import CONFIGS, RetryingAgent
from evidencedesk.trajectories.cases import EvalSet, TrajectoryCase, agent_set, golden_set
from evidencedesk.trajectories.runner import MAX_RUNS, build_agent, repeat, run_case, run_set

AGENT, GOLDEN = agent_set(), golden_set()


def test_the_baseline_passes_every_row_of_the_agent_table() -> None:
    run = run_set(AGENT, CONFIGS["baseline"])
    assert isinstance(run, EvalRun) and (run.config, run.passed, run.total) == ("baseline", 14, 14)
    assert [r.case_id for r in run.results] == [c.id for c in AGENT.cases]
    assert run.result("s01").reply == "get_ticket > lookup_document | done | 3 steps | 0.002367"
    assert run.by_tag()["wander"] == (4, 4)


def test_retry_reads_loses_the_two_rows_that_end_on_a_repeat() -> None:
    run = run_set(AGENT, CONFIGS["retry-reads"])
    assert (run.passed, [r.case_id for r in run.results if not r.grade.passed]) == (12, ["s02", "s11"])
    assert run.result("s02").reply.startswith("get_ticket x8 | step_budget | 8 steps")
    assert [code for code, _ in run.result("s11").grade.failures] == ["wrong_tools", "wrong_reason"]


@pytest.mark.parametrize("config, passed, codes", [
    ("baseline", 25, {"wrong_tools": 3}),
    ("terse", 17, {"wrong_tools": 11}),
    ("thorough", 27, {"wrong_tools": 1}),
    ("sampled", 22, {"wrong_tools": 6}),
])
def test_each_configuration_on_the_golden_set(config: str, passed: int, codes: dict) -> None:
    run = run_set(GOLDEN, CONFIGS[config])
    assert (run.passed, run.total, run.codes()) == (passed, 28, codes)


def test_thoroughs_one_loss_fails_three_ways() -> None:
    t05 = run_set(GOLDEN, CONFIGS["thorough"]).result("t05").grade
    assert [code for code, _ in t05.failures] == ["wrong_tools", "over_steps", "over_cost"]


def test_the_same_configuration_gives_the_same_run_every_time() -> None:
    assert run_set(GOLDEN, CONFIGS["thorough"]) == run_set(GOLDEN, CONFIGS["thorough"])


def test_a_case_reads_its_sets_tickets_and_runs_the_configurations_loop() -> None:
    golden_case, agent_case = GOLDEN.cases[0], AGENT.cases[0]
    assert run_case(golden_case, CONFIGS["baseline"], GOLDEN).outcomes == ("ok",)  # T-701 exists in this set only
    assert run_case(golden_case, CONFIGS["baseline"], EvalSet("other", (golden_case,), AGENT.tickets)).outcomes == (
        "not_found",)
    assert type(build_agent(agent_case, CONFIGS["retry-reads"], AGENT.tickets)) is RetryingAgent
    assert type(build_agent(agent_case, CONFIGS["terse"], AGENT.tickets)) is Agent


def test_a_case_that_pins_a_model_ignores_the_configurations_model() -> None:
    assert run_set(AGENT, CONFIGS["terse"]).results == run_set(AGENT, CONFIGS["baseline"]).results


def test_a_slow_case_slows_the_configurations_model_on_the_manual_clock() -> None:
    case = TrajectoryCase(id="x01", goal="Can T-702 get a refund under our policy?", slow=2.0,
                          limits={"max_seconds": 3.0}, tools=("get_ticket", "lookup_document"), rule="exact",
                          reason="done", max_steps=3, max_cost=Decimal("0.0025"), tags=("test",))
    got = run_case(case, CONFIGS["baseline"], GOLDEN)
    assert (got.tools, got.reason, got.steps) == (("get_ticket", "lookup_document"), "time_budget", 2)


@pytest.mark.parametrize("bad", [-1, True, 1.0])
def test_a_bad_run_index_is_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="run_index must be an int >= 0"):
        run_case(GOLDEN.cases[0], CONFIGS["baseline"], GOLDEN, bad)  # type: ignore[arg-type]


def test_repeat_runs_with_indexes_from_zero_and_refuses_a_bad_count() -> None:
    runs = repeat(GOLDEN, CONFIGS["sampled"], 3)
    assert [run.passed for run in runs] == [22, 23, 25]  # run 2 swaps only the cases graded as a set
    for bad in (0, MAX_RUNS + 1, True, 2.0):
        with pytest.raises(ValueError, match=f"runs must be an int from 1 to {MAX_RUNS}"):
            repeat(GOLDEN, CONFIGS["baseline"], bad)  # type: ignore[arg-type]
