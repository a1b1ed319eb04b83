"""A scripted judge: a fake model with known, configurable biases, which says in its reason how it decided.

ScriptedJudge is an ordinary LLMClient that answers the requests of judge.py. It says what it is: a script,
not a model. Asked to compare two answers (a pairwise request), it scores each one: the number of the
question's points the answer makes (its knowledge, one tuple of phrases per question, given when it is
made), plus two bonuses set by its Bias: `first` points for the answer in slot 1, and `longer` points for
an answer with at least pairs.LONGER_BY times the other's words. The higher score wins; equal scores are a
tie. Asked about one answer against a rubric's criteria, it lists the criteria the answer meets; the
biases, written as bonuses in a comparison, have nothing to act on there. An answer makes a phrase when
the phrase's words appear in it in order, read leniently as a person skimming would: case and punctuation
ignored, numbers compared by value ("18.50" makes "18.5", "€18.50" too), and "not refund" makes
"refund". With chatty=True its first reply wraps the JSON in a sentence, so the reader's one repair is
needed. It reads only what it is sent, so the same request always gets the same reply. Left out:
randomness, self-preference, and any sense of tone or truth beyond the listed points: a real judge is
less predictable, and its biases must be measured (bias.py), not assumed.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from evidencedesk.calling.structured import repair_message
from evidencedesk.judging.judge import CRITERIA_HEADER, JUDGE_MODEL, PAIR_RULES, RUBRIC_RULES
from evidencedesk.judging.pairs import Pair, is_longer
from evidencedesk.llm import (
    CHARS_PER_TOKEN,
    LENGTH,
    STOP,
    LLMRequest,
    LLMResponse,
    Usage,
    estimate_tokens,
    request_tokens,
)
from evidencedesk.security import visible
from evidencedesk.tools import clip

BLOCK = re.compile(r'<(question|answer) source="([^"]*)">\n(.*?)\n</\1>', re.DOTALL)
CRITERION = re.compile(r"^- (c[0-9]+): the answer says (.+)$", re.MULTILINE)
TOKEN = re.compile(r"[\w.-]+")  # a word as the fake reads it: letters, digits, "_", "." and "-"
NUMBER = re.compile(r"[0-9]+\.[0-9]+")  # a decimal number, compared by value: trailing zeros dropped
REPAIR_OPENING = repair_message([]).content.splitlines()[0]  # how the reader's repair request begins
CHATTY_OPENING = "Here is my verdict: "


class UnknownRequest(LookupError):
    """The scripted judge was sent a request that is not a judge.py request, or a question it has no points for."""


@dataclass(frozen=True)
class Bias:
    """How much the scripted judge favours a slot or a length, in points (float, >= 0; one point is one fact).

    first: added to the answer in slot 1; longer: added to an answer with at least LONGER_BY times the
    other's words. Raises ValueError naming a field that is not a finite number >= 0.
    Example: Bias(first=0.5)  # decides what would otherwise be a tie, for the answer shown first
    """

    first: float = 0.0
    longer: float = 0.0

    def __post_init__(self) -> None:
        for name in ("first", "longer"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
                raise ValueError(f"{name} must be a finite number of points >= 0, got {value!r}")


FAIR = Bias()  # no bias: the points alone decide
BIASES = {  # the four judges of the course page: no bias, position, verbosity, both
    "fair": FAIR,
    "first": Bias(first=0.5),  # half a point: it breaks ties for slot 1, and no more
    "longer": Bias(longer=1.5),  # a point and a half: it outweighs one missing fact, not two
    "both": Bias(first=0.5, longer=1.5),
}


def words(text: str) -> tuple[str, ...]:
    """text as the fake reads it: visible form, casefolded, split into words, "." and "-" stripped from their
    ends, decimals without trailing zeros. Example: words("€18.50, Refund!") -> ("18.5", "refund")"""
    found = []
    for raw in TOKEN.findall(visible(text).casefold()):
        token = raw.strip(".-")
        if NUMBER.fullmatch(token):
            token = token.rstrip("0").rstrip(".")
        if token:
            found.append(token)
    return tuple(found)


def makes(answer: str, phrase: str) -> bool:
    """True when the phrase's words appear in the answer's words, in order and next to each other (see words).

    Raises ValueError for a phrase with no word in it.
    Example: makes("Yes, within 30 days.", "30 days") -> True; makes("not refund", "refund") -> True
    """
    want, have = words(phrase), words(answer)
    if not want:
        raise ValueError(f"a phrase needs at least one word, got {phrase!r}")
    return any(have[i:i + len(want)] == want for i in range(len(have) - len(want) + 1))


def knowledge(pairs: Sequence[Pair]) -> dict[str, tuple[str, ...]]:
    """What the scripted judge knows: each pair's question -> its points. Example: knowledge(load_pairs())"""
    return {pair.question: tuple(pair.points) for pair in pairs}


