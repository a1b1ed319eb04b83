"""Tests of evidencedesk.judging.fakes: the scripted judge's reading, its scores and biases, and its replies."""

from __future__ import annotations

import json

import pytest

from evidencedesk.calling.structured import repair_message
from evidencedesk.judging.fakes import (
    BIASES,
    CHATTY_OPENING,
    Bias,
    ScriptedJudge,
    UnknownRequest,
    knowledge,
    makes,
    words,
)
from evidencedesk.judging.judge import JUDGE_MODEL, criteria_request, pair_request
from evidencedesk.judging.pairs import load_pairs
from evidencedesk.llm import LENGTH, STOP, LLMRequest, Message, estimate_tokens, request_tokens

QUESTION = "Can I return a kettle I bought three weeks ago?"
POINTS = ("30 days", "receipt")
SHORT_ONE = "Yes, within 30 days."  # 1 point, 4 words
SHORT_TWO = "Yes, within 30 days, with the receipt."  # 2 points, 7 words
LONG_ONE = "Yes, you can return it within 30 days, as long as it is in good condition and still complete."  # 1, 19


def verdict(judge: ScriptedJudge, first: str, second: str) -> dict:
    return json.loads(judge.complete(pair_request(QUESTION, first, second)).text)


@pytest.mark.parametrize("text, read", [
    ("€18.50, Refund!", ("18.5", "refund")),
    ("103.00 and 103", ("103", "and", "103")),
    ("Within 30 days [kc-returns-v3].", ("within", "30", "days", "kc-returns-v3")),
    ('{"urgent": true, "ticket_id": "T-701"}', ("urgent", "true", "ticket_id", "t-701")),
    ("ＲＥＦＵＮＤ", ("refund",)),  # fullwidth: the visible form
    ("... - .", ()),
])
def test_words_are_read_leniently_and_numbers_by_value(text: str, read: tuple[str, ...]) -> None:
    assert words(text) == read


@pytest.mark.parametrize("answer, phrase, made", [
    ("Yes, within 30 days.", "30 days", True),
    ("Yes, within 30 working days.", "30 days", False),  # next to each other
    ("days: 30", "30 days", False),  # in order
    ("not refund", "refund", True),  # a lenient reader finds the word
    ("€18.50", "18.50", True),
    ("103", "103.00", True),
    ("25.00", "24.99", False),
    ("The receipts are here.", "receipt", False),  # a word is whole
])
def test_makes_finds_a_phrases_words_in_order(answer: str, phrase: str, made: bool) -> None:
    assert makes(answer, phrase) is made


def test_a_phrase_needs_a_word() -> None:
    with pytest.raises(ValueError, match="a phrase needs at least one word"):
        makes("anything", " .. ")


@pytest.mark.parametrize("field, value", [("first", -0.5), ("longer", float("nan")), ("first", True),
                                          ("longer", "1")])
def test_a_bias_is_a_finite_number_of_points(field: str, value: object) -> None:
    with pytest.raises(ValueError, match=f"{field} must be a finite number of points >= 0"):
        Bias(**{field: value})  # type: ignore[arg-type]


def test_the_four_judges_of_the_page() -> None:
    assert BIASES == {"fair": Bias(0, 0), "first": Bias(0.5, 0), "longer": Bias(0, 1.5), "both": Bias(0.5, 1.5)}


def test_a_fair_judge_counts_points_and_ties_when_they_are_equal() -> None:
    judge = ScriptedJudge({QUESTION: POINTS})
    assert verdict(judge, SHORT_TWO, SHORT_ONE) == {"winner": "1", "reason": "1: 2 points; 2: 1 point"}
    assert verdict(judge, SHORT_ONE, SHORT_TWO)["winner"] == "2"
    assert verdict(judge, SHORT_ONE, LONG_ONE) == {"winner": "tie", "reason": "1: 1 point; 2: 1 point"}


def test_the_first_slot_bonus_breaks_ties_and_nothing_more() -> None:
    judge = ScriptedJudge({QUESTION: POINTS}, BIASES["first"])
    assert verdict(judge, SHORT_ONE, LONG_ONE) == {"winner": "1", "reason": "1: 1 point +0.5 first; 2: 1 point"}
    assert verdict(judge, LONG_ONE, SHORT_ONE)["winner"] == "1"  # a flip: each order picks its slot 1
    assert verdict(judge, SHORT_ONE, SHORT_TWO)["winner"] == "2"  # one point outweighs half a point


