"""Tests of evidencedesk.evals.graders: each grader's pass and failures, its stated rules, and its reasons."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evidencedesk.calling.scenarios import TicketTriage
from evidencedesk.evals.graders import (
    CODES,
    MISMATCH,
    NO_CITATION,
    NOT_A_NUMBER,
    NOT_ALLOWED,
    NOT_JSON,
    OUT_OF_TOLERANCE,
    PASS,
    SCHEMA,
    Grade,
    SetGrade,
    cites_allowed,
    exact_match,
    json_fits,
    normalise,
    set_match,
    within_tolerance,
)

CENT = Decimal("0.01")
TRIAGE = '{"ticket_id": "T-704", "category": "delivery", "urgent": true, "summary": "Address change."}'


@pytest.mark.parametrize("text, normal", [
    ("  REFUND ", "refund"),
    ("Refund.", "refund"),
    ("refund..", "refund."),  # one trailing full stop, not every one
    ("ｒｅｆｕｎｄ", "refund"),  # fullwidth letters: NFKC
    ("re\u200bfund", "refund"),  # a zero-width space is hidden: removed
    ("late\n  and\tdamaged", "late and damaged"),
    ("STRASSE", "strasse"),
    ("Straße", "strasse"),  # casefold, not lower: ß folds to ss
])
def test_normalise_is_the_rule_it_states(text: str, normal: str) -> None:
    assert normalise(text) == normal


def test_exact_match_forgives_only_what_normalise_does() -> None:
    assert exact_match(" REFUND. ", "refund") == Grade(True, PASS, "matches 'refund'")
    assert exact_match("refund request", "refund") == Grade(False, MISMATCH, "expected 'refund', got 'refund request'")
    assert exact_match("not refund", "refund").code == MISMATCH
    assert exact_match("x" * 500, "refund").reason.endswith(", got '" + "x" * 39 + "…")  # a long reply is cut
    assert exact_match("\x1f" * 50, "refund").reason == "expected 'refund', got ''"  # hidden: removed
    unprintable = exact_match("\U00010768" * 50, "refund").reason  # escaped, then cut: a reason stays short
    assert unprintable == "expected 'refund', got '" + "\\U00010768" * 3 + "\\U0001076…"


def test_set_match_is_order_free_and_reports_precision_and_recall() -> None:
    assert set_match("late, damaged", ["damaged", "late"]) == SetGrade(True, PASS, "matches {damaged, late}", 1.0, 1.0)
    assert set_match("Late ,DAMAGED, late", ["damaged", "late"]).passed  # repeats collapse: a set
    extra = set_match("damaged, late, wrong-item", ["damaged", "late"])
    assert (extra.passed, extra.code, extra.reason, extra.precision, extra.recall) == (
        False, MISMATCH, "extra wrong-item", 2 / 3, 1.0)
    short = set_match("missing-item", ["missing-item", "damaged"])
    assert (short.reason, short.precision, short.recall) == ("missing damaged", 1.0, 0.5)
    both = set_match("late, wrong-item", ["late", "damaged"])
    assert (both.reason, both.precision, both.recall) == ("missing damaged; extra wrong-item", 0.5, 0.5)


def test_set_match_says_none_where_a_share_is_zero_over_zero() -> None:
    empty_reply = set_match(" , ", ["late"])
    assert (empty_reply.passed, empty_reply.precision, empty_reply.recall) == (False, None, 0.0)
    nothing_expected = set_match("", [])
    assert (nothing_expected.passed, nothing_expected.precision, nothing_expected.recall) == (True, None, None)


def test_the_tolerance_edge_passes_in_decimal_where_float_would_fail_it() -> None:
    assert 25.00 - 24.99 > 0.01  # binary floating point: 0.010000000000001563
    assert within_tolerance("25.00", Decimal("24.99"), abs_tol=CENT).passed
    assert within_tolerance("24.98", Decimal("24.99"), abs_tol=CENT).passed
    past = within_tolerance("25.01", Decimal("24.99"), abs_tol=CENT)
    assert (past.code, past.reason) == (OUT_OF_TOLERANCE, "25.01 is 0.02 from 24.99 (allowed 0.01)")


def test_a_relative_tolerance_is_relative_to_the_expected_value_unlike_isclose() -> None:
    assert math.isclose(111, 100, rel_tol=0.1)  # isclose scales by the larger value: 0.1 * 111 = 11.1
    grade = within_tolerance("111", Decimal("100"), rel_tol=Decimal("0.1"))
    assert (grade.code, grade.reason) == (OUT_OF_TOLERANCE, "111 is 11 from 100 (allowed 10.0)")
    assert within_tolerance("110", Decimal("100"), rel_tol=Decimal("0.1")).passed
    assert within_tolerance("5.94", Decimal("5.4"), rel_tol=Decimal("0.1")).passed  # 0.54 exactly: the edge
    assert not within_tolerance("4.8", Decimal("5.4"), rel_tol=Decimal("0.1")).passed


@pytest.mark.parametrize("reply", ["24,99", "€18.50", "18.50 euros", "1e3", "+5", "NaN", "Infinity", "", "1.", ".5",
                                   "1 000", "0x10", "12" * 10])
def test_only_a_plain_decimal_number_is_read(reply: str) -> None:
    grade = within_tolerance(reply, Decimal("5"), abs_tol=Decimal("1000"))
    assert grade.code == NOT_A_NUMBER and grade.reason.startswith("not a plain number")


def test_a_number_is_read_in_its_visible_form() -> None:
    assert within_tolerance(" 24.99\n", Decimal("24.99"), abs_tol=CENT).passed
    assert within_tolerance("２４.９９", Decimal("24.99"), abs_tol=CENT).passed  # fullwidth digits: NFKC
    assert within_tolerance("-3", Decimal("-3"), abs_tol=Decimal("0")).passed


@pytest.mark.parametrize("tolerances", [{}, {"abs_tol": CENT, "rel_tol": CENT}, {"abs_tol": Decimal("-1")},
                                        {"rel_tol": Decimal("-0.1")}])
def test_a_tolerance_must_be_one_and_not_negative(tolerances: dict) -> None:
    with pytest.raises(ValueError, match="exactly one|must be >= 0"):
        within_tolerance("5", Decimal("5"), **tolerances)


def test_json_fits_parses_strictly_then_checks_the_schema_then_the_fields() -> None:
    expected = {"ticket_id": "T-704", "category": "delivery", "urgent": True}
    assert json_fits(TRIAGE, TicketTriage, expected) == Grade(
        True, PASS, "fits TicketTriage; ticket_id, category, urgent as expected")
    assert json_fits("Here it is: " + TRIAGE, TicketTriage, expected).code == NOT_JSON
    assert json_fits('{"urgent": true, "urgent": false}', TicketTriage, {}).code == NOT_JSON  # repeated key
    extra = json_fits(TRIAGE[:-1] + ', "confidence": 0.9}', TicketTriage, expected)
    assert (extra.code, extra.reason) == (SCHEMA, "TicketTriage: confidence: Extra inputs are not permitted")
    wrong = json_fits(TRIAGE.replace("true", "false"), TicketTriage, expected)
    assert (wrong.code, wrong.reason) == (MISMATCH, "urgent: expected true, got false")
    assert json_fits(TRIAGE.replace("true", '"true"'), TicketTriage, {}).code == SCHEMA  # strict: a string is no bool


def test_json_fits_refuses_a_case_that_names_a_field_the_schema_lacks() -> None:
    with pytest.raises(ValueError, match="does not have: priority"):
        json_fits(TRIAGE, TicketTriage, {"priority": "high"})


def test_cites_allowed_needs_a_citation_and_only_allowed_ones() -> None:
    allowed = ["kc-returns-v3"]
    assert cites_allowed("Within 30 days [kc-returns-v3].", allowed) == Grade(True, PASS, "cites kc-returns-v3")
    assert cites_allowed("Within 30 days.", allowed) == Grade(False, NO_CITATION, "cites nothing")
    mixed = cites_allowed("Yes [kc-returns-v3] [kc-warranty-v1] [kc-warranty-v1]", allowed)
    assert (mixed.code, mixed.reason) == (NOT_ALLOWED, "cites kc-warranty-v1, not allowed here")
    assert cites_allowed("Yes [KC-RETURNS-V3]", allowed).code == NO_CITATION  # ids are lower case, as in the data
    assert cites_allowed("Yes [kc-returns-v3] and (see kc-privacy-v4)", allowed).passed  # only [id] is a citation


def test_a_grade_passes_exactly_when_its_code_is_pass_and_knows_its_codes() -> None:
    with pytest.raises(ValueError, match="exactly when"):
        Grade(True, MISMATCH, "x")
    with pytest.raises(ValueError, match="exactly when"):
        Grade(False, PASS, "x")
    with pytest.raises(ValueError, match="unknown grade code 'close'"):
        Grade(False, "close", "x")
    assert Grade.known_codes() == CODES and len(set(CODES)) == len(CODES)


@settings(max_examples=150, deadline=None, derandomize=True, database=None)  # the same examples every run
@given(st.text(max_size=80))
def test_no_grader_raises_on_any_reply(reply: str) -> None:
    grades = [exact_match(reply, "refund"), set_match(reply, ["late"]),
              within_tolerance(reply, Decimal("5"), abs_tol=CENT), json_fits(reply, TicketTriage, {"urgent": True}),
              cites_allowed(reply, ["kc-returns-v3"])]
    assert all(isinstance(g, Grade) and g.code in CODES and len(g.reason) <= 120 for g in grades)
