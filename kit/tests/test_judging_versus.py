"""Tests of evidencedesk.judging.versus: a judge as a grader of the golden cases, where it disagrees with the
deterministic graders, and what it costs."""

from __future__ import annotations

import dataclasses

import pytest

from evidencedesk.evals.cases import load_cases
from evidencedesk.evals.graders import CODES, PASS, Grade
from evidencedesk.evals.paired import pair
from evidencedesk.evals.runner import configs, run_eval
from evidencedesk.judging.fakes import ScriptedJudge
from evidencedesk.judging.judge import JUDGE_MODEL, MeteredClient
from evidencedesk.judging.versus import NOT_MET, JudgeGrade, JudgeGrader, against_rules, criteria_for
from evidencedesk.usage import Ledger

CASES = load_cases()
BY_ID = {case.id: case for case in CASES}
CONFIGS = configs(CASES)


def runs() -> tuple[list, list, Ledger]:
    ledger = Ledger()
    grader = JudgeGrader(MeteredClient(ScriptedJudge({}), ledger))
    by_rule = [run_eval(CASES, config) for config in CONFIGS.values()]
    by_judge = [run_eval(CASES, dataclasses.replace(config, name=f"{name} judge"), grader=grader)
                for name, config in CONFIGS.items()]
    return by_rule, by_judge, ledger


BY_RULE, BY_JUDGE, LEDGER = runs()


@pytest.mark.parametrize("case_id, criteria", [
    ("g01", [("refund",)]),
    ("g09", [("late",), ("damaged",)]),
    ("g15", [("24.99",)]),
    ("g21", [("ticket_id T-701",), ("category refund",), ("urgent true",)]),
    ("g28", [("kc-warranty-v1", "kc-returns-v3")]),  # any one of the allowed documents
])
def test_each_kind_of_case_becomes_a_rubric(case_id: str, criteria: list) -> None:
    assert criteria_for(BY_ID[case_id]) == criteria


def test_a_kind_without_a_rubric_is_refused() -> None:
    class Odd:
        grader, expected = "triage_category", "delivery"

    with pytest.raises(ValueError, match="no rubric for a case of kind 'triage_category'"):
        criteria_for(Odd())


def test_a_judge_grade_knows_one_code_more_than_a_grade() -> None:
    assert JudgeGrade(False, NOT_MET, "misses c1 of 1").code == NOT_MET
    assert JudgeGrade.known_codes() == (*CODES, NOT_MET)
    with pytest.raises(ValueError, match="unknown grade code 'criteria_not_met'"):
        Grade(False, NOT_MET, "a plain Grade does not know it")


def test_the_judge_passes_more_of_v1_and_v2_than_the_rules() -> None:
    assert [(r.passed, r.total) for r in BY_RULE] == [(21, 30), (26, 30)]
    assert [(r.config, r.passed) for r in BY_JUDGE] == [("v1 judge", 24), ("v2 judge", 27)]
    assert {r.grade.code for run in BY_JUDGE for r in run.results} == {PASS, NOT_MET}


def test_where_the_judge_and_the_rules_part_ways() -> None:
    v1, v2 = (pair(rule, judge) for rule, judge in zip(BY_RULE, BY_JUDGE, strict=True))
    assert (v1.only_a, v1.only_b) == (("g19",), ("g03", "g12", "g22", "g29"))
    assert (v2.only_a, v2.only_b) == (("g15", "g19"), ("g17", "g24", "g29"))
    rule_codes = {case: BY_RULE[1].result(case).grade.code for case in v2.only_b}
    assert rule_codes == {"g17": "not_a_number", "g24": "schema", "g29": "citation_not_allowed"}
    assert BY_JUDGE[1].result("g15").grade == JudgeGrade(False, NOT_MET, "misses c1 of 1")


def test_agreement_and_kappa_over_sixty_replies() -> None:
    found = against_rules(BY_RULE, BY_JUDGE)
    assert (found.n, found.agreed, found.counts) == (60, 50, ((44, 3), (7, 6)))
    assert round(float(found.kappa), 3) == 0.448  # p_o = 50/60, p_e = (47*51 + 13*9)/3600 = 0.6983


def test_the_judge_costs_one_call_per_reply_and_the_rules_none() -> None:
    summary = LEDGER.summary()
    assert summary.calls == 60 and {r.model for r in LEDGER.records} == {JUDGE_MODEL}
    assert summary.cost > 0 and str(summary.cost) == "0.157392"


def test_the_runs_must_line_up() -> None:
    with pytest.raises(ValueError, match="2 runs graded by the rules against 1 by the judge"):
        against_rules(BY_RULE, BY_JUDGE[:1])
    shorter = dataclasses.replace(BY_JUDGE[0], results=BY_JUDGE[0].results[1:])
    with pytest.raises(ValueError, match="the runs of v1 and v1 judge do not hold the same cases"):
        against_rules(BY_RULE[:1], [shorter])


def test_the_same_runs_give_the_same_grades() -> None:
    again_rule, again_judge, again_ledger = runs()
    assert again_judge == BY_JUDGE and again_ledger.summary() == LEDGER.summary()