def _unescape(text: str) -> str:
    """Undo context.render_untrusted's escapes, "&amp;" last."""
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


class ScriptedJudge:
    """A fake judge that says what it is: it scores answers by the points it knows, plus its Bias.

    Args: known (dict question (str) -> points (tuple of phrases)); bias (Bias; default none); chatty (bool:
    the first reply wraps its JSON in a sentence); model (str, the name it reports). requests keeps every
    request received. A reply longer than the request's max_tokens allows is cut there (stop_reason LENGTH).
    Raises UnknownRequest (from complete) for a request that is not a judge request, or a pairwise question
    it has no points for.
    Example: ScriptedJudge(knowledge(load_pairs()), BIASES["first"]).complete(pair_request(q, a, b)).text
    """

    def __init__(self, known: Mapping[str, Sequence[str]], bias: Bias = FAIR, chatty: bool = False,
                 model: str = JUDGE_MODEL) -> None:
        self.known = {question: tuple(points) for question, points in known.items()}
        self.bias, self.chatty, self.model = bias, chatty, model
        self.requests: list[LLMRequest] = []

    def complete(self, request: LLMRequest) -> LLMResponse:
        """The verdict for a judge.py request, as JSON (after a sentence, if chatty and not a repair)."""
        self.requests.append(request)
        system = "\n\n".join(m.content for m in request.messages if m.role == "system")
        user = next((m.content for m in request.messages if m.role == "user"), "")
        blocks = {(kind, source): _unescape(text) for kind, source, text in BLOCK.findall(user)}
        if RUBRIC_RULES in system and CRITERIA_HEADER in system:
            reply = self._criteria(system, blocks)
        elif PAIR_RULES in system:
            reply = self._pair(blocks)
        else:
            raise UnknownRequest("not a judge request: its system message holds neither set of judge rules")
        last = request.messages[-1]
        if self.chatty and not (last.role == "user" and last.content.startswith(REPAIR_OPENING)):
            reply = CHATTY_OPENING + reply
        text = reply[:request.max_tokens * CHARS_PER_TOKEN]  # like a model, it stops at the output allowance
        stopped = LENGTH if len(text) < len(reply) else STOP
        return LLMResponse(text, self.model, Usage(request_tokens(request), estimate_tokens(text)), stopped)

    def score(self, points: Sequence[str], answer: str, other: str, slot: int) -> tuple[float, str]:
        """An answer's score in a comparison, and how it was made: "2 points +0.5 first +1.5 longer".

        Args: points (the phrases the judge knows for the question); answer, other (str: this answer and
        the one it is compared with); slot (1 or 2). Example: judge.score(("30 days",), "30 days.", "No.", 1)
        """
        made = sum(makes(answer, point) for point in points)
        total, how = float(made), f"{made} point{'s' * (made != 1)}"
        if slot == 1 and self.bias.first:
            total, how = total + self.bias.first, f"{how} +{self.bias.first:g} first"
        if self.bias.longer and is_longer(answer, other):
            total, how = total + self.bias.longer, f"{how} +{self.bias.longer:g} longer"
        return total, how

    def _pair(self, blocks: dict[tuple[str, str], str]) -> str:
        question = blocks.get(("question", "customer"), "")
        if question not in self.known:
            raise UnknownRequest(f"the scripted judge knows no points for {clip(question, 60)!r}")
        first, second = blocks.get(("answer", "slot 1"), ""), blocks.get(("answer", "slot 2"), "")
        one, how_one = self.score(self.known[question], first, second, 1)
        two, how_two = self.score(self.known[question], second, first, 2)
        winner = "1" if one > two else "2" if two > one else "tie"
        return json.dumps({"reason": f"1: {how_one}; 2: {how_two}", "winner": winner})  # reason first

    def _criteria(self, system: str, blocks: dict[tuple[str, str], str]) -> str:
        answer = blocks.get(("answer", "slot 1"), "")
        criteria = [(cid, re.findall(r'"([^"]+)"', rest)) for cid, rest in CRITERION.findall(system)]
        met = [cid for cid, phrases in criteria if any(makes(answer, phrase) for phrase in phrases)]
        return json.dumps({"reason": f"meets {len(met)} of {len(criteria)} criteria", "met": met})
