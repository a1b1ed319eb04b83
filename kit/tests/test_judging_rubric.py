"""Tests of evidencedesk.judging.rubric: both orders turn a slot-following verdict into a tie, a rubric judges
each answer alone, and what each costs and leaves."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from evidencedesk.judging.agreement import cohen_kappa
from evidencedesk.judging.bias import position_test, verbosity_test, verdict
from evidencedesk.judging.fakes import BIASES, Bias, ScriptedJudge, knowledge
from evidencedesk.judging.judge import FIRST, SECOND, TIE, MeteredClient, Pairwise
from evidencedesk.judging.pairs import LABELS, Pair, load_pairs, other, pad
from evidencedesk.judging.rubric import METHODS, BothOrders, Rubric
from evidencedesk.llm import ScriptedClient
from evidencedesk.usage import Ledger

PAIRS = load_pairs()
BY_ID = {p.id: p for p in PAIRS}


def said(winner: str) -> str:
    return json.dumps({"winner": winner, "reason": "r"})


@pytest.mark.parametrize("shown, swapped, kept", [
    ("1", "2", FIRST),  # the same answer wins in both orders
    ("2", "1", SECOND),
    ("1", "1", TIE),  # each order picks its slot 1: a flip
    ("2", "2", TIE),
    ("tie", "tie", TIE),
    ("1", "tie", TIE),
])
def test_both_orders_keeps_a_winner_only_when_it_wins_twice(shown: str, swapped: str, kept: str) -> None:
    client = ScriptedClient([said(shown), said(swapped)])
    pair = PAIRS[0]
    assert BothOrders(client)(pair, pair.a, pair.b) == kept
    first, second = (r.messages[-1].content for r in client.requests)
    assert first.index(pair.a) < first.index(pair.b) and second.index(pair.b) < second.index(pair.a)


def test_a_rubric_asks_about_each_answer_alone_with_the_points_as_criteria() -> None:
    judge = ScriptedJudge({})
    pair = BY_ID["p01"]
    assert Rubric(judge)(pair, pair.a, pair.b) == FIRST and len(judge.requests) == 2
    for request, answer in zip(judge.requests, (pair.a, pair.b), strict=True):
        user = request.messages[-1].content
        assert answer in user and user.count("<answer ") == 1
        assert '- c1: the answer says "30 days"\n- c2: the answer says "receipt"' in request.messages[1].content
    assert Rubric(judge).met(pair, pad(pair.b, pair.a)) == ("c1",)  # padding meets nothing new


def test_each_method_says_its_name_and_cost_in_calls() -> None:
    assert [(m.name, m.calls_per_pair) for m in METHODS] == [("pairwise", 1), ("both orders", 2), ("rubric", 2)]
    for method in METHODS:
        judge = ScriptedJudge(knowledge(PAIRS), BIASES["both"])
        for pair in PAIRS:
            method(judge)(pair, pair.a, pair.b)
        assert len(judge.requests) == method.calls_per_pair * len(PAIRS)


def run(method: type, bias: Bias) -> dict:
    ledger = Ledger()
    judged = method(MeteredClient(ScriptedJudge(knowledge(PAIRS), bias), ledger))
    labels = [verdict(judged, p) for p in PAIRS]
    cost = ledger.summary().cost
    return {"flips": len(position_test(judged, PAIRS).changed), "padded": verbosity_test(judged, PAIRS),
            "agreement": cohen_kappa([p.human for p in PAIRS], labels, LABELS), "cost": cost}


def test_the_page_table_for_the_judge_with_both_biases() -> None:
    plain, twice, rubric = (run(method, BIASES["both"]) for method in METHODS)
    assert [r["flips"] for r in (plain, twice, rubric)] == [8, 0, 0]
    assert [len(r["padded"].changed) for r in (plain, twice, rubric)] == [12, 18, 0]
    assert [len(r["padded"].toward) for r in (plain, twice, rubric)] == [5, 3, 0]
    assert [r["agreement"].agreed for r in (plain, twice, rubric)] == [16, 17, 21]
    assert [round(float(r["agreement"].kappa), 3) for r in (plain, twice, rubric)] == [0.413, 0.561, 0.804]
    # two calls a pair cost about twice one; a rubric's calls are shorter than a pairwise call
    assert plain["cost"] < rubric["cost"] < twice["cost"] < 2 * plain["cost"] + Decimal("0.001")


def padded_verdict(method: BothOrders, pair: Pair) -> str:
    worse = other(pair.human)
    return verdict(method, pair, texts={worse: pad(pair.answer(worse), pair.answer(pair.human))})


def test_both_orders_turns_padding_into_ties_rather_than_wins() -> None:
    judged = BothOrders(ScriptedJudge(knowledge(PAIRS), BIASES["both"]))
    found = verbosity_test(judged, PAIRS)
    ties = [p for p in found.changed if padded_verdict(judged, BY_ID[p]) == TIE]
    assert len(ties) == len(found.changed) - len(found.toward) == 15


def test_a_rubric_removes_both_biases_from_this_fake_and_sees_only_its_criteria() -> None:
    for bias in BIASES.values():
        result = run(Rubric, bias)
        assert (result["flips"], result["padded"].changed) == (0, ())
        assert result["agreement"].agreed == 21
    judged = Rubric(ScriptedJudge({}))
    missed = [p.id for p in PAIRS if verdict(judged, p) != p.human]
    assert missed == ["p09", "p10", "p19"]  # rudeness, an invented claim, a note to staff: no criterion says so
    assert [BY_ID[p].note for p in missed] == ["a is rude; the facts are the same",
                                                "a invents a longer limit for the sale",
                                                "b reads like a note to staff"]


def test_pairwise_with_no_bias_agrees_as_the_rubric_does() -> None:
    fair = run(Pairwise, BIASES["fair"])
    assert (fair["agreement"].agreed, round(float(fair["agreement"].kappa), 3)) == (21, 0.804)
