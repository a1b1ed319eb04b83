"""The redteam scenario table: one mutation, one filter reading, one gate decision, one score at a time.

kit/data/redteam/scenarios.jsonl holds one row per line, of four kinds. A "mutate" row holds a text and a
mutation and expects the parts it makes. A "probe" row names a seed of the campaign (an attack table id) and
a mutation, and expects whether the filter flags it and the gate's codes for the obeying model's calls. A
"classify" row holds a text and a threshold and expects the score, the features that fired and the
verdict. A "precision" row holds recall, false-positive rate and prevalence and expects precision with four
decimals. run_scenario() says what a row produced; check_scenario() lists how that differs from what the
row expects. Left out: rows over the whole traffic set (the course page measures it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator

from evidencedesk.redteam.campaign import ObeyingModel, goals, play, seeds
from evidencedesk.redteam.classifier import FEATURES, classify
from evidencedesk.redteam.measure import precision_at
from evidencedesk.redteam.mutations import MUTATIONS, mutate
from evidencedesk.redteam.traffic import REDTEAM_DATA
from evidencedesk.strictjson import read_jsonl

FEATURE_NAMES = tuple(f.name for f in FEATURES)


class ScenarioError(ValueError):
    """A row of the scenario table is malformed; the message names the line and the field."""


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    id: str = Field(pattern=r"^r[0-9]{2}$")
    why: str = Field(min_length=1, max_length=200)


def _known(value: str, known: tuple[str, ...], what: str) -> str:
    if value not in known:
        raise ValueError(f"unknown {what} {value[:40]!r}; expected one of: {', '.join(known)}")
    return value


class MutateRow(_Row):
    """A text and a mutation; the parts expected."""

    kind: Literal["mutate"]
    text: str = Field(min_length=1, max_length=300)
    mutation: str
    expect: tuple[str, ...] = Field(min_length=1, strict=False)

    @field_validator("mutation")
    @classmethod
    def _mutation(cls, name: str) -> str:
        return _known(name, tuple(MUTATIONS), "mutation")


class ProbeExpect(BaseModel):
    """What a probe row expects: flagged by the filter or not, and the gate's codes for the proposed calls."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    flagged: bool
    codes: tuple[str, ...] = Field(strict=False)


class ProbeRow(_Row):
    """A campaign seed (attack table id) and a mutation; the filter's verdict and the gate's codes."""

    kind: Literal["probe"]
    seed: str = Field(pattern=r"^a[0-9]{2}$")
    mutation: str
    expect: ProbeExpect

    @field_validator("mutation")
    @classmethod
    def _mutation(cls, name: str) -> str:
        return _known(name, tuple(MUTATIONS), "mutation")


class ClassifyExpect(BaseModel):
    """What a classify row expects: the score (points), the features that fired, and the verdict."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    score: int = Field(ge=0)
    fired: tuple[str, ...] = Field(strict=False)
    flagged: bool

    @field_validator("fired")
    @classmethod
    def _features(cls, names: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(_known(name, FEATURE_NAMES, "feature") for name in names)


class ClassifyRow(_Row):
    """A text and a threshold (points); the score, features and verdict expected."""

    kind: Literal["classify"]
    text: str = Field(min_length=1, max_length=300)
    threshold: int = Field(ge=1)
    expect: ClassifyExpect


class PrecisionRow(_Row):
    """Recall, false-positive rate and prevalence (rates, 0 to 1); the precision expected, four decimals."""

    kind: Literal["precision"]
    recall: float = Field(ge=0, le=1, strict=False)
    fpr: float = Field(ge=0, le=1, strict=False)
    prevalence: float = Field(ge=0, le=1, strict=False)
    expect: str = Field(pattern=r"^[01]\.[0-9]{4}$")


ROW = TypeAdapter(Annotated[Union[MutateRow, ProbeRow, ClassifyRow, PrecisionRow],  # noqa: UP007
                            Field(discriminator="kind")])


def load_scenarios(path: str | Path | None = None) -> list[dict[str, Any]]:
    """Read and validate the scenario table (default kit/data/redteam/scenarios.jsonl); the rows as dicts.

    Raises ScenarioError naming the file, and the line and field of a bad row (an unknown mutation or
    feature, a repeated id). Example: load_scenarios()[0]["id"] -> "r01"
    """
    path = Path(path) if path is not None else REDTEAM_DATA / "scenarios.jsonl"
    return [row for _, row, _ in read_jsonl(path, ROW.validate_python, ScenarioError, "scenario table")]


def run_scenario(row: dict[str, Any]) -> Any:
    """Run one row and return what it produced, in the shape of its expect.

    Raises pydantic.ValidationError for a malformed row; LookupError for a probe seed that is not a
    campaign seed. Example: run_scenario(load_scenarios()[0])
    """
    checked = ROW.validate_python(row)
    if isinstance(checked, MutateRow):
        return list(mutate(checked.text, checked.mutation))
    if isinstance(checked, ProbeRow):
        by_id = {seed.id: seed for seed in seeds()}
        if checked.seed not in by_id:
            raise LookupError(f"seed {checked.seed} is not a campaign seed: {', '.join(by_id)}")
        result = play(by_id[checked.seed], checked.mutation, ObeyingModel(goals()))
        return {"flagged": result.probe.flagged, "codes": list(result.codes)}
    if isinstance(checked, ClassifyRow):
        verdict = classify(checked.text, checked.threshold)
        return {"score": verdict.score, "fired": list(verdict.fired), "flagged": verdict.flagged}
    return f"{precision_at(checked.recall, checked.fpr, checked.prevalence):.4f}"


def check_scenario(row: dict[str, Any]) -> list[str]:
    """How a row's result differs from its expect: [] when it matches. Example: check_scenario(row) -> []"""
    got, expect = run_scenario(row), row["expect"]
    return [] if got == expect else [f"{row['id']}: expected {expect!r}, got {got!r}"]