def test_the_length_bonus_outweighs_one_point_and_not_two() -> None:
    judge = ScriptedJudge({QUESTION: POINTS}, BIASES["longer"])
    # LONG_ONE has 19 words, SHORT_TWO 7: at least 1.5 times as many
    assert verdict(judge, LONG_ONE, SHORT_TWO) == {"winner": "1", "reason": "1: 1 point +1.5 longer; 2: 2 points"}
    assert verdict(judge, SHORT_TWO, LONG_ONE)["winner"] == "2"  # in either order: not a position effect
    no_point = "Yes, you can return it, as long as it is in good condition and still complete, of course."
    assert verdict(judge, no_point, SHORT_TWO)["winner"] == "2"


def test_both_biases_add_up() -> None:
    judge = ScriptedJudge({QUESTION: POINTS}, BIASES["both"])
    assert verdict(judge, LONG_ONE, SHORT_TWO)["reason"] == "1: 1 point +0.5 first +1.5 longer; 2: 2 points"
    assert verdict(judge, SHORT_TWO, LONG_ONE) == {"winner": "tie",
                                                   "reason": "1: 2 points +0.5 first; 2: 1 point +1.5 longer"}


def test_the_rubric_reply_lists_the_criteria_met_and_has_no_bias_to_apply() -> None:
    for bias in BIASES.values():
        judge = ScriptedJudge({}, bias)
        request = criteria_request(QUESTION, LONG_ONE, [("30 days",), ("receipt", "proof of purchase")])
        assert json.loads(judge.complete(request).text) == {"met": ["c1"], "reason": "meets 1 of 2 criteria"}


def test_a_chatty_judge_wraps_its_first_reply_and_answers_a_repair_cleanly() -> None:
    judge = ScriptedJudge({QUESTION: POINTS}, chatty=True)
    request = pair_request(QUESTION, SHORT_TWO, SHORT_ONE)
    first = judge.complete(request).text
    assert first.startswith(CHATTY_OPENING) and first.endswith("}")
    repair = LLMRequest(request.model, (*request.messages, repair_message(["reply: not valid JSON"])),
                        request.max_tokens)
    assert json.loads(judge.complete(repair).text)["winner"] == "1"


def test_the_judge_refuses_what_it_cannot_judge() -> None:
    judge = ScriptedJudge({QUESTION: POINTS})
    with pytest.raises(UnknownRequest, match="knows no points for 'Do you sell gift cards\\?'"):
        judge.complete(pair_request("Do you sell gift cards?", "Yes.", "No."))
    with pytest.raises(UnknownRequest, match="not a judge request"):
        judge.complete(LLMRequest(JUDGE_MODEL, [Message("user", "Which is better?")], 50))
    assert len(judge.requests) == 2  # refused requests are kept too


def test_replies_are_cut_at_the_allowance_and_usage_is_estimated() -> None:
    judge = ScriptedJudge({QUESTION: POINTS})
    request = pair_request(QUESTION, SHORT_TWO, SHORT_ONE)
    response = judge.complete(request)
    assert (response.stop_reason, response.model) == (STOP, JUDGE_MODEL)
    assert (response.usage.input_tokens, response.usage.output_tokens) == (request_tokens(request),
                                                                           estimate_tokens(response.text))
    cut = judge.complete(LLMRequest(request.model, request.messages, max_tokens=3))
    assert (cut.stop_reason, len(cut.text)) == (LENGTH, 12)


def test_the_same_request_gets_the_same_reply_and_knowledge_comes_from_the_pairs() -> None:
    pairs = load_pairs()
    judge = ScriptedJudge(knowledge(pairs), BIASES["both"])
    request = pair_request(pairs[0].question, pairs[0].a, pairs[0].b)
    assert judge.complete(request) == judge.complete(request)
    assert knowledge(pairs)[pairs[0].question] == ("30 days", "receipt") and len(knowledge(pairs)) == 24
