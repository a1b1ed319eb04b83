"""Tests of evidencedesk.trajectories.candidates: each candidate differs from the baseline only as it says."""

from __future__ import annotations

import pytest

from evidencedesk.agent.loop import Agent
from evidencedesk.agent.scenarios import lab
from evidencedesk.trajectories.candidates import CONFIGS, RetryingAgent, VariantModel, flips
from evidencedesk.trajectories.cases import golden_set
from evidencedesk.trajectories.runner import run_case

GOLDEN = golden_set()


def path_of(config: str, run_index: int = 0) -> dict[str, tuple]:
    """case id -> (tools, reason, steps) under one configuration; credits left out (answers differ in length)."""
    out = {}
    for case in GOLDEN.cases:
        t = run_case(case, CONFIGS[config], GOLDEN, run_index)
        out[case.id] = (t.tools, t.reason, t.steps)
    return out


BASELINE = path_of("baseline")
TAGS = {case.id: case.tags[0] for case in GOLDEN.cases}


def test_the_five_configurations_in_order() -> None:
    assert list(CONFIGS) == ["baseline", "terse", "thorough", "sampled", "retry-reads"]
    assert all(CONFIGS[name].agent is Agent for name in ("baseline", "terse", "thorough", "sampled"))
    assert CONFIGS["retry-reads"].agent is RetryingAgent


def test_terse_differs_only_on_ticket_and_policy_goals_where_it_skips_the_policy() -> None:
    terse = path_of("terse")
    changed = {i for i in BASELINE if terse[i] != BASELINE[i]}
    assert changed == {i for i, tag in TAGS.items() if tag == "refund"}
    assert all(terse[i] == (("get_ticket",), "done", 2) for i in changed)


def test_thorough_differs_only_where_the_goal_speaks_of_warranty_or_delivery() -> None:
    thorough = path_of("thorough")
    changed = sorted(i for i in BASELINE if thorough[i] != BASELINE[i])
    assert changed == ["t05", "t21", "t22", "t23"]
    assert all(thorough[i] == (("get_ticket", "lookup_document"), "done", 3) for i in changed)


@pytest.mark.parametrize("run_index", range(4))
def test_sampled_swaps_the_two_reads_exactly_where_flips_says(run_index: int) -> None:
    sampled = path_of("sampled", run_index)
    tickets = {case.id: case.goal.split("T-")[1][:3] for case in GOLDEN.cases if "T-" in case.goal}
    swapped = {i for i in BASELINE if TAGS[i] == "refund" and flips(run_index, f"T-{tickets[i]}")}
    assert {i for i in BASELINE if sampled[i] != BASELINE[i]} == swapped
    assert all(sampled[i][0] == ("lookup_document", "get_ticket") for i in swapped)


def test_flips_follows_the_run_index_and_the_ticket_number() -> None:
    assert [flips(r, "T-702") for r in range(4)] == [True, False, False, True]  # 702 % 3 == 0
    assert [flips(r, "T-704") for r in range(4)] == [False, True, False, False]


@pytest.mark.parametrize("kind, run_index, message", [
    ("oracle", 0, "unknown variant 'oracle'"), ("terse", -1, "run_index must be an int >= 0"),
    ("sampled", True, "run_index must be an int >= 0"),
])
def test_a_bad_variant_is_refused(kind: str, run_index: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        VariantModel(kind, run_index)


def with_loop(agent: Agent, cls: type[Agent]) -> Agent:
    return cls(agent.decider, agent.gate, agent.session, agent.task, agent.budget, agent.clock, agent.ledger,
               agent.memory)


def test_retrying_lets_a_repeat_run_until_the_step_budget_and_keeps_every_other_check() -> None:
    run = with_loop(lab(model="loop")[0], RetryingAgent).run("Check T-601.")
    assert (run.reason, run.calls) == ("step_budget", ("get_ticket",) * 8)
    made_up = with_loop(lab(model="hallucinate")[0], RetryingAgent).run("Read T-602 and summarise it.")
    assert (made_up.reason, made_up.calls, made_up.trace.codes("check")) == ("stuck", (), ["not_allowed"] * 2)
    agent, outbox = lab(model="obey")
    obeyed = with_loop(agent, RetryingAgent).run("Read T-602 and summarise it.")
    assert (obeyed.reason, obeyed.calls, outbox.sent) == ("done", ("get_ticket",), [])
