"""Two tests that expose a judge's biases by changing what should not matter and counting changed verdicts.

The position test judges every pair twice, a then b and b then a, and counts the pairs whose verdict
(which answer won, or a tie) differs between the two orders: a judge that reads only content never
flips. The verbosity test takes every pair with a human winner, pads the worse answer with fluff that
adds nothing (pairs.pad) and judges it again in the same order, counting the verdicts that change, and
among them those that now prefer the padded answer. Each count comes as a rate with its Wilson interval
(evals/stats.py, from Eval Sets and Deterministic Graders): the pairs are a sample, and no flip in 24
pairs still allows a real flip rate up to about 14%. verdict() turns a method's slot into a label
(A, B or TIE) whatever the order. Both tests run any Method of judge.py, so the same code measures a plain
judge, both orders or a rubric. Left out: other biases (self-preference, a judge favouring its own
model's style), tests on several paddings, and judging the same order twice (a deterministic fake gives
the same verdict; a sampled model may not, so run that too on a real one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evidencedesk.evals.stats import Rate, wilson
from evidencedesk.judging.judge import FIRST, TIE, Method
from evidencedesk.judging.pairs import A, B, Pair, other, pad

POSITION, VERBOSITY = "position", "verbosity"


def verdict(method: Method, pair: Pair, first: str = A, texts: dict[str, str] | None = None) -> str:
    """Which answer the method prefers, as a label: A, B or TIE, whatever the order it was shown in.

    Args: method (a judge.py Method); pair (Pair); first (A or B: the answer shown in slot 1); texts (label ->
    text, to judge changed answers, e.g. a padded one; default the pair's own). Raises ValueError for a first
    that is not A or B. Example: verdict(Pairwise(judge), pair, first=B) -> "a"
    """
    second = other(first)
    shown = {A: pair.a, B: pair.b, **(texts or {})}
    slot = method(pair, shown[first], shown[second])
    return TIE if slot == TIE else first if slot == FIRST else second


@dataclass(frozen=True)
class BiasTest:
    """What one bias test found: test (POSITION or VERBOSITY), method (its name), the ids of the pairs whose
    verdict changed, total (int, pairs tested), and toward (ids whose new verdict prefers the padded answer;
    empty for the position test).

    Example: position_test(Pairwise(judge), pairs).rate.passed
    """

    test: str
    method: str
    changed: tuple[str, ...]
    total: int
    toward: tuple[str, ...] = ()

    @property
    def rate(self) -> Rate:
        """The share of pairs whose verdict changed, with its Wilson interval (evals.stats.Rate).

        Example: str(BiasTest(POSITION, "pairwise", ("p07",), 24).rate) -> "1/24 = 4.2% [0.7%, 20.2%]"
        """
        return wilson(len(self.changed), self.total)


def position_test(method: Method, pairs: Sequence[Pair]) -> BiasTest:
    """Judge each pair a-then-b and b-then-a; a pair flips when the two verdicts differ. Two verdicts a pair.

    Raises ValueError for no pairs. Example: position_test(Pairwise(judge), pairs)
    """
    if not pairs:
        raise ValueError("the position test needs at least one pair")
    flipped = tuple(p.id for p in pairs if verdict(method, p, A) != verdict(method, p, B))
    return BiasTest(POSITION, method.name, flipped, len(pairs))


def verbosity_test(method: Method, pairs: Sequence[Pair]) -> BiasTest:
    """For each pair with a human winner, pad the worse answer (pairs.pad) and judge again, a then b.

    A verdict changes when it differs from the verdict on the unpadded pair; toward lists the changes that
    now prefer the padded answer. Pairs labelled TIE are left out (there is no worse answer). Raises
    ValueError when no pair has a winner. Example: verbosity_test(Pairwise(judge), pairs).toward
    """
    tested = [p for p in pairs if p.human != TIE]
    if not tested:
        raise ValueError("the verbosity test needs at least one pair with a human winner")
    changed, toward = [], []
    for p in tested:
        worse = other(p.human)
        padded = pad(p.answer(worse), than=p.answer(p.human))
        before, after = verdict(method, p), verdict(method, p, texts={worse: padded})
        if after != before:
            changed.append(p.id)
            if after == worse:
                toward.append(p.id)
    return BiasTest(VERBOSITY, method.name, tuple(changed), len(tested), tuple(toward))

