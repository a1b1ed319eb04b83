"""The judging scenario table: kappa at its edges, the scripted judge's biases one pair at a time, and the
places where a judge and a deterministic grader part ways.

kit/data/judging/scenarios.jsonl holds one row per line, of four kinds. A "kappa" row holds a table of
counts and expects Cohen's kappa, written with four decimals (or "undefined"). A "kappa_interval" row holds
a table and expects kappa, its large-sample standard error and the ends of its 95% interval, each with four
decimals (agreement.kappa_interval). A "verdict" row holds a
judge (a name in fakes.BIASES, and whether it is chatty), a method (a name in rubric.METHODS), a question
with its points and two answers in order, and expects the winner by slot and the number of judge calls. A
"grade" row holds a golden case (checked as evals/cases.py checks one) and a reply, and expects the code
the case's own grader gives and whether the judge passes it. run_scenario() says what a row produced;
check_scenario() lists how that differs from what the row expects. Left out: rows that run the whole pair
set (the course page runs it) and the verbosity padding (bias.py's tests pin it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator

from evidencedesk.agent.scenarios import one_of
from evidencedesk.evals.cases import case_adapter, checked_case
from evidencedesk.evals.graders import known_code
from evidencedesk.judging.agreement import kappa_interval, kappa_table
from evidencedesk.judging.fakes import BIASES, ScriptedJudge
from evidencedesk.judging.judge import TIE
from evidencedesk.judging.pairs import JUDGING_DATA, Pair, Phrase
from evidencedesk.judging.rubric import METHODS
from evidencedesk.judging.versus import FAILED, PASSED, JudgeGrader
from evidencedesk.strictjson import read_jsonl

KAPPA = r"^(-?[01]\.[0-9]{4}|undefined)$"  # kappa written with four decimals: "0.4000", "-1.0000"
BOUND = r"^-?[01]\.[0-9]{4}$"  # a kappa, or an end of its interval, with four decimals: "0.6512", "-1.0000"
METHOD_NAMES = tuple(method.name for method in METHODS)


class ScenarioError(ValueError):
    """A row of the scenario table is malformed; the message names the line and the field."""


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    id: str = Field(pattern=r"^j[0-9]{2}$")
    why: str = Field(min_length=1, max_length=200)


class KappaExpect(BaseModel):
    """What a kappa row expects: kappa as four decimals, or "undefined"."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    kappa: str = Field(pattern=KAPPA)


class KappaRow(_Row):
    """A table of counts (labels by labels) and the kappa expected."""

    kind: Literal["kappa"]
    labels: tuple[str, ...] = Field(min_length=1, max_length=5, strict=False)
    counts: tuple[Annotated[tuple[int, ...], Field(strict=False)], ...] = Field(min_length=1, max_length=5,
                                                                               strict=False)
    expect: KappaExpect


class KappaIntervalExpect(BaseModel):
    """What a kappa_interval row expects: kappa, se, low and high, each with four decimals."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    kappa: str = Field(pattern=BOUND)
    se: str = Field(pattern=r"^[01]\.[0-9]{4}$")
    low: str = Field(pattern=BOUND)
    high: str = Field(pattern=BOUND)


class KappaIntervalRow(_Row):
    """A table of counts (labels by labels) whose kappa is defined, and its interval expected."""

    kind: Literal["kappa_interval"]
    labels: tuple[str, ...] = Field(min_length=1, max_length=5, strict=False)
    counts: tuple[Annotated[tuple[int, ...], Field(strict=False)], ...] = Field(min_length=1, max_length=5,
                                                                               strict=False)
    expect: KappaIntervalExpect


class VerdictExpect(BaseModel):
    """What a verdict row expects: the winner by slot, and the judge calls made (1 to 4)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    winner: Literal["first", "second", "tie"]
    calls: int = Field(ge=1, le=4)


