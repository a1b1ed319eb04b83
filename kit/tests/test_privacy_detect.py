"""Tests of evidencedesk.privacy.detect: each kind found with its span, overlaps resolved, and the misses it admits."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evidencedesk.privacy.detect import CARD, EMAIL_KIND, KINDS, NAME, PHONE, find_personal_data, luhn_ok


def spans(text: str, names: list[str] | None = None) -> list[tuple[str, str]]:
    return [(s.kind, s.value) for s in find_personal_data(text, names or []).spans]


def test_each_kind_is_found_with_its_value() -> None:
    text = "Sipho Dlamini, sipho@example.org, +44 20 7946 0321, card 4111 1111 1111 1111."
    assert spans(text, ["Sipho Dlamini"]) == [(NAME, "Sipho Dlamini"), (EMAIL_KIND, "sipho@example.org"),
                                              (PHONE, "+44 20 7946 0321"), (CARD, "4111 1111 1111 1111")]


def test_spans_index_the_visible_text() -> None:
    found = find_personal_data("mail ｓｉｐｈｏ@example.org\u200b now")
    assert found.text == "mail sipho@example.org now"
    (span,) = found.spans
    assert found.text[span.start:span.end] == span.value == "sipho@example.org"


@pytest.mark.parametrize("digits, ok", [("4111111111111111", True), ("4111111111111112", False),
                                        ("5555555555554444", True), ("79927398713", True), ("", False),
                                        ("4111-1111", False), ("٤١١١", False)])
def test_luhn_check(digits: str, ok: bool) -> None:
    assert luhn_ok(digits) is ok


def test_a_card_is_found_in_groups_or_whole_and_only_when_luhn_passes() -> None:
    assert spans("pay 5555-5555-5555-4444 now") == [(CARD, "5555-5555-5555-4444")]
    assert spans("pay 4111111111111111 now") == [(CARD, "4111111111111111")]
    assert spans("pay 4111 1111 1111 1112 now") == [(PHONE, "4111 1111 1111 1112")]  # not a card: still a long number


def test_a_card_wins_over_the_phone_it_also_looks_like() -> None:
    assert [kind for kind, _ in spans("4111 1111 1111 1111")] == [CARD]
    assert KINDS.index(CARD) < KINDS.index(PHONE)


def test_an_address_wins_over_the_name_inside_it() -> None:
    assert spans("write to sipho.dlamini@example.org", ["Dlamini"]) == [(EMAIL_KIND, "sipho.dlamini@example.org")]


def test_known_names_match_whole_words_in_any_case_longest_first() -> None:
    assert spans("SIPHO DLAMINI and sipho", ["Sipho", "Sipho Dlamini"]) == [(NAME, "SIPHO DLAMINI"), (NAME, "sipho")]
    assert spans("Siphokazi called", ["Sipho"]) == []  # not inside a longer word


def test_what_the_detector_admits_it_misses() -> None:
    assert spans("sipho dot dlamini at example dot org") == []  # spelled out
    assert spans("c2lwaG9AZXhhbXBsZS5vcmc=") == []  # an address in base64
    assert spans("my neighbour Rasmus Lindqvist", ["Sipho"]) == []  # a name it was not given
    assert spans("14 Wattle Lane, Gqeberha") == []  # a street address
    assert spans("02079460444") == []  # a phone without separators


def test_what_it_takes_for_a_phone() -> None:
    assert spans("tracking 0001 2345 6789") == [(PHONE, "0001 2345 6789")]
    assert spans("booked 14/12/2026") == [(PHONE, "14/12/2026")]
    assert spans("order 2026-12-14") == []  # an ISO date is no phone (the Beginner rule)


def test_bad_input_is_named() -> None:
    with pytest.raises(TypeError, match="text must be a str"):
        find_personal_data(b"x")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not one str"):
        find_personal_data("x", "Sipho")
    with pytest.raises(ValueError, match="at least 2 characters"):
        find_personal_data("x", ["J"])


@given(st.text(max_size=80), st.lists(st.sampled_from(["Sipho", "Mbali Khumalo", "Joy"]), max_size=3))
def test_spans_never_overlap_and_always_index_their_value(text: str, names: list[str]) -> None:
    found = find_personal_data(text, names)
    for span in found.spans:
        assert found.text[span.start:span.end] == span.value and span.kind in KINDS
    for first, second in zip(found.spans, found.spans[1:], strict=False):
        assert first.end <= second.start
