"""The evals scenario table: each grader passing and failing at its edges, and the statistics at theirs.

kit/data/evals/scenarios.jsonl holds one row per line, of five kinds. A "grade" row holds a golden case
(validated as cases.load_cases validates one) and a reply, and expects the grade's passed flag and code.
A "wilson" row holds passed and total, and expects the interval's ends; a "mcnemar" row holds the two
discordant counts, and expects the p-value. A "holm" row holds several p-values and expects Holm's
adjusted ones and which are rejected at 0.05 (multiple.py); a "sampled" row holds each case's passes over
several samples and expects the rate and its two standard errors (samples.py). Expected figures are strings with four decimals, compared
with the figure rounded the same way, so that no row compares floats. run_scenario() says what a row
produced; check_scenario() lists how that differs from what the row expects. Left out: rows that run a
configuration (the course page runs both on the golden cases) and the sizing functions (their tests
pin them).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator

from evidencedesk.evals.cases import EVALS_DATA, case_adapter, checked_case
from evidencedesk.evals.graders import known_code
from evidencedesk.evals.multiple import holm
from evidencedesk.evals.paired import mcnemar_exact
from evidencedesk.evals.samples import sampled
from evidencedesk.evals.stats import wilson
from evidencedesk.strictjson import read_jsonl

FIGURE = r"^[01]\.[0-9]{4}$"  # a share or probability written with four decimals: "0.2775", "1.0000"


class ScenarioError(ValueError):
    """A row of the scenario table is malformed; the message names the line and the field."""


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    id: str = Field(pattern=r"^e[0-9]{2}$")
    why: str = Field(min_length=1, max_length=200)


class GradeExpect(BaseModel):
    """What a grade row expects: passed (bool) and the code (one of graders.CODES)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    passed: bool
    code: str

    @field_validator("code")
    @classmethod
    def _known(cls, code: str) -> str:
        return known_code(code)


class GradeRow(_Row):
    """A golden case (a dict, checked as a case), a reply, and the grade expected."""

    kind: Literal["grade"]
    case: dict[str, Any]
    reply: str = Field(max_length=500)
    expect: GradeExpect

    @field_validator("case")
    @classmethod
    def _a_case(cls, case: dict[str, Any]) -> dict[str, Any]:
        return checked_case(case)


class WilsonExpect(BaseModel):
    """What a wilson row expects: the interval's ends, low and high, each a string with four decimals.

    Example: WilsonExpect(low="0.0000", high="0.2775")
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    low: str = Field(pattern=FIGURE)
    high: str = Field(pattern=FIGURE)


class WilsonRow(_Row):
    """passed out of total cases, and the Wilson interval's ends expected (four decimals)."""

    kind: Literal["wilson"]
    passed: int = Field(ge=0)
    total: int = Field(ge=1, le=1_000_000)
    expect: WilsonExpect


