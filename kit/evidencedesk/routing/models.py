"""The models a cascade routes between, and the verifier that decides: all three are scripted fakes.

The cheap model (small-model-1) and the expensive one (large-model-1) are evals.runner.RecordedModel
fakes: each answers a question with the reply written for it in kit/data/routing/replies.jsonl, and never
reads the prompt. On page 8's thirty golden cases the cheap model's replies are page 8's "v2" replies
(the same model and prompt); the expensive model's are written for this page. The verifier is a fake
too: ScriptedVerifier returns the confidence written in the same table for the cheap model's reply to
that question, as the text of a short model call that is priced like any other. A real verifier is a
judge model, a score from the answer's token log-probabilities, the agreement of several samples, or a
trained router, and its confidence is not calibrated until you measure it (calibration.py).
The eval set is page 8's thirty cases plus 270 more, kit/data/routing/cases.jsonl, written from the same
five question forms and graded by the same graders; everything in it is invented, and extension.py
writes it and the reply table. Metered bills each
call of the client it wraps into a usage.Ledger. Left out: real models, sampling, and any reading of the
prompt by the fakes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from evidencedesk import DATA_DIR
from evidencedesk.evals.cases import GoldenCase, load_cases
from evidencedesk.evals.runner import PROMPTS, RecordedModel
from evidencedesk.llm import LLMClient, LLMRequest, LLMResponse, Message, ScriptedClient
from evidencedesk.strictjson import read_jsonl
from evidencedesk.tools import clip
from evidencedesk.usage import Ledger, ManualClock, record_usage

ROUTING_DATA = DATA_DIR / "routing"
CHEAP_MODEL, EXPENSIVE_MODEL = "small-model-1", "large-model-1"  # both priced in kit/data/prices.json
VERIFIER_MODEL = "small-model-1"  # the verifier runs on the cheap model: it is paid on every request
PROMPT = PROMPTS["v2"]  # the instructions both models get: page 8's v2 prompt
VERIFIER_PROMPT = "Rate how likely the answer is right, from 0.00 to 1.00. Reply with the number only."
VERIFIER_MAX_TOKENS = 5  # tokens: a score is one short number
# seconds each call takes on the ManualClock (invented: a larger model is usually slower)
CHEAP_S, VERIFIER_S, EXPENSIVE_S = 0.5, 0.3, 2.0


class RoutingTableError(ValueError):
    """A row of the routing reply table is malformed; the message names the file, the line and the field."""


class NoRecordedScore(LookupError):
    """The scripted verifier was asked about a question, or a reply, it holds no score for."""


class ReplyRow(BaseModel):
    """One row of kit/data/routing/replies.jsonl: a case id, each model's reply, and the verifier's
    confidence in the cheap reply (a decimal string from "0.00" to "1.00"). All invented."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    id: str = Field(pattern=r"^[a-z][0-9]{2,3}$")
    cheap: str = Field(max_length=2000)
    expensive: str = Field(max_length=2000)
    confidence: str = Field(pattern=r"^(0\.[0-9]{2}|1\.00)$")


def load_route_cases(path: str | Path | None = None) -> list[GoldenCase]:
    """Page 8's thirty golden cases, then the extension (default kit/data/routing/cases.jsonl), in order.

    Returns a list of golden cases (evals.cases kinds). Raises evals.cases.CaseError naming a bad line, and
    ValueError when an id or an input appears twice across the two files.
    Example: len(load_route_cases()) -> 300
    """
    cases = load_cases() + load_cases(Path(path) if path is not None else ROUTING_DATA / "cases.jsonl")
    for field in ("id", "input"):
        values = [getattr(case, field) for case in cases]
        if len(set(values)) != len(values):
            raise ValueError(f"each case's {field} must be unique across both files")
    return cases


def load_replies(cases: list[GoldenCase], path: str | Path | None = None) -> dict[str, ReplyRow]:
    """The reply table (default kit/data/routing/replies.jsonl) as {case id: ReplyRow}, for cases only.

    Rows of other cases are left out, so that a part of the set (page 8's thirty) can be measured alone.
    Raises RoutingTableError naming the line and field of a bad row; ValueError naming the first case ids
    with no row. Example: load_replies(load_route_cases())["g08"].confidence -> "0.91"
    """
    path = Path(path) if path is not None else ROUTING_DATA / "replies.jsonl"
    rows = {row.id: row for _, _, row in read_jsonl(path, ReplyRow.model_validate, RoutingTableError,
                                                       "routing reply table")}
    missing = sorted({c.id for c in cases} - set(rows))
    if missing:
        raise ValueError(f"no reply row for the cases {missing[:5]}")
    return {c.id: rows[c.id] for c in cases}


