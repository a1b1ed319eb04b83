"""The tracing lab: the calling lab's help desk (tool-call rounds, gate) behind the two tracing wrappers.

helpdesk() builds a TracedClient over Alpha, the invented provider of providers.py, on a scripted fake
server, slowed on the ManualClock by usage.SlowClient, and a TracedGate over calling.scenarios.lab_gate().
A question is one of KINDS, each a fixed script: "answer" (one reply), "lookup" (one get_ticket, then an
answer), "research" (three documents on the large model, then an answer: the expensive one), "denied" (asks
for another user's ticket: the gate answers not_found, the model answers anyway) and "overload" (the
provider is overloaded: the question ends in an error). workload(n) is n questions from two users and
three features, in a fixed order; run_workload() runs them and returns their outcomes. The fake model is a
script: it says nothing of how a real model picks tools or how long a real call takes.
Left out: retries, budgets and fallbacks around the calls (the resilience/ and budget pages), and streaming.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass

from evidencedesk.calling.definitions import offered
from evidencedesk.calling.scenarios import ask, client_for, lab_gate
from evidencedesk.providers import OVERLOAD, Fault, ModelReply
from evidencedesk.tracing.genai import Outcome, TracedClient, TracedGate, traced_rounds
from evidencedesk.tracing.setup import Tracing
from evidencedesk.usage import SlowClient

PROVIDER = "alpha"  # gen_ai.provider.name for the invented provider: an application's own value
BASE_S = 0.4  # seconds each model call takes on the clock, plus 0.01 s per output token (SlowClient)
SMALL, LARGE = "small-model-1", "large-model-1"  # from kit/data/prices.json
USERS = ("kwame", "lena")  # kwame owns T-501 and T-502, lena owns T-503 (kit/data/tickets.json)
FEATURES = ("triage", "refund_check", "policy_research")  # the product features that ask questions
KINDS = ("answer", "lookup", "research", "denied", "overload")
PATTERN = (  # (user, feature, kind): workload(n) cycles through these 13 questions
    ("kwame", "triage", "lookup"), ("lena", "refund_check", "answer"), ("lena", "triage", "lookup"),
    ("kwame", "policy_research", "research"), ("lena", "refund_check", "answer"), ("kwame", "triage", "lookup"),
    ("lena", "triage", "denied"), ("kwame", "refund_check", "answer"), ("lena", "triage", "lookup"),
    ("lena", "refund_check", "answer"), ("kwame", "policy_research", "research"), ("kwame", "triage", "lookup"),
    ("lena", "refund_check", "overload"))
OWN_TICKET = {"kwame": "T-501", "lena": "T-503"}
OTHERS_TICKET = {"kwame": "T-503", "lena": "T-501"}
DOCS = ("kc-returns-v3", "kc-shipping-v2", "kc-warranty-v1")


@dataclass(frozen=True)
class Question:
    """One question of a workload: user, feature (str) and kind (one of KINDS)."""

    user: str
    feature: str
    kind: str

    def __post_init__(self) -> None:
        if self.user not in USERS or self.feature not in FEATURES or self.kind not in KINDS:
            raise ValueError(f"a question needs a user of {USERS}, a feature of {FEATURES} and a kind of {KINDS}, "
                             f"got {self}")


def script(question: Question) -> tuple[list[ModelReply | str | Fault], str]:
    """The fake server's script for a question, and the model it asks for.

    Returns: (script list, model name). Example: script(Question("kwame", "triage", "answer"))[1] -> "small-model-1"
    """
    own, other = OWN_TICKET[question.user], OTHERS_TICKET[question.user]
    if question.kind == "answer":
        return ["Refunds are accepted within 30 days with a receipt."], SMALL
    if question.kind == "lookup":
        return [ModelReply(calls=(("get_ticket", {"ticket_id": own}),)), f"{own} is open."], SMALL
    if question.kind == "research":
        reads = [ModelReply(calls=(("lookup_document", {"doc_id": d}),)) for d in DOCS]
        return [*reads, "The returns, shipping and warranty policies all allow it."], LARGE
    if question.kind == "denied":
        return [ModelReply(calls=(("get_ticket", {"ticket_id": other}),)), f"I cannot find {other}."], SMALL
    return [Fault(OVERLOAD)], SMALL


def helpdesk(tracing: Tracing, lines: list[ModelReply | str | Fault], capture: bool = False,
             tool_s: float = 0.05) -> tuple[TracedClient, TracedGate]:
    """A traced client over Alpha playing lines, slowed on tracing's clock, and a traced gate over the lab's.

    Args: tracing (Tracing); lines (the script); capture (bool: content in spans, redacted); tool_s (seconds).
    Returns: (TracedClient, TracedGate). Example: client, gate = helpdesk(tracing, ["Yes."])
    """
    client, _ = client_for(PROVIDER, lines)
    gate, _ = lab_gate()
    return (TracedClient(SlowClient(client, tracing.clock, BASE_S), tracing, PROVIDER, capture),
            TracedGate(gate, tracing, tool_s, capture))


def ask_traced(tracing: Tracing, question: Question, text: str = "", capture: bool = False,
               run_id: str = "run-1") -> Outcome:
    """Run one question of the lab inside its own trace; the question's text defaults to one per kind.

    Args: tracing (Tracing); question (Question); text (str, "" for the default); capture (bool); run_id (str).
    Returns: Outcome. Example: ask_traced(tracing, Question("kwame", "triage", "lookup")).reason -> "answered"
    """
    lines, model = script(question)
    client, gate = helpdesk(tracing, lines, capture)
    text = text or f"Please help with {OWN_TICKET[question.user]}: can it be refunded?"
    request = dataclasses.replace(ask(text, offered(gate.registry, gate.policy, "triage")), model=model)
    return traced_rounds(client, gate, request, user=question.user, feature=question.feature, run_id=run_id)


def workload(n: int) -> Iterator[Question]:
    """n questions: PATTERN[i % 13] for i = 0 .. n-1.

    Raises: ValueError naming n when it is not an int from 1 to 10000. Example: next(workload(1)).kind -> "lookup"
    """
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 10_000:
        raise ValueError(f"n must be an int from 1 to 10000 (questions), got {n!r}")
    for i in range(n):
        yield Question(*PATTERN[i % len(PATTERN)])


def run_workload(tracing: Tracing, n: int) -> list[Outcome]:
    """Each question of workload(n) through ask_traced, in order, with run ids run-1 .. run-n.

    Returns: list of Outcome. Example: [o.reason for o in run_workload(tracing, 2)] -> ["answered", "answered"]
    """
    return [ask_traced(tracing, q, run_id=f"run-{i}") for i, q in enumerate(workload(n), 1)]
