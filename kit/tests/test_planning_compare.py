"""Tests of evidencedesk.planning.compare: the same tasks as a loop and as a plan, side by side."""

from __future__ import annotations

from evidencedesk.planning.compare import TASKS, compare, run_loop, run_plan, table

SIDES = compare()
BY = {(s.task, s.design): s for s in SIDES}


def test_each_task_runs_both_ways_in_order() -> None:
    assert [(s.task, s.design) for s in SIDES] == [(t[0], d) for t in TASKS for d in ("loop", "plan")]


def test_the_plan_makes_fewer_model_calls_on_every_task() -> None:
    assert all(BY[(t[0], "plan")].model_calls < BY[(t[0], "loop")].model_calls for t in TASKS)


def test_the_planted_note_adds_a_send_to_the_loop_and_none_to_the_plan() -> None:
    assert (BY[("T-602 summary", "loop")].sends, BY[("T-602 summary", "plan")].sends) == (1, 0)
    assert BY[("T-602 summary", "loop")].ends == "done"  # refused by the check; the run still finishes
    assert BY[("T-602 reply", "loop")].parked_to == "evil@example.org"
    assert BY[("T-602 reply", "plan")].parked_to == "kwame@example.org"


def test_with_a_model_that_ignores_the_note_the_loop_sends_nothing() -> None:
    loop = run_loop(*TASKS[2], model="sensible")
    assert (loop.sends, loop.parked_to) == (0, "-")
    assert run_plan(*TASKS[2], planner="sensible") == BY[("T-602 reply", "plan")]  # obey and sensible plan alike


def test_the_table_is_aligned_and_fits_a_phone() -> None:
    lines = table(SIDES)
    assert lines[0].startswith("task") and len(lines) == 1 + len(SIDES)
    assert max(len(line) for line in lines) <= 80
