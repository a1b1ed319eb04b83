"""Tests of evidencedesk.evals.cases: the thirty golden cases, their validation by kind, and the Grader protocol."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Literal

import pytest
from pydantic import ValidationError

from evidencedesk.evals.cases import (
    CASE_KINDS,
    EVALS_DATA,
    CaseError,
    ExactCase,
    GoldenCase,
    Grader,
    JsonCase,
    NumericCase,
    CaseBase,
    case_adapter,
    checked_case,
    grade_case,
    load_cases,
    tag_counts,
)
from evidencedesk.evals.graders import CODES, MISMATCH, PASS, Grade, known_code

CASES = load_cases()


def test_the_golden_set_holds_thirty_cases_of_five_kinds_in_order() -> None:
    assert [c.id for c in CASES] == [f"g{n:02d}" for n in range(1, 31)]
    assert Counter(c.grader for c in CASES) == {"exact": 8, "set": 6, "numeric": 6, "json": 5, "citation": 5}
    assert len({c.input for c in CASES}) == 30  # every input is its own question
    assert tag_counts(CASES) == {"delivery": 13, "refund": 9, "account": 3, "amount": 3, "other": 2, "warranty": 2}


def test_each_kind_is_its_own_model_with_its_own_fields() -> None:
    kinds = {c.id: type(c) for c in CASES}
    assert kinds["g01"] is ExactCase and kinds["g15"] is NumericCase and kinds["g21"] is JsonCase
    assert (CASES[14].expected, CASES[14].abs_tol, CASES[14].rel_tol) == ("24.99", "0.01", None)
    assert CASES[18].rel_tol == "0.1" and CASES[20].schema_name == "TicketTriage"
    with pytest.raises(ValidationError):
        CASES[0].expected = "delivery"  # frozen  # type: ignore[misc]


def test_a_case_grades_a_reply_by_its_kind() -> None:
    assert grade_case(CASES[0], " Refund ") == Grade(True, PASS, "matches 'refund'")
    assert grade_case(CASES[0], "delivery").code == MISMATCH
    assert grade_case(CASES[14], "25.00").passed and not grade_case(CASES[14], "25.01").passed


def row(**change: object) -> str:
    good = {"id": "g01", "grader": "exact", "input": "Which category?", "expected": "refund", "tags": ["refund"]}
    return json.dumps({**good, **change})


@pytest.mark.parametrize("change, field", [
    ({"grader": "fuzzy"}, "row"),
    ({"expected": ["refund"]}, "exact.expected"),
    ({"tags": []}, "exact.tags"),
    ({"tags": ["refund", "refund"]}, "exact.tags"),
    ({"tags": ["Refund"]}, "exact.tags.0"),
    ({"tags": "refund"}, "exact.tags"),
    ({"colour": "red"}, "exact.colour"),
    ({"id": "case-1"}, "exact.id"),
    ({"input": ""}, "exact.input"),
    ({"grader": "numeric", "expected": "24,99", "abs_tol": "0.01"}, "numeric.expected"),
    ({"grader": "numeric", "expected": 24.99, "abs_tol": "0.01"}, "numeric.expected"),  # a float is never exact
    ({"grader": "numeric", "expected": "24.99"}, "numeric"),
    ({"grader": "numeric", "expected": "24.99", "abs_tol": "0.01", "rel_tol": "0.1"}, "numeric"),
    ({"grader": "numeric", "expected": "24.99", "abs_tol": "-0.01"}, "numeric"),
    ({"grader": "set", "expected": ["late", "Late"]}, "set.expected"),
    ({"grader": "set", "expected": ["late, damaged"]}, "set.expected"),
    ({"grader": "json", "schema_name": "Invoice", "expected": {}}, "json"),
    ({"grader": "json", "schema_name": "TicketTriage", "expected": {"priority": 1}}, "json"),
    ({"grader": "citation", "expected": []}, "citation.expected"),
    ({"grader": "citation", "expected": ["KC-Returns"]}, "citation.expected.0"),
])
def test_a_bad_row_is_named_by_line_and_field(tmp_path: Path, change: dict, field: str) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text(row() + "\n\n" + row(**{"id": "g02", "input": "Which label?", **change}) + "\n", encoding="utf-8")
    with pytest.raises(CaseError) as exc:
        load_cases(path)
    assert str(exc.value).startswith(f"cases.jsonl line 3: field {field}:")


def test_repeated_ids_bad_json_and_unreadable_files_are_named(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text(row() + "\n" + row(input="Another question?") + "\n", encoding="utf-8")
    with pytest.raises(CaseError, match="line 2: field id: repeated id 'g01'"):
        load_cases(path)
    path.write_text('{"id": "g01", "id": "g02"}\n', encoding="utf-8")
    with pytest.raises(CaseError, match="line 1: not JSON \\(repeated key 'id'"):
        load_cases(path)
    with pytest.raises(CaseError, match="absent.jsonl: cannot read the case file"):
        load_cases(tmp_path / "absent.jsonl")


class PrefixCase(CaseBase):
    """A kind a later page might add: the reply must start with expected."""

    grader: Literal["prefix"]
    expected: str

    def grade(self, reply: str) -> Grade:
        ok = reply.startswith(self.expected)
        return Grade(ok, PASS if ok else MISMATCH, "starts as expected" if ok else "does not start as expected")


def test_a_new_kind_of_case_loads_when_it_is_passed_in_and_not_otherwise(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text(row(grader="prefix", expected="T-") + "\n", encoding="utf-8")
    with pytest.raises(CaseError, match="field row: Input tag 'prefix'"):
        load_cases(path)
    (case,) = load_cases(path, kinds=(*CASE_KINDS, PrefixCase))
    assert grade_case(case, "T-601 is open").passed and not grade_case(case, "It is open").passed
    two_kinds = case_adapter((ExactCase, PrefixCase))
    assert two_kinds.validate_python({**json.loads(row()), "grader": "prefix"}).grader == "prefix"


def test_any_callable_of_the_protocol_can_grade() -> None:
    def strict_exact(case: GoldenCase, reply: str) -> Grade:  # no normalising at all
        same = reply == case.expected  # type: ignore[attr-defined]
        return Grade(same, PASS if same else MISMATCH, "byte for byte")

    graders: list[Grader] = [grade_case, strict_exact]
    assert [g(CASES[0], " REFUND ").passed for g in graders] == [True, False]


def test_the_data_file_is_the_default(tmp_path: Path) -> None:
    assert load_cases(EVALS_DATA / "cases.jsonl") == CASES


def test_checked_case_returns_a_good_case_and_names_the_field_of_a_bad_one() -> None:
    good = {"id": "g01", "grader": "exact", "input": "?", "expected": "x", "tags": ["t"]}
    assert checked_case(good) is good
    with pytest.raises(ValueError, match=r"^exact\.tags: Field required$"):
        checked_case({"id": "g01", "grader": "exact", "input": "?", "expected": "x"})
    with pytest.raises(ValueError, match="grader"):
        checked_case({"id": "g01", "grader": "fuzzy"})


def test_known_code_accepts_each_code_and_names_an_unknown_one() -> None:
    assert [known_code(code) for code in CODES] == list(CODES)
    with pytest.raises(ValueError, match=r"unknown code 'passed'; known: pass, "):
        known_code("passed")
