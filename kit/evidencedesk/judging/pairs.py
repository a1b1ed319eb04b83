"""Pairs of answers to judge, each with a human label, and the padding that tests a judge for verbosity.

kit/data/judging/pairs.jsonl holds one pair per line, invented for the course: a customer's question, two
answers (a and b), the points a good answer makes (short phrases from the shop's policies, which the
scripted judge of fakes.py knows and a rubric lists), the label a person gave ("a", "b" or "tie": which
answer serves the customer better) and a note saying why. load_pairs() validates every row. pad() makes an
answer longer without adding anything to it: it appends FLUFF sentences, which make none of the points,
until the answer has at least LONGER_BY times the words of the other answer. Left out: several labellers
per pair (one label stands for the team's), graded labels ("much better"), and answers longer than a few
sentences.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from evidencedesk import DATA_DIR
from evidencedesk.strictjson import read_jsonl

JUDGING_DATA = DATA_DIR / "judging"
A, B, TIE = "a", "b", "tie"  # the labels of a pair: answer a is better, answer b is better, neither
LABELS = (A, B, TIE)
LONGER_BY = 1.5  # an answer counts as longer when it has at least 1.5 times the other's words
FLUFF = (  # sentences that sound helpful and say nothing: no point of any pair, no number
    "Thank you for getting in touch with us today.",
    "We really appreciate your patience.",
    "Our team is always happy to help with any question you may have.",
    "Please do not hesitate to contact us again if anything else comes up.",
    "We hope this answer has been useful to you.",
)
Phrase = Annotated[str, Field(min_length=1, max_length=60, pattern=r'^[^"\n]+$')]  # no quote: a rubric quotes it


class PairError(ValueError):
    """A row of the pairs file is malformed; the message names the file, the line and the field."""


class Pair(BaseModel):
    """One pair to judge: id, question, answers a and b (str), points (1 to 5 phrases), human (A, B or TIE), note.

    Raises pydantic.ValidationError naming the field: an id not like "p01", empty or overlong text, a
    point with a double quote, an unknown label, or two identical answers.
    Example: Pair(id="p01", question="Q?", a="Yes, 30 days.", b="Yes.", points=["30 days"], human="a", note="")
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    id: str = Field(pattern=r"^p[0-9]{2}$")
    question: str = Field(min_length=1, max_length=300)
    a: str = Field(min_length=1, max_length=600)
    b: str = Field(min_length=1, max_length=600)
    points: tuple[Phrase, ...] = Field(min_length=1, max_length=5, strict=False)
    human: Literal["a", "b", "tie"]
    note: str = Field(max_length=120)

    @model_validator(mode="after")
    def _two_answers(self) -> Pair:
        if self.a == self.b:
            raise ValueError("a and b are the same text: there is nothing to compare")
        return self

    def answer(self, label: str) -> str:
        """The text of answer label (A or B). Raises ValueError for any other label. Example: pair.answer("b")"""
        if label not in (A, B):
            raise ValueError(f"label must be {A!r} or {B!r}, got {label!r}")
        return self.a if label == A else self.b


def other(label: str) -> str:
    """The other answer's label. Raises ValueError for TIE or an unknown label. Example: other("a") -> "b" """
    if label not in (A, B):
        raise ValueError(f"label must be {A!r} or {B!r}, got {label!r}")
    return B if label == A else A


def load_pairs(path: str | Path | None = None) -> list[Pair]:
    """Read and validate the pairs file (default kit/data/judging/pairs.jsonl): the pairs, in file order.

    Raises PairError naming the file when it cannot be read, and the line and field of the first bad row
    (a repeated id too).
    Example: load_pairs()[0].id -> "p01"
    """
    path = Path(path) if path is not None else JUDGING_DATA / "pairs.jsonl"
    return [pair for _, _, pair in read_jsonl(path, Pair.model_validate, PairError, "pairs file")]


def word_count(text: str) -> int:
    """Words in text (int): runs of characters between whitespace. Example: word_count("Yes, 30 days.") -> 3"""
    return len(text.split())


def is_longer(text: str, than: str) -> bool:
    """True when text has at least LONGER_BY times the words of than, and more words than it.

    Example: is_longer("one two three", "one two") -> True (3 >= 1.5 * 2)
    """
    words, others = word_count(text), word_count(than)
    return words > others and words >= LONGER_BY * others


def pad(answer: str, than: str) -> str:
    """answer with FLUFF sentences appended, in order, until it is longer than than (see is_longer).

    At least one sentence is added, and at most all of FLUFF, repeated as often as needed. The content is
    unchanged: no fluff sentence makes a point of any pair (the tests check it).
    Example: pad("Yes.", "Yes, within 30 days, with the receipt.")
    """
    target = max(math.ceil(LONGER_BY * word_count(than)), word_count(than) + 1)
    padded, index = answer, 0
    while index == 0 or word_count(padded) < target:
        padded = f"{padded} {FLUFF[index % len(FLUFF)]}"
        index += 1
    return padded
