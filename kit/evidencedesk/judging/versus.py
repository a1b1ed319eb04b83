"""A judge as a grader of golden cases, set against the deterministic graders of Eval Sets and Deterministic Graders.

JudgeGrader fits the Grader protocol of evals/cases.py: run_eval(cases, config, grader=JudgeGrader(...))
grades every reply with a judge instead of the case's own rule. The judge gets a rubric made from the case's
expected answer (criteria_for): the category word, each label of a set, the number, each field of a JSON
object as "name value", or any one of the allowed documents of a citation case. It passes a reply that
meets every criterion, with a JudgeGrade (a Grade that also knows the code NOT_MET). Where a rule can
decide, the judge adds cost and disagreement: a lenient reader passes "Delivery problem" for "delivery",
"€18.50" for 18.50 and JSON wrapped in a sentence, and, told no tolerance, fails 25.00 for 24.99.
against_rules() measures how far judge and rules agree, as raw agreement and Cohen's kappa over pass
and fail. Left out: telling the judge the tolerance or the schema (that asks a model to do what the rule
already does exactly), and cases with no checkable answer, where a judge is the tool to use.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from evidencedesk.evals.cases import GoldenCase
from evidencedesk.evals.graders import CODES, PASS, Grade
from evidencedesk.evals.runner import EvalRun
from evidencedesk.judging.agreement import Agreement, cohen_kappa
from evidencedesk.judging.judge import ask_criteria
from evidencedesk.llm import LLMClient

NOT_MET = "criteria_not_met"  # the judge found a criterion of the case's rubric unmet
JUDGE_CODES = (*CODES, NOT_MET)
PASSED, FAILED = "pass", "fail"  # the labels against_rules compares


@dataclass(frozen=True)
class JudgeGrade(Grade):
    """A Grade given by a judge: passed, code (PASS or NOT_MET), reason (which criteria it met or missed).

    Example: JudgeGrade(False, NOT_MET, "misses c2 of 2")
    """

    @classmethod
    def known_codes(cls) -> tuple[str, ...]:
        """The codes of evals/graders.py plus NOT_MET."""
        return JUDGE_CODES


def _value(value: Any) -> str:
    """A JSON value as a phrase: a string as it is, anything else as JSON writes it (true, 3)."""
    return value if isinstance(value, str) else json.dumps(value)


def criteria_for(case: Any) -> list[tuple[str, ...]]:
    """The rubric a judge gets for a golden case: one tuple of phrases per criterion (any phrase meets it).

    exact and numeric: the expected value; set: each expected label; json: each expected field as "name
    value"; citation: any one of the allowed document ids. Raises ValueError for a kind it has no rubric for.
    Example: criteria_for(load_cases()[20]) -> [("ticket_id T-701",), ("category refund",), ("urgent true",)]
    """
    kind, expected = case.grader, case.expected
    if kind in ("exact", "numeric"):
        return [(expected,)]
    if kind == "set":
        return [(item,) for item in expected]
    if kind == "json":
        return [(f"{name} {_value(value)}",) for name, value in expected.items()]
    if kind == "citation":
        return [tuple(expected)]
    raise ValueError(f"no rubric for a case of kind {str(kind)[:40]!r}")


class JudgeGrader:
    """The Grader protocol by a judge: it passes a reply when the judge finds every criterion of the case met.

    Args: client (LLMClient: the judge; wrap it in judge.MeteredClient to count its credits). Called as
    grader(case, reply), it makes one judge call and returns a JudgeGrade. Raises OutputRefused when the
    judge's reply cannot be read after one repair; ValueError from criteria_for.
    Example: run_eval(cases, configs(cases)["v1"], grader=JudgeGrader(judge)).passed
    """

    def __init__(self, client: LLMClient) -> None:
        self.client = client

    def __call__(self, case: GoldenCase, reply: str) -> Grade:
        criteria = criteria_for(case)
        met = ask_criteria(self.client, case.input, reply, criteria)
        if len(met) == len(criteria):
            return JudgeGrade(True, PASS, f"meets {len(met)} of {len(criteria)}")
        missing = [f"c{n}" for n in range(1, len(criteria) + 1) if f"c{n}" not in met]
        return JudgeGrade(False, NOT_MET, f"misses {', '.join(missing)} of {len(criteria)}")


def against_rules(rule_runs: Sequence[EvalRun], judge_runs: Sequence[EvalRun]) -> Agreement:
    """How far the judge's pass and fail agree with the rules', over every result of every run.

    Args: rule_runs, judge_runs (EvalRun, in the same order: the same configuration on the same cases,
    graded by the rules and by the judge). Raises ValueError when the runs or their cases do not line up.
    Example: str(against_rules([by_rule], [by_judge]))
    """
    if len(rule_runs) != len(judge_runs):
        raise ValueError(f"{len(rule_runs)} runs graded by the rules against {len(judge_runs)} by the judge")
    rules, judge = [], []
    for by_rule, by_judge in zip(rule_runs, judge_runs, strict=True):
        if [r.case_id for r in by_rule.results] != [r.case_id for r in by_judge.results]:
            raise ValueError(f"the runs of {by_rule.config} and {by_judge.config} do not hold the same cases in order")
        rules += [PASSED if r.grade.passed else FAILED for r in by_rule.results]
        judge += [PASSED if r.grade.passed else FAILED for r in by_judge.results]
    return cohen_kappa(rules, judge, (PASSED, FAILED))
