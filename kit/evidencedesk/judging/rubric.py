"""Two ways to use the same judge that leave its biases less room: both orders, and a rubric.

BothOrders asks the pairwise judge twice, with the answers in one order and then the other, and keeps a
winner only when the same answer wins both times; a verdict that follows the slot becomes a tie. It costs
two calls per pair and removes what depends on the order alone; a preference that holds in both orders (a
longer answer, say) survives it. The authors of Zheng et al. (2023, arXiv 2306.05685) do the same in their
code (lm-sys/FastChat, fastchat/llm_judge/common.py), which records a winner for each order and marks a
pair "inconsistent" when the two differ. Rubric asks about each answer alone, against explicit criteria
(the pair's points, one criterion each), and compares the counts of criteria met: more wins, equal is a
tie. No answer is ever shown beside another, so there is no slot, and padding meets no criterion. It sees
only what its criteria list: a rude answer or an invented extra claim meets them as well as a good one.
Left out: weighting criteria, partial credit, and a rubric written by the judge itself.
"""

from __future__ import annotations

from evidencedesk.judging.judge import FIRST, SECOND, TIE, Pairwise, ask_criteria, ask_pair
from evidencedesk.judging.pairs import Pair
from evidencedesk.llm import LLMClient


class BothOrders:
    """The pair judged in both orders; the same answer must win both times, else TIE. Two calls per pair.

    Args: client (LLMClient, the judge). Example: BothOrders(judge)(pair, pair.a, pair.b) -> "tie"
    """

    name = "both orders"
    calls_per_pair = 2

    def __init__(self, client: LLMClient) -> None:
        self.client = client

    def __call__(self, pair: Pair, first: str, second: str) -> str:
        shown = ask_pair(self.client, pair.question, first, second).winner
        swapped = ask_pair(self.client, pair.question, second, first).winner
        back = {FIRST: SECOND, SECOND: FIRST, TIE: TIE}[swapped]  # the swapped verdict, in the first order's slots
        return shown if shown == back else TIE


class Rubric:
    """Each answer judged alone against the pair's points as criteria; more criteria met wins. Two calls.

    Args: client (LLMClient, the judge). Example: Rubric(judge)(pair, pair.a, pair.b) -> "first"
    """

    name = "rubric"
    calls_per_pair = 2

    def __init__(self, client: LLMClient) -> None:
        self.client = client

    def met(self, pair: Pair, answer: str) -> tuple[str, ...]:
        """The ids of the criteria (one per point of the pair) that answer meets, by the judge's reading.

        Example: Rubric(judge).met(pair, pair.b) -> ("c1",)
        """
        return ask_criteria(self.client, pair.question, answer, [(point,) for point in pair.points])

    def __call__(self, pair: Pair, first: str, second: str) -> str:
        one, two = len(self.met(pair, first)), len(self.met(pair, second))
        return FIRST if one > two else SECOND if two > one else TIE


METHODS = (Pairwise, BothOrders, Rubric)  # the three methods of the course page, in the order it compares them