@dataclass(frozen=True)
class Verdict:
    """What the verifier said of one reply: confidence (Decimal, 0 to 1) and the call's response."""

    confidence: Decimal
    response: LLMResponse


class ScriptedVerifier:
    """A fake verifier that says what it is: it returns the confidence recorded for the cheap reply.

    Args: scores (dict of question (str) -> (reply (str), confidence (str, "0.00" to "1.00"))); client_for
    (callable taking a ScriptedClient and returning the LLMClient to call, e.g. to meter and time it;
    default: the client itself). Each verify() is one model call on VERIFIER_MODEL: the question and the
    reply in, the score out, so it has a price. Raises NoRecordedScore (from verify) for a question it has
    no score for, or a reply other than the one the score was recorded for.
    Example: ScriptedVerifier({"Q?": ("refund", "0.93")}).verify(request, "refund").confidence
    """

    def __init__(self, scores: dict[str, tuple[str, str]], client_for=None) -> None:
        self.scores = dict(scores)
        self.client_for = client_for or (lambda client: client)

    def verify(self, request: LLMRequest, reply: str) -> Verdict:
        """Score reply (str) as an answer to request's last user message. Returns a Verdict."""
        question = next((m.content for m in reversed(request.messages) if m.role == "user"), "")
        if question not in self.scores or self.scores[question][0] != reply:
            raise NoRecordedScore(f"no score recorded for this reply to {clip(question, 60)!r}")
        asked = LLMRequest(VERIFIER_MODEL, [Message("system", VERIFIER_PROMPT),
                                            Message("user", f"Question: {question}\nAnswer: {reply}")],
                           VERIFIER_MAX_TOKENS)
        response = self.client_for(ScriptedClient([self.scores[question][1]], VERIFIER_MODEL)).complete(asked)
        return Verdict(Decimal(response.text), response)


class Metered:
    """Wraps a client: bills each call into ledger (usage.record_usage) and takes `seconds` on clock.

    Args: inner (LLMClient); ledger (usage.Ledger); clock (ManualClock); seconds (float, per call);
    name (str, the prefix of call ids); model (str or None: the model to ask for, replacing the
    request's). A failed call takes its time and bills nothing. Example: Metered(cheap, ledger, clock, 0.5, "cheap")
    """

    def __init__(self, inner: LLMClient, ledger: Ledger, clock: ManualClock, seconds: float, name: str,
                 model: str | None = None) -> None:
        self.inner, self.ledger, self.clock, self.seconds = inner, ledger, clock, seconds
        self.name, self.model, self.calls = name, model, 0

    def complete(self, request: LLMRequest) -> LLMResponse:
        """The inner reply, billed and timed. Raises whatever inner.complete raises, after its time."""
        self.calls += 1
        routed = replace(request, model=self.model) if self.model else request
        self.clock.advance(self.seconds)
        response = self.inner.complete(routed)
        self.ledger.add(record_usage(routed, response, f"{self.name}-{self.calls}"))
        return response


def recorded(cases: list[GoldenCase], rows: dict[str, ReplyRow]) -> tuple[RecordedModel, RecordedModel,
                                                                         dict[str, tuple[str, str]]]:
    """The cheap and expensive RecordedModels and the verifier's scores, built from the reply table.

    Returns (cheap, expensive, scores), scores as ScriptedVerifier takes them.
    Example: cheap, expensive, scores = recorded(cases, load_replies(cases))
    """
    cheap = RecordedModel({c.input: rows[c.id].cheap for c in cases}, model=CHEAP_MODEL)
    expensive = RecordedModel({c.input: rows[c.id].expensive for c in cases}, model=EXPENSIVE_MODEL)
    scores = {c.input: (rows[c.id].cheap, rows[c.id].confidence) for c in cases}
    return cheap, expensive, scores
