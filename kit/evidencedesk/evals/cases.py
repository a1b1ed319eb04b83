"""Golden cases as data: one JSON object per line, validated when loaded, each graded by the kind it names.

A golden case holds an input (what the system under evaluation is asked), the grader kind, what that
grader expects, and tags for slicing results. Each kind is a strict, frozen pydantic model whose
grade(reply) calls its grader from graders.py; the "grader" field picks the model (a discriminated
union), so a row is checked against the fields of its own kind and a bad row is refused with its line
and field. The Grader protocol is what a runner calls: grade_case, the default, asks the case itself;
a grader that needs more than the case (a model, a trace) can take its place. Left out: case
generation, weighting, and versioning a case set beyond the file itself (a changed case set is a new
case set: results on the old one do not compare).
"""

from __future__ import annotations

import functools
from collections import Counter
from decimal import Decimal
from pathlib import Path
from collections.abc import Callable
from typing import Annotated, Any, ClassVar, Literal, Protocol, Union, get_args

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator, model_validator

from evidencedesk import DATA_DIR
from evidencedesk.agent.scenarios import one_of
from evidencedesk.calling.scenarios import TicketTriage
from evidencedesk.evals.graders import (
    DOC_ID,
    PLAIN_NUMBER,
    Grade,
    cites_allowed,
    exact_match,
    json_fits,
    normalise,
    set_match,
    within_tolerance,
)
from evidencedesk.strictjson import read_jsonl

EVALS_DATA = DATA_DIR / "evals"
SCHEMAS: dict[str, type[BaseModel]] = {"TicketTriage": TicketTriage}  # what a json case may name
TAG = r"^[a-z][a-z0-9-]{0,23}$"
DECIMAL = f"^{PLAIN_NUMBER.pattern}$"  # a decimal written as a string: JSON has no decimal type


class CaseError(ValueError):
    """A row of a case file is malformed; the message names the file, the line and the field."""


class CaseBase(BaseModel):
    """What every kind of case has: an id, the input, and 1 to 5 tags. A kind adds grader (a Literal naming
    it), expected and its own fields, `uses` (the grader function it calls) and grade(reply)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    id: str = Field(pattern=r"^[a-z][0-9]{2,3}$")
    input: str = Field(min_length=1, max_length=1000)
    tags: tuple[Annotated[str, Field(pattern=TAG)], ...] = Field(min_length=1, max_length=5, strict=False)

    @field_validator("tags")
    @classmethod
    def _unique(cls, tags: tuple[str, ...]) -> tuple[str, ...]:
        if len(set(tags)) != len(tags):
            raise ValueError("a tag appears twice")
        return tags

    def grade(self, reply: str) -> Grade:
        """Grade reply (str, as the model wrote it) by this kind's rule: a graders.Grade; never raises on a reply."""
        raise NotImplementedError(f"{type(self).__name__} must define grade(reply)")


class ExactCase(CaseBase):
    """The reply must equal expected after graders.normalise(): a category word, say.

    Example: ExactCase(id="g01", input="Category?", grader="exact", expected="refund", tags=["refund"])
    """

    grader: Literal["exact"]
    expected: str = Field(min_length=1, max_length=200)
    uses: ClassVar[Callable[..., Grade]] = staticmethod(exact_match)

    def grade(self, reply: str) -> Grade:
        return self.uses(reply, self.expected)


class SetCase(CaseBase):
    """The reply's comma-separated items must be exactly the expected set, in any order."""

    grader: Literal["set"]
    expected: tuple[Annotated[str, Field(min_length=1, max_length=40)], ...] = Field(max_length=20, strict=False)
    uses: ClassVar[Callable[..., Grade]] = staticmethod(set_match)

    @field_validator("expected")
    @classmethod
    def _distinct(cls, items: tuple[str, ...]) -> tuple[str, ...]:
        if len({normalise(item) for item in items}) != len(items) or any("," in item for item in items):
            raise ValueError("items must be distinct after normalising, and hold no comma")
        return items

    def grade(self, reply: str) -> Grade:
        return self.uses(reply, list(self.expected))


class NumericCase(CaseBase):
    """The reply must be a plain number within abs_tol or rel_tol (exactly one) of expected; decimals as strings."""

    grader: Literal["numeric"]
    expected: str = Field(pattern=DECIMAL)
    abs_tol: str | None = Field(default=None, pattern=DECIMAL)
    rel_tol: str | None = Field(default=None, pattern=DECIMAL)
    uses: ClassVar[Callable[..., Grade]] = staticmethod(within_tolerance)

    @model_validator(mode="after")
    def _one_tolerance(self) -> NumericCase:
        if (self.abs_tol is None) == (self.rel_tol is None):
            raise ValueError("give exactly one of abs_tol and rel_tol")
        if Decimal(self.abs_tol or self.rel_tol or "0") < 0:
            raise ValueError("a tolerance must be >= 0")
        return self

    def grade(self, reply: str) -> Grade:
        def dec(text: str | None) -> Decimal | None:
            return None if text is None else Decimal(text)
        return self.uses(reply, Decimal(self.expected), dec(self.abs_tol), dec(self.rel_tol))


