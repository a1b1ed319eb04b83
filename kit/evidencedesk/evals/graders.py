"""Deterministic graders: small functions that say whether one reply is right, with a code and a reason.

Each grader takes the reply (str) and what the case expects, and returns a Grade: passed (bool), a code
from CODES, and a one-line reason a person can read. exact_match compares after normalise() (visible
form, casefold, whitespace collapsed, one trailing full stop dropped); set_match splits a reply on
commas and compares the items as a set, reporting precision and recall; within_tolerance reads a plain
decimal number and compares it with Decimal arithmetic, within an absolute or a relative tolerance;
json_fits parses strict JSON, validates it against a pydantic model and compares the fields the case
names; cites_allowed finds [doc-id] citations and requires at least one, all among the ids the case
allows. A grader never raises on a reply: a reply is data from a model, and a bad one is a failed
grade. Left out: graders that need a model (a judge), partial credit, and whether a cited document
supports the claim made (cites_allowed checks ids, never meaning).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from pydantic import BaseModel, ValidationError

from evidencedesk.agent.scenarios import one_of
from evidencedesk.calling.structured import schema_problems
from evidencedesk.llm import INCOMPLETE  # "incomplete": a reply cut short is not graded (runner.py)
from evidencedesk.security import visible
from evidencedesk.strictjson import parse_json
from evidencedesk.tools import clip

PASS = "pass"
MISMATCH = "mismatch"  # a value differs from the expected one (a word, a set, a field of a JSON object)
NOT_A_NUMBER = "not_a_number"  # the reply is not one plain decimal number ("24,99 €" is not)
OUT_OF_TOLERANCE = "out_of_tolerance"  # a number, but too far from the expected one
NOT_JSON = "not_json"  # the reply is not one strict JSON value
SCHEMA = "schema"  # JSON, but it does not fit the pydantic model
NO_CITATION = "no_citation"  # the reply cites nothing
NOT_ALLOWED = "citation_not_allowed"  # the reply cites an id the case does not allow
CODES = (PASS, MISMATCH, NOT_A_NUMBER, OUT_OF_TOLERANCE, NOT_JSON, SCHEMA, NO_CITATION, NOT_ALLOWED, INCOMPLETE)


def known_code(code: str) -> str:
    """Return code when it is one of CODES (a scenario row's expected grade code); raise ValueError naming it.

    Example: known_code("mismatch") -> "mismatch"
    """
    return one_of(code, CODES, "code")
PLAIN_NUMBER = re.compile(r"-?[0-9]{1,15}(\.[0-9]{1,15})?")  # "24.99", "-3", "7.0"; no sign +, unit, comma, space
DOC_ID = r"[a-z0-9][a-z0-9-]{0,63}"  # a document id, as kit/data/documents.json writes them: kc-returns-v3
CITATION = re.compile(rf"\[({DOC_ID})\]")  # a citation in a reply: [kc-returns-v3]
SHOWN = 40  # characters of a reply a reason repeats


@dataclass(frozen=True)
class Grade:
    """What one grader said about one reply: passed, code (PASS when passed, else a failure code), reason.

    Raises ValueError when passed and code disagree, or code is not in CODES (a later grader adds its
    codes by extending CODES in its own module and subclassing Grade).
    Example: Grade(False, MISMATCH, "expected 'refund', got 'delivery'")
    """

    passed: bool
    code: str
    reason: str

    def __post_init__(self) -> None:
        if self.passed != (self.code == PASS):
            raise ValueError(f"a grade passes exactly when its code is {PASS!r}: got passed={self.passed}, "
                             f"code={self.code!r}")
        if self.code not in self.known_codes():
            raise ValueError(f"unknown grade code {self.code!r}; known: {', '.join(self.known_codes())}")

    @classmethod
    def known_codes(cls) -> tuple[str, ...]:
        """The codes a grade of this class may carry. Example: Grade.known_codes()[0] == "pass" """
        return CODES


@dataclass(frozen=True)
class SetGrade(Grade):
    """A Grade from set_match, with precision and recall of the reply's set (None where 0/0, an empty set).

    Example: set_match("late", ["late", "damaged"]).recall -> 0.5
    """

    precision: float | None = None
    recall: float | None = None


def _quoted(text: str) -> str:
    """text as Python quotes it (control characters escaped), cut to SHOWN characters with "…" when longer."""
    quoted = repr(text)
    return quoted if len(quoted) <= SHOWN else quoted[:SHOWN] + "…"


def normalise(text: str) -> str:
    """The form exact and set match compare: visible form (security.visible: hidden characters removed,
    NFKC), casefolded, runs of whitespace made one space, ends stripped, one trailing "." dropped.

    Args: text (str). Returns: str. Raises: TypeError for a non-str.
    Example: normalise("  Ｒefund. ") -> "refund"
    """
    folded = " ".join(visible(text).casefold().split())
    return folded.removesuffix(".").rstrip()


def exact_match(reply: str, expected: str) -> Grade:
    """Pass when reply and expected are equal after normalise(); nothing else is forgiven.

    Example: exact_match(" REFUND ", "refund").passed -> True; exact_match("refund it", "refund").code -> "mismatch"
    """
    got, want = normalise(reply), normalise(expected)
    if got == want:
        return Grade(True, PASS, f"matches {_quoted(want)}")
    return Grade(False, MISMATCH, f"expected {_quoted(want)}, got {_quoted(got)}")


def _items(text: str) -> set[str]:
    return {item for item in (normalise(part) for part in text.split(",")) if item}


def set_match(reply: str, expected: list[str]) -> SetGrade:
    """Pass when the reply's comma-separated items, each normalised, are exactly the expected set (any order).

    precision = found / items in the reply; recall = found / items expected (None when that set is empty).
    Example: set_match("late, damaged", ["damaged", "late"]).passed -> True
    """
    got, want = _items(reply), {normalise(item) for item in expected}
    found = len(got & want)
    precision = found / len(got) if got else None
    recall = found / len(want) if want else None
    if got == want:
        return SetGrade(True, PASS, f"matches {{{', '.join(sorted(want))}}}", precision, recall)
    missing, extra = sorted(want - got), sorted(got - want)
    parts = ([f"missing {', '.join(missing)}"] if missing else []) + ([f"extra {', '.join(extra)}"] if extra else [])
    return SetGrade(False, MISMATCH, clip("; ".join(parts), 2 * SHOWN), precision, recall)


def within_tolerance(reply: str, expected: Decimal, abs_tol: Decimal | None = None,
                     rel_tol: Decimal | None = None) -> Grade:
    """Pass when the reply is one plain decimal number within the tolerance of expected, edges included.

    Give exactly one tolerance: abs_tol (|got - expected| <= abs_tol, in the answer's own unit) or rel_tol
    (|got - expected| <= rel_tol * |expected|: relative to the EXPECTED value, unlike math.isclose, which
    uses the larger of the two). Decimal arithmetic, so 25.00 - 24.99 is exactly 0.01.
    Raises ValueError when not exactly one tolerance is given, or one is negative.
    Example: within_tolerance("25.00", Decimal("24.99"), abs_tol=Decimal("0.01")).passed -> True
    """
    if (abs_tol is None) == (rel_tol is None):
        raise ValueError("give exactly one of abs_tol and rel_tol")
    tolerance = abs_tol if abs_tol is not None else rel_tol * abs(expected)  # type: ignore[operator]
    if tolerance < 0:
        raise ValueError(f"a tolerance must be >= 0, got {abs_tol if abs_tol is not None else rel_tol}")
    text = visible(reply).strip()
    if not PLAIN_NUMBER.fullmatch(text):
        return Grade(False, NOT_A_NUMBER, f"not a plain number: {_quoted(text)}")
    off = abs(Decimal(text) - expected)
    if off <= tolerance:
        return Grade(True, PASS, f"{text} is {off} from {expected} (allowed {tolerance})")
    return Grade(False, OUT_OF_TOLERANCE, f"{text} is {off} from {expected} (allowed {tolerance})")


def json_fits(reply: str, schema: type[BaseModel], expected: dict[str, Any]) -> Grade:
    """Pass when the reply is strict JSON that fits schema (a pydantic model) and has the expected field values.

    expected: {field: value} for the fields that must match (others only have to fit the schema).
    Raises ValueError when expected names a field the schema does not have (a bad case, not a bad reply).
    Example: json_fits('{"ticket_id": "T-501", ...}', TicketTriage, {"category": "refund"})
    """
    unknown = sorted(set(expected) - set(schema.model_fields))
    if unknown:
        raise ValueError(f"expected names fields {schema.__name__} does not have: {', '.join(unknown)}")
    try:
        data = parse_json(reply)
    except (TypeError, ValueError):
        return Grade(False, NOT_JSON, f"not JSON: {_quoted(reply.strip())}")
    try:
        value = schema.model_validate(data)
    except ValidationError as exc:
        problems = schema_problems(exc)
        return Grade(False, SCHEMA, clip(f"{schema.__name__}: {problems[0]}", 2 * SHOWN))
    for name, want in expected.items():
        got = getattr(value, name)
        if got != want:
            return Grade(False, MISMATCH, f"{name}: expected {_shown(want)}, got {_shown(got)}")
    return Grade(True, PASS, f"fits {schema.__name__}; {', '.join(expected) or 'no field'} as expected")


def _shown(value: Any) -> str:
    """A value as JSON writes it (true, "refund"), clipped; repr for what JSON cannot write."""
    try:
        return clip(json.dumps(value, ensure_ascii=False), SHOWN)
    except (TypeError, ValueError):
        return clip(repr(value), SHOWN)


def cites_allowed(reply: str, allowed: list[str]) -> Grade:
    """Pass when the reply cites at least one [doc-id] and every id it cites is in allowed.

    Example: cites_allowed("Within 30 days [kc-returns-v3].", ["kc-returns-v3"]).passed -> True
    """
    cited = list(dict.fromkeys(CITATION.findall(visible(reply))))
    if not cited:
        return Grade(False, NO_CITATION, "cites nothing")
    outside = [doc for doc in cited if doc not in allowed]
    if outside:
        return Grade(False, NOT_ALLOWED, clip(f"cites {', '.join(outside)}, not allowed here", 2 * SHOWN))
    return Grade(True, PASS, f"cites {', '.join(cited)}")
