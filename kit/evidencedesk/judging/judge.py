"""A model as judge: the prompts it is sent, the verdicts it must return as JSON, and one pairwise comparison.

A pairwise judge is asked which of two answers to a question is better. pair_request() builds the request:
our rules are trusted and go in the system message; the question and the two answers are untrusted text (a
model wrote the answers, a customer the question) and go in tagged blocks (context.build_messages), the
answers in slots "1" and "2". A rubric judge is asked about one answer at a time, against criteria listed
in the system message (criteria_request). Each reply is read with the one-repair reader of
calling/structured.py, so a verdict that is not the JSON asked for gets exactly one repair request and is
then refused (OutputRefused). MeteredClient writes every call into a usage Ledger, so a judge's cost is
counted in credits like any other call. Pairwise is the plain method: one call per pair, the verdict by slot
(FIRST, SECOND or TIE). Left out: scores on a scale (a verdict here is a choice, or a list of criteria
met), several samples per verdict, and explanations longer than a sentence.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from evidencedesk.calling.structured import ask_structured
from evidencedesk.context import ContextPart, build_messages
from evidencedesk.judging.pairs import Pair
from evidencedesk.llm import LLMClient, LLMRequest, LLMResponse
from evidencedesk.usage import Ledger, record_usage

JUDGE_MODEL = "large-model-1"  # judges are usually a provider's larger model: priced in kit/data/prices.json
MAX_TOKENS = 120  # tokens: a verdict is a short JSON object
FIRST, SECOND, TIE = "first", "second", "tie"  # a verdict by slot: the answer shown first, second, or neither
SLOTS = {"1": FIRST, "2": SECOND, "tie": TIE}  # what the JSON says -> the slot it names
PAIR_RULES = ("You compare two answers to a customer's question for a help desk. Decide which answer serves "
              "the customer better, judging what each answer says, not its length or its position. Give your "
              'reason first, then the verdict. Reply with JSON: {"reason": one sentence, "winner": "1", "2" or '
              '"tie"}.')
RUBRIC_RULES = ("You check one answer to a customer's question against each criterion below. A criterion is met "
                "only when the answer says it. Give your reason first, then the criteria met. Reply with JSON: "
                '{"reason": one sentence, "met": [the ids of the criteria met]}.')
CRITERIA_HEADER = "Criteria:"


class PairVerdict(BaseModel):
    """What a pairwise judge must return: a reason of at most 200 characters, then winner ("1", "2" or "tie").

    The reason comes first, in the schema and in the rules, because a model writes its reply in order: a
    reason written before the verdict can inform it, one written after can only defend it. The MT-Bench
    judge prompts ask for the same order, explanation first, then the verdict (lm-sys/FastChat,
    fastchat/llm_judge/data/judge_prompts.jsonl, read 2026-12-03).
    Example: PairVerdict.model_validate({"reason": "1 names the receipt", "winner": "1"})
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    reason: str = Field(max_length=200)
    winner: Literal["1", "2", "tie"]