class JsonCase(CaseBase):
    """The reply must be JSON that fits the named schema, with the expected values for the fields named."""

    grader: Literal["json"]
    schema_name: str
    expected: dict[str, Any]
    uses: ClassVar[Callable[..., Grade]] = staticmethod(json_fits)

    @model_validator(mode="after")
    def _known_fields(self) -> JsonCase:
        one_of(self.schema_name, tuple(SCHEMAS), "schema")
        unknown = sorted(set(self.expected) - set(SCHEMAS[self.schema_name].model_fields))
        if unknown:
            raise ValueError(f"expected names fields {self.schema_name} does not have: {', '.join(unknown)}")
        return self

    def grade(self, reply: str) -> Grade:
        return self.uses(reply, SCHEMAS[self.schema_name], self.expected)


class CitationCase(CaseBase):
    """The reply must cite at least one [doc-id], and only ids from expected (the ids this case allows)."""

    grader: Literal["citation"]
    expected: tuple[Annotated[str, Field(pattern=f"^{DOC_ID}$")], ...] = Field(min_length=1, max_length=20,
                                                                              strict=False)
    uses: ClassVar[Callable[..., Grade]] = staticmethod(cites_allowed)

    def grade(self, reply: str) -> Grade:
        return self.uses(reply, list(self.expected))


Case = Union[ExactCase, SetCase, NumericCase, JsonCase, CitationCase]  # noqa: UP007 -- a discriminated union
CASE_KINDS: tuple[type[CaseBase], ...] = (ExactCase, SetCase, NumericCase, JsonCase, CitationCase)


def kind_of(model: type[BaseModel]) -> str:
    """The grader kind a case model stands for: the value of its grader Literal.

    Example: kind_of(ExactCase) -> "exact"
    """
    return get_args(model.model_fields["grader"].annotation)[0]


class GoldenCase(Protocol):
    """What a runner needs of a case, whatever its kind: an id, the input, the grader kind, tags, grade(reply)."""

    @property
    def id(self) -> str: ...
    @property
    def input(self) -> str: ...
    @property
    def grader(self) -> str: ...
    @property
    def tags(self) -> tuple[str, ...]: ...
    def grade(self, reply: str) -> Grade: ...


class Grader(Protocol):
    """What a runner calls to grade one reply to one case. grade_case is the default; a grader that needs
    more than the case (a model of its own, a recorded trace) is an object with this __call__."""

    def __call__(self, case: GoldenCase, reply: str) -> Grade: ...


def grade_case(case: GoldenCase, reply: str) -> Grade:
    """Grade reply by the case's own kind: case.grade(reply). Example: grade_case(cases[0], "refund").passed"""
    return case.grade(reply)


@functools.cache  # one validator per set of kinds: building it is the costly part, and every scenario row asks
def case_adapter(kinds: tuple[type[BaseModel], ...] = CASE_KINDS) -> TypeAdapter[Any]:
    """A validator for one row, choosing the model by its "grader" field among kinds (each has grader: Literal[...]).

    Example: case_adapter().validate_python({"id": "g01", "grader": "exact", ...})
    """
    return TypeAdapter(Annotated[Union[kinds], Field(discriminator="grader")])  # noqa: UP007


def checked_case(case: dict[str, Any]) -> dict[str, Any]:
    """Return case (a dict, one row of a case file) when it validates as a golden case of CASE_KINDS.

    Raises ValueError with one line naming the case's own field (not pydantic's whole report), for a
    scenario row that holds a case.
    Example: checked_case({"id": "g01", "grader": "exact", "input": "?", "expected": "x", "tags": ["t"]})["id"] -> "g01"
    """
    try:
        case_adapter().validate_python(case)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ValueError(f"{'.'.join(str(p) for p in first['loc']) or 'row'}: {first['msg']}") from None
    return case


def load_cases(path: str | Path | None = None, kinds: tuple[type[BaseModel], ...] = CASE_KINDS) -> list[Any]:
    """Read and validate a case file: one strict JSON object per line, blank lines skipped, ids unique.

    path (str or Path; default kit/data/evals/cases.jsonl); kinds (the case models a row may be, chosen by
    its "grader" field). Returns the cases, in file order. Raises CaseError naming the file when it cannot
    be read, and the line and the field of the first bad row (field "row" for an unknown grader kind).
    Example: load_cases()[0].id == "g01"
    """
    path = Path(path) if path is not None else EVALS_DATA / "cases.jsonl"
    adapter = case_adapter(kinds)
    return [case for _, _, case in read_jsonl(path, adapter.validate_python, CaseError, "case file")]


def tag_counts(cases: list[Any]) -> dict[str, int]:
    """How many cases carry each tag, most common first (ties by name). Example: tag_counts(load_cases())["refund"]"""
    counts = Counter(tag for case in cases for tag in case.tags)
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))
