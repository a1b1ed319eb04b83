"""A cascade: the cheap model answers first, a verifier scores the answer, and only an unsure score
escalates the request to the expensive model. A quality decision, made per request.

Cascade is an LLMClient, so page 8's run_eval grades it like any configuration. Its complete() calls the
cheap model, asks the verifier for its confidence in that reply, and keeps the reply when the confidence
is at least the threshold (ACCEPTED); below it, the expensive model answers (ESCALATED). A reply that did
not end by itself (cut at max_tokens, say) escalates without being scored, and so does a reply whose
verifier call failed (the verifier is a model call too): no score is treated as "not sure". Two failures are not quality
decisions and are recorded apart: the cheap call failing (CHEAP_DOWN: the request goes to the expensive
model, an availability fallback that costs more) and the escalation failing (TARGET_DOWN: then the policy
decides, REFUSE by default, or SERVE_UNVERIFIED, which returns the doubted cheap reply marked unverified).
An escalation answered by a model outside escalate_to (a fallback that quietly hands it to a smaller
model) counts as TARGET_DOWN too. Every request leaves a Routed record: the route, the model that
answered, the confidence, the credits it cost and the seconds it took on the clock. The clients are
expected to bill their own calls into the ledger (models.Metered, or page 2's fallback chain).
The pattern: L. Chen, M. Zaharia and J. Zou, "FrugalGPT", arXiv 2305.05176 (May 2023),
https://arxiv.org/abs/2305.05176 (read 2026-12-03). Left out: more than two models, and learning the
threshold (measure.py and frontier.py compare thresholds on the eval set instead).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from evidencedesk.evals.cases import GoldenCase
from evidencedesk.llm import STOP, LLMClient, LLMError, LLMRequest, LLMResponse
from evidencedesk.routing.models import (
    CHEAP_MODEL,
    CHEAP_S,
    EXPENSIVE_MODEL,
    EXPENSIVE_S,
    VERIFIER_S,
    Metered,
    ReplyRow,
    ScriptedVerifier,
    load_replies,
    recorded,
)
from evidencedesk.usage import Ledger, ManualClock

ACCEPTED = "accepted"  # the verifier was sure enough: the cheap reply is the answer
ESCALATED = "escalated"  # the verifier was unsure (or the reply was cut): the expensive model answered
CHEAP_DOWN = "cheap_down"  # the cheap call failed: the expensive model answered (availability, not quality)
TARGET_DOWN = "target_down"  # escalated, and the expensive model did not answer
ROUTES = (ACCEPTED, ESCALATED, CHEAP_DOWN, TARGET_DOWN)
REFUSE, SERVE_UNVERIFIED = "refuse", "serve_unverified"  # what to do when the escalation fails


class EscalationFailed(LLMError):
    """The verifier doubted the cheap reply and the expensive model could not answer; nothing is served."""

    code = "escalation_failed"


@dataclass(frozen=True)
class Routed:
    """One request through the cascade: route (one of ROUTES); model (str, the model whose reply was
    returned, "" for none); confidence (Decimal, or None when the verifier was not asked or its call
    failed); cost (Decimal, credits, every call of the request); seconds (float, on the clock); verified
    (bool: False when a reply the verifier doubted, or never saw, was served)."""

    route: str
    model: str
    confidence: Decimal | None
    cost: Decimal
    seconds: float
    verified: bool

    @property
    def escalated(self) -> bool:
        """True when the verifier's doubt (or a cut reply) sent the request to the expensive model."""
        return self.route in (ESCALATED, TARGET_DOWN)