class CriteriaVerdict(BaseModel):
    """What a rubric judge must return: a reason, then met (the ids of the criteria met, at most 20).

    The reason comes first for the reason PairVerdict gives.
    Example: CriteriaVerdict.model_validate({"reason": "says 30 days", "met": ["c1"]})
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    reason: str = Field(max_length=200)
    met: tuple[str, ...] = Field(max_length=20, strict=False)


def criterion_line(number: int, phrases: Sequence[str]) -> str:
    """One criterion as the rubric lists it: '- c1: the answer says "30 days"' (or "x" or "y", any of them).

    Args: number (int, from 1); phrases (one or more str, none holding a double quote or a line break).
    Raises ValueError for no phrase, or a phrase with a quote or line break.
    Example: criterion_line(2, ["receipt"]) -> '- c2: the answer says "receipt"'
    """
    if not phrases or any('"' in p or "\n" in p or not p.strip() for p in phrases):
        raise ValueError(f"a criterion needs one or more phrases without quotes or line breaks, got {phrases!r}")
    return f"- c{number}: the answer says " + " or ".join(f'"{p}"' for p in phrases)


def pair_request(question: str, first: str, second: str) -> LLMRequest:
    """The request of a pairwise judge: PAIR_RULES trusted; question and answers 1 and 2 as untrusted blocks.

    Example: pair_request("Can I return it?", "Yes, within 30 days.", "No.").messages[1].content
    """
    parts = [ContextPart("rules", PAIR_RULES, "trusted", "app"),
             ContextPart("question", question, "untrusted", "customer"),
             ContextPart("answer", first, "untrusted", "slot 1"),
             ContextPart("answer", second, "untrusted", "slot 2")]
    return LLMRequest(JUDGE_MODEL, build_messages(parts), MAX_TOKENS)


def criteria_request(question: str, answer: str, criteria: Sequence[Sequence[str]]) -> LLMRequest:
    """The request of a rubric judge: RUBRIC_RULES and the criteria (c1, c2, ...) trusted; question, answer not.

    Args: criteria (one tuple of phrases per criterion; a criterion is met when the answer says any of them).
    Raises ValueError for no criterion, or a bad phrase (see criterion_line).
    Example: criteria_request("Can I return it?", "Yes, within 30 days.", [("30 days",), ("receipt",)])
    """
    if not criteria:
        raise ValueError("a rubric needs at least one criterion")
    listed = "\n".join([CRITERIA_HEADER, *(criterion_line(n, c) for n, c in enumerate(criteria, start=1))])
    parts = [ContextPart("rules", f"{RUBRIC_RULES}\n{listed}", "trusted", "app"),
             ContextPart("question", question, "untrusted", "customer"),
             ContextPart("answer", answer, "untrusted", "slot 1")]
    return LLMRequest(JUDGE_MODEL, build_messages(parts), MAX_TOKENS)


class MeteredClient:
    """Wraps a client and writes each call's usage into a ledger, so a judge's spend is counted in credits.

    Args: inner (LLMClient); ledger (usage.Ledger; its price table must price the judge's model).
    Raises (complete): whatever inner.complete raises; UnknownModel for an unpriced model.
    Example: MeteredClient(judge, Ledger()).complete(pair_request("Q?", "x", "y"))
    """

    def __init__(self, inner: LLMClient, ledger: Ledger) -> None:
        self.inner, self.ledger = inner, ledger

    def complete(self, request: LLMRequest) -> LLMResponse:
        """Make the call, then record it in the ledger as judge-N."""
        response = self.inner.complete(request)
        self.ledger.add(record_usage(request, response, f"judge-{len(self.ledger.records) + 1}"))
        return response


@dataclass(frozen=True)
class Verdict:
    """A pairwise verdict: winner (FIRST, SECOND or TIE), reason (str), attempts (int, model calls: 1 or 2).

    Example: Verdict(FIRST, "1: 2 points; 2: 1 point", 1)
    """

    winner: str
    reason: str
    attempts: int


def ask_pair(client: LLMClient, question: str, first: str, second: str) -> Verdict:
    """Ask a pairwise judge which answer is better, reading its JSON with one repair at most.

    Returns a Verdict by slot. Raises calling.structured.OutputRefused when the reply is still not a
    PairVerdict after the repair (or was cut short); the client's LLMError as it is.
    Example: ask_pair(judge, "Can I return it?", "Yes, within 30 days.", "No.").winner -> "first"
    """
    read = ask_structured(client, pair_request(question, first, second), PairVerdict, native=True)
    verdict: PairVerdict = read.value  # type: ignore[assignment]
    return Verdict(SLOTS[verdict.winner], verdict.reason, read.attempts)


def ask_criteria(client: LLMClient, question: str, answer: str,
                 criteria: Sequence[Sequence[str]]) -> tuple[str, ...]:
    """Ask a rubric judge which criteria one answer meets: their ids ("c1", ...), in the rubric's order.

    An id the rubric does not hold is dropped (a model may write one). Raises OutputRefused as ask_pair does.
    Example: ask_criteria(judge, "Can I return it?", "Yes, within 30 days.", [("30 days",), ("receipt",)])
    """
    read = ask_structured(client, criteria_request(question, answer, criteria), CriteriaVerdict, native=True)
    met = set(read.value.met)  # type: ignore[attr-defined]
    return tuple(f"c{n}" for n in range(1, len(criteria) + 1) if f"c{n}" in met)


class Method(Protocol):
    """A way to decide a pair with a judge: called as method(pair, first, second), it returns FIRST, SECOND
    or TIE for the two answer texts in the order given. name (str) says which method it is; calls_per_pair
    (int) how many judge calls one verdict takes."""

    name: str
    calls_per_pair: int

    def __call__(self, pair: Pair, first: str, second: str) -> str: ...


class Pairwise:
    """The plain method: one pairwise call with the answers in the order given; the judge's verdict stands.

    Args: client (LLMClient, the judge). Example: Pairwise(judge)(pair, pair.a, pair.b) -> "first"
    """

    name = "pairwise"
    calls_per_pair = 1

    def __init__(self, client: LLMClient) -> None:
        self.client = client

    def __call__(self, pair: Pair, first: str, second: str) -> str:
        return ask_pair(self.client, pair.question, first, second).winner