class McNemarExpect(BaseModel):
    """What a mcnemar row expects: the exact two-sided p-value, p, a string with four decimals.

    Example: McNemarExpect(p="0.0312")
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    p: str = Field(pattern=FIGURE)


class McNemarRow(_Row):
    """The discordant counts (only A passed, only B passed) and the exact McNemar p-value expected."""

    kind: Literal["mcnemar"]
    only_a: int = Field(ge=0, le=10_000)
    only_b: int = Field(ge=0, le=10_000)
    expect: McNemarExpect


class HolmExpect(BaseModel):
    """What a holm row expects: the adjusted p-values (four decimals each, in the row's order) and which
    are rejected at 0.05.

    Example: HolmExpect(adjusted=("0.0300", "0.0600"), rejected=(True, False))
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    adjusted: tuple[Annotated[str, Field(pattern=FIGURE)], ...] = Field(strict=False)
    rejected: tuple[bool, ...] = Field(strict=False)


class HolmRow(_Row):
    """Several p-values (four decimals each, 1 to 20 of them), and Holm's correction expected."""

    kind: Literal["holm"]
    p_values: tuple[Annotated[str, Field(pattern=FIGURE)], ...] = Field(min_length=1, max_length=20, strict=False)
    expect: HolmExpect


class SampledExpect(BaseModel):
    """What a sampled row expects: rate, se_cases and se_draws, each a string with four decimals.

    Example: SampledExpect(rate="0.7500", se_cases="0.2500", se_draws="0.1531")
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    rate: str = Field(pattern=FIGURE)
    se_cases: str = Field(pattern=FIGURE)
    se_draws: str = Field(pattern=FIGURE)


class SampledRow(_Row):
    """Each case's passes over several samples (2 to 50 cases, 1 to 20 samples each), and the rate expected."""

    kind: Literal["sampled"]
    passes: tuple[Annotated[tuple[bool, ...], Field(strict=False)], ...] = Field(min_length=2, max_length=50,
                                                                                 strict=False)
    expect: SampledExpect

    @field_validator("passes")
    @classmethod
    def _samples(cls, passes: tuple[tuple[bool, ...], ...]) -> tuple[tuple[bool, ...], ...]:
        if any(not 1 <= len(case) <= 20 for case in passes):
            raise ValueError("each case needs 1 to 20 samples")
        return passes


ROW = TypeAdapter(Annotated[Union[GradeRow, WilsonRow, McNemarRow, HolmRow, SampledRow],  # noqa: UP007
                            Field(discriminator="kind")])


def load_scenarios(path: str | Path | None = None) -> list[dict[str, Any]]:
    """Read and validate the scenario table (default kit/data/evals/scenarios.jsonl); the rows as dicts, in order.

    Raises ScenarioError naming the file when it cannot be read, and the line and field of a bad row
    (a grade row's case is checked as a golden case; a repeated id is refused).
    Example: load_scenarios()[0]["id"] == "e01"
    """
    path = Path(path) if path is not None else EVALS_DATA / "scenarios.jsonl"
    return [row for _, row, _ in read_jsonl(path, ROW.validate_python, ScenarioError, "scenario table")]


def _four(value: float) -> str:
    return f"{value:.4f}"


def run_scenario(row: dict[str, Any]) -> dict[str, Any]:
    """Run one row and return what it produced, in the shape of its expect (figures as four-decimal strings),
    plus "reason" for a grade row. Raises pydantic.ValidationError for a malformed row; ValueError from
    wilson when passed > total. Example: run_scenario(load_scenarios()[0])["code"]
    """
    checked = ROW.validate_python(row)
    if isinstance(checked, GradeRow):
        grade = case_adapter().validate_python(checked.case).grade(checked.reply)
        return {"passed": grade.passed, "code": grade.code, "reason": grade.reason}
    if isinstance(checked, WilsonRow):
        rate = wilson(checked.passed, checked.total)
        return {"low": _four(rate.low), "high": _four(rate.high)}
    if isinstance(checked, McNemarRow):
        return {"p": _four(mcnemar_exact(checked.only_a, checked.only_b))}
    if isinstance(checked, HolmRow):
        found = holm({f"t{i}": float(p) for i, p in enumerate(checked.p_values)})
        return {"adjusted": tuple(_four(a.adjusted) for a in found), "rejected": tuple(a.rejected for a in found)}
    rate = sampled({f"c{i}": case for i, case in enumerate(checked.passes)})
    return {"rate": _four(rate.rate), "se_cases": _four(rate.se_cases), "se_draws": _four(rate.se_draws)}


def check_scenario(row: dict[str, Any]) -> list[str]:
    """How a row's run differs from what it expects, one line per field (an empty list: it matches).

    Example: check_scenario(load_scenarios()[0]) == []
    """
    expect = ROW.validate_python(row).expect.model_dump()
    got = run_scenario(row)
    return [f"{row['id']} {name}: expected {want!r}, got {got[name]!r}" for name, want in expect.items()
            if got[name] != want]