class Cascade:
    """Cheap model, verifier, and the expensive model when the verifier's confidence is below threshold.

    Args: cheap, expensive (LLMClient, each billing its calls into ledger); verifier (ScriptedVerifier or
    any object with verify(request, reply) -> Verdict); threshold (Decimal, 0 to 1: a confidence at or
    above it keeps the cheap reply; 0 never escalates, 1 escalates all but certainty); ledger
    (usage.Ledger); clock (ManualClock); if_target_fails (REFUSE or SERVE_UNVERIFIED); escalate_to
    (frozenset of model names an escalated answer may come from; default {EXPENSIVE_MODEL}).
    Raises ValueError naming threshold or if_target_fails when out of range.
    Example: Cascade(cheap, expensive, verifier, Decimal("0.8"), ledger, clock).complete(request).text
    """

    def __init__(self, cheap: LLMClient, expensive: LLMClient, verifier: ScriptedVerifier, threshold: Decimal,
                 ledger: Ledger, clock: ManualClock, if_target_fails: str = REFUSE,
                 escalate_to: frozenset[str] = frozenset({EXPENSIVE_MODEL})) -> None:
        if not isinstance(threshold, Decimal) or not Decimal(0) <= threshold <= Decimal(1):
            raise ValueError(f"threshold must be a Decimal from 0 to 1, got {threshold!r}")
        if if_target_fails not in (REFUSE, SERVE_UNVERIFIED):
            raise ValueError(f"if_target_fails must be {REFUSE!r} or {SERVE_UNVERIFIED!r}, got {if_target_fails!r}")
        self.cheap, self.expensive, self.verifier, self.threshold = cheap, expensive, verifier, threshold
        self.ledger, self.clock, self.if_target_fails, self.escalate_to = ledger, clock, if_target_fails, escalate_to
        self.log: list[Routed] = []

    def complete(self, request: LLMRequest) -> LLMResponse:
        """Answer request through the cascade; log a Routed record.

        Returns the LLMResponse served. Raises EscalationFailed (policy REFUSE)
        when an escalation finds no answer, and the expensive model's LLMError
        when the cheap call failed and the expensive one did too.
        """
        cost, start = self.ledger.summary().cost, self.clock()

        def note(route: str, model: str, confidence: Decimal | None,
                 verified: bool = True) -> None:
            spent = self.ledger.summary().cost - cost
            self.log.append(Routed(route, model, confidence, spent,
                                   self.clock() - start, verified))

        try:
            first = self.cheap.complete(request)
        except LLMError:  # availability: the cheap provider is down
            try:
                answer, model = self._call(self.expensive, request)
            except LLMError:
                note(CHEAP_DOWN, "", None, verified=False)
                raise
            note(CHEAP_DOWN, model, None)
            return answer
        first_model = self.ledger.records[-1].model
        confidence = None
        whole = first.stop_reason == STOP and not first.tool_calls
        if whole and not first.refusal:
            try:
                verdict = self.verifier.verify(request, first.text)
                confidence = verdict.confidence
            except LLMError:  # the verifier's call failed: no score, not sure
                confidence = None
            if confidence is not None and confidence >= self.threshold:
                note(ACCEPTED, first_model, confidence)
                return first
        try:  # quality: the verifier doubts the answer, or never saw one
            answer, model = self._call(self.expensive, request)
            if model not in self.escalate_to:
                raise EscalationFailed(f"escalation answered by {model}")
        except LLMError as error:
            if self.if_target_fails == SERVE_UNVERIFIED:
                note(TARGET_DOWN, first_model, confidence, verified=False)
                return first
            note(TARGET_DOWN, "", confidence, verified=False)
            raise EscalationFailed(f"no answer to escalate to: {error}") \
                from error
        note(ESCALATED, model, confidence)
        return answer

    def _call(self, client: LLMClient, request: LLMRequest) -> tuple[LLMResponse, str]:
        """client's answer and the model billed for it (the ledger's newest record after the call)."""
        answer = client.complete(request)
        return answer, self.ledger.records[-1].model


def cascade_for(cases: list[GoldenCase], threshold: Decimal, rows: dict[str, ReplyRow] | None = None,
                clock: ManualClock | None = None, ledger: Ledger | None = None, expensive: LLMClient | None = None,
                if_target_fails: str = REFUSE) -> Cascade:
    """The page's cascade over cases: the recorded cheap model, verifier and (unless given) expensive model,
    each Metered into one ledger on one clock (models.CHEAP_S, VERIFIER_S, EXPENSIVE_S seconds a call).

    Args: cases (golden cases); threshold (Decimal); rows (the reply table, default load_replies(cases));
    clock, ledger (new ones by default); expensive (LLMClient that bills into ledger, e.g. compose.ChainClient;
    default the recorded expensive model); if_target_fails (REFUSE or SERVE_UNVERIFIED).
    Example: cascade_for(load_route_cases(), Decimal("0.8")).threshold
    """
    rows = rows if rows is not None else load_replies(cases)
    clock, ledger = clock if clock is not None else ManualClock(), ledger if ledger is not None else Ledger()
    cheap, recorded_expensive, scores = recorded(cases, rows)
    verifier = ScriptedVerifier(scores, lambda client: Metered(client, ledger, clock, VERIFIER_S, "verifier"))
    if expensive is None:
        expensive = Metered(recorded_expensive, ledger, clock, EXPENSIVE_S, "expensive", EXPENSIVE_MODEL)
    return Cascade(Metered(cheap, ledger, clock, CHEAP_S, "cheap", CHEAP_MODEL), expensive, verifier, threshold,
                   ledger, clock, if_target_fails)
