"""Tests of evidencedesk.judging.bias: the swap test finds position bias, the padding test finds verbosity bias,
each only its own, and a judge without the bias shows none."""

from __future__ import annotations

import pytest

from evidencedesk.evals.stats import wilson
from evidencedesk.judging.bias import POSITION, VERBOSITY, BiasTest, position_test, verbosity_test, verdict
from evidencedesk.judging.fakes import BIASES, Bias, ScriptedJudge, knowledge, makes
from evidencedesk.judging.judge import FIRST, SECOND, TIE, Pairwise
from evidencedesk.judging.pairs import A, B, Pair, is_longer, load_pairs

PAIRS = load_pairs()


def judged(bias: Bias) -> Pairwise:
    return Pairwise(ScriptedJudge(knowledge(PAIRS), bias))


def points(pair: Pair, text: str) -> int:
    return sum(makes(text, p) for p in pair.points)


class Always:
    """A method that always names one slot, whatever it is shown: the most position-biased judge there is."""

    name = "always"
    calls_per_pair = 0

    def __init__(self, slot: str) -> None:
        self.slot = slot

    def __call__(self, pair: Pair, first: str, second: str) -> str:
        return self.slot


def test_verdict_names_the_answer_whatever_the_order() -> None:
    pair = PAIRS[0]
    assert (verdict(Always(FIRST), pair, A), verdict(Always(FIRST), pair, B)) == (A, B)
    assert (verdict(Always(SECOND), pair, A), verdict(Always(SECOND), pair, B)) == (B, A)
    assert verdict(Always(TIE), pair, B) == TIE
    with pytest.raises(ValueError, match="label must be 'a' or 'b'"):
        verdict(Always(FIRST), pair, TIE)


def test_a_judge_that_always_names_one_slot_flips_on_every_pair() -> None:
    for slot in (FIRST, SECOND):
        assert position_test(Always(slot), PAIRS).changed == tuple(p.id for p in PAIRS)
    assert position_test(Always(TIE), PAIRS).changed == ()


def test_without_a_bias_neither_test_finds_anything() -> None:
    assert position_test(judged(BIASES["fair"]), PAIRS).changed == ()
    assert verbosity_test(judged(BIASES["fair"]), PAIRS).changed == ()


def test_the_swap_test_finds_the_first_slot_bias_exactly_where_points_are_equal() -> None:
    found = position_test(judged(BIASES["first"]), PAIRS)
    equal = tuple(p.id for p in PAIRS if points(p, p.a) == points(p, p.b))
    assert found.changed == equal == ("p07", "p09", "p10", "p11", "p19", "p23")
    assert (found.test, found.method, found.total, found.toward) == (POSITION, "pairwise", 24, ())
    assert verbosity_test(judged(BIASES["first"]), PAIRS).changed == ()  # padding does not move a slot bias


def test_the_padding_test_finds_the_length_bias_and_the_swap_test_does_not() -> None:
    found = verbosity_test(judged(BIASES["longer"]), PAIRS)
    assert position_test(judged(BIASES["longer"]), PAIRS).changed == ()  # length counts in either order
    assert found.total == 21  # the three pairs labelled tie have no worse answer
    # a padded answer gains 1.5 points: it overtakes a better answer one point ahead, never two, unless it
    # was the longer one already (then it had the bonus, and the verdict, before it was padded)
    def worse(p: Pair) -> str:
        return p.answer(B if p.human == A else A)

    close = tuple(p.id for p in PAIRS if p.human != TIE and not is_longer(worse(p), p.answer(p.human))
                  and points(p, p.answer(p.human)) - points(p, worse(p)) <= 1)
    assert found.changed == found.toward == close
    assert len(found.changed) == 12


def test_biases_together_interact() -> None:
    both = judged(BIASES["both"])
    flips = position_test(both, PAIRS)
    assert flips.changed == ("p02", "p07", "p09", "p10", "p15", "p18", "p19", "p23")
    # p02, p15, p18: the worse answer is the longer one, so its bonus turns a 1-point gap into a near-tie
    assert all(is_longer(p.answer(B if p.human == A else A), p.answer(p.human))
               for p in PAIRS if p.id in ("p02", "p15", "p18"))
    padded = verbosity_test(both, PAIRS)
    assert (len(padded.changed), padded.toward) == (12, ("p04", "p06", "p14", "p19", "p22"))


def test_a_rate_comes_with_its_wilson_interval() -> None:
    found = position_test(judged(BIASES["first"]), PAIRS)
    assert found.rate == wilson(6, 24)
    assert str(found.rate) == "6/24 = 25.0% [12.0%, 44.9%]"
    assert str(BiasTest(VERBOSITY, "fair", (), 21).rate) == "0/21 = 0.0% [0.0%, 15.5%]"


def test_no_pairs_or_no_winner_cannot_be_tested() -> None:
    with pytest.raises(ValueError, match="needs at least one pair"):
        position_test(judged(BIASES["fair"]), [])
    ties = [p for p in PAIRS if p.human == TIE]
    with pytest.raises(ValueError, match="needs at least one pair with a human winner"):
        verbosity_test(judged(BIASES["fair"]), ties)