class VerdictRow(_Row):
    """A judge (bias name, chatty), a method, a question with its points, two answers in order; the verdict."""

    kind: Literal["verdict"]
    judge: str
    chatty: bool = False
    method: str
    question: str = Field(min_length=1, max_length=300)
    points: tuple[Phrase, ...] = Field(min_length=1, max_length=5, strict=False)
    first: str = Field(min_length=1, max_length=600)
    second: str = Field(min_length=1, max_length=600)
    expect: VerdictExpect

    @field_validator("judge")
    @classmethod
    def _known_judge(cls, judge: str) -> str:
        return one_of(judge, tuple(BIASES), "judge")

    @field_validator("method")
    @classmethod
    def _known_method(cls, method: str) -> str:
        return one_of(method, tuple(METHOD_NAMES), "method")


class GradeExpect(BaseModel):
    """What a grade row expects: the code of the case's own grader, and the judge's "pass" or "fail"."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    rule: str
    judge: Literal["pass", "fail"]

    @field_validator("rule")
    @classmethod
    def _known(cls, code: str) -> str:
        return known_code(code)


class GradeRow(_Row):
    """A golden case (a dict, checked as a case) and a reply; the rule's code and the judge's pass or fail."""

    kind: Literal["grade"]
    case: dict[str, Any]
    reply: str = Field(max_length=500)
    expect: GradeExpect

    @field_validator("case")
    @classmethod
    def _a_case(cls, case: dict[str, Any]) -> dict[str, Any]:
        return checked_case(case)


ROW = TypeAdapter(Annotated[Union[KappaRow, KappaIntervalRow, VerdictRow, GradeRow],  # noqa: UP007
                            Field(discriminator="kind")])


def load_scenarios(path: str | Path | None = None) -> list[dict[str, Any]]:
    """Read and validate the scenario table (default kit/data/judging/scenarios.jsonl); the rows as dicts, in order.

    Raises ScenarioError naming the file when it cannot be read, and the line and field of a bad row (an
    unknown judge or method, a bad golden case, a repeated id).
    Example: load_scenarios()[0]["id"] -> "j01"
    """
    path = Path(path) if path is not None else JUDGING_DATA / "scenarios.jsonl"
    return [row for _, row, _ in read_jsonl(path, ROW.validate_python, ScenarioError, "scenario table")]


def run_scenario(row: dict[str, Any]) -> dict[str, Any]:
    """Run one row and return what it produced, in the shape of its expect, plus "reason" (the judge's) for a
    grade row. Raises pydantic.ValidationError for a malformed row; ValueError from kappa_table for a bad table.
    Example: run_scenario(load_scenarios()[0])["kappa"] -> "0.4000"
    """
    checked = ROW.validate_python(row)
    if isinstance(checked, KappaRow):
        kappa = kappa_table(checked.labels, checked.counts).kappa
        return {"kappa": "undefined" if kappa is None else f"{float(kappa):.4f}"}
    if isinstance(checked, KappaIntervalRow):
        interval = kappa_interval(kappa_table(checked.labels, checked.counts))
        return {name: f"{getattr(interval, name):.4f}" for name in ("kappa", "se", "low", "high")}
    if isinstance(checked, VerdictRow):
        judge = ScriptedJudge({checked.question: checked.points}, BIASES[checked.judge], chatty=checked.chatty)
        method = next(m for m in METHODS if m.name == checked.method)(judge)
        pair = Pair(id="p00", question=checked.question, a=checked.first, b=checked.second,
                    points=checked.points, human=TIE, note="a scenario row")
        return {"winner": method(pair, checked.first, checked.second), "calls": len(judge.requests)}
    case = case_adapter().validate_python(checked.case)
    judged = JudgeGrader(ScriptedJudge({}))(case, checked.reply)
    return {"rule": case.grade(checked.reply).code, "judge": PASSED if judged.passed else FAILED,
            "reason": judged.reason}


def check_scenario(row: dict[str, Any]) -> list[str]:
    """How a row's run differs from what it expects, one line per field (an empty list: it matches).

    Example: check_scenario(load_scenarios()[0]) -> []
    """
    expect = ROW.validate_python(row).expect.model_dump()
    got = run_scenario(row)
    return [f"{row['id']} {name}: expected {want!r}, got {got[name]!r}" for name, want in expect.items()
            if got[name] != want]
