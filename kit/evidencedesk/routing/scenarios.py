"""The scenario table of this page: kit/data/routing/scenarios.jsonl, one request through the cascade per row.

Each row names a case of the eval set and a threshold, and may script the escalation target as page 2's
fallback chain ("beta" and "alpha": each fake server's replies, or fault names such as "overload"; with
"alpha_model", the model the second route asks for; with "policy", what to do when the escalation fails).
It says what must happen: the route, the model whose reply was served ("" for none), whether that reply
passes the case's grader, and the request's cost in credits. check_row() returns the mismatches; []
means the row holds. Left out: rows where the cheap call itself fails (kit/tests/test_routing_cascade.py
covers that route).
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from evidencedesk.evals.cases import GoldenCase
from evidencedesk.evals.runner import MAX_TOKENS, MODEL
from evidencedesk.llm import LLMError, LLMRequest, Message
from evidencedesk.providers import FAULTS, Fault
from evidencedesk.routing.cascade import REFUSE, ROUTES, cascade_for
from evidencedesk.routing.compose import ChainClient, escalation_chain
from evidencedesk.routing.models import EXPENSIVE_MODEL, PROMPT, ROUTING_DATA, load_replies, load_route_cases
from evidencedesk.strictjson import read_jsonl
from evidencedesk.usage import CreditsText, Ledger, ManualClock, decimal_from_text

# a confidence threshold from 0 to 1, written in the data file as text ("0.80"), read as a Decimal
ThresholdText = Annotated[Decimal, BeforeValidator(decimal_from_text), Field(ge=0, le=1)]


class ScenarioError(ValueError):
    """A row of the routing scenario table is malformed; the message names the line and the field."""


class Expect(BaseModel):
    """What a row must show: route (cascade.ROUTES), model ("" for none), passed (the served reply passes
    the case's grader; False when nothing is served), cost (credits, a decimal string)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    route: Literal[*ROUTES]  # type: ignore[valid-type]
    model: Literal["", "small-model-1", "large-model-1"]
    passed: bool
    cost: CreditsText


class Row(BaseModel):
    """One row: id, case (a case id of the eval set), threshold (a decimal string), beta and alpha (scripts
    of the fallback chain as the escalation target; absent: the recorded expensive model), alpha_model,
    policy, expect and why."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    id: str = Field(pattern=r"^s[0-9]{2}$")
    case: str
    threshold: ThresholdText
    beta: tuple[str, ...] | None = Field(default=None, strict=False)
    alpha: tuple[str, ...] | None = Field(default=None, strict=False)
    alpha_model: Literal["small-model-1", "large-model-1"] = EXPENSIVE_MODEL
    policy: Literal["refuse", "serve_unverified"] = REFUSE
    expect: Expect
    why: str = Field(min_length=1, max_length=300)


def load_rows(path: str | Path | None = None) -> list[Row]:
    """The rows of the table (default kit/data/routing/scenarios.jsonl). Raises ScenarioError naming a bad line."""
    path = Path(path) if path is not None else ROUTING_DATA / "scenarios.jsonl"
    return [row for _, _, row in read_jsonl(path, Row.model_validate, ScenarioError, "routing scenario table")]


def _script(entries: tuple[str, ...]) -> list[str | Fault]:
    return [Fault(e) if e in FAULTS else e for e in entries]


def run_row(row: Row, cases: list[GoldenCase] | None = None) -> dict[str, Any]:
    """Play one row: {"route", "model", "passed", "cost" (Decimal), "seconds" (float), "text" (served or "")}.

    Raises ScenarioError naming the row when its case is not in the eval set.
    Example: run_row(load_rows()[0])["route"] -> "accepted"
    """
    cases = cases if cases is not None else load_route_cases()
    case = next((c for c in cases if c.id == row.case), None)
    if case is None:
        raise ScenarioError(f"row {row.id}: no case {row.case!r} in the eval set")
    clock, ledger = ManualClock(), Ledger()
    target = None
    if row.beta is not None or row.alpha is not None:
        chain = escalation_chain(_script(row.beta or ()), _script(row.alpha or ()), clock, row.alpha_model)
        target = ChainClient(chain, ledger)
    cascade = cascade_for([case], row.threshold, load_replies([case]), clock, ledger, target, row.policy)
    request = LLMRequest(MODEL, [Message("system", PROMPT), Message("user", case.input)], MAX_TOKENS)
    try:
        text = cascade.complete(request).text
    except LLMError:
        text = None
    routed = cascade.log[-1]
    return {"route": routed.route, "model": routed.model, "passed": text is not None and case.grade(text).passed,
            "cost": routed.cost, "seconds": routed.seconds, "text": text or ""}


def check_row(row: Row, cases: list[GoldenCase] | None = None) -> list[str]:
    """The row's mismatches as "field: expected X, got Y"; [] when it holds."""
    got = run_row(row, cases)
    return [f"{k}: expected {v}, got {got[k]}" for k, v in row.expect.model_dump().items() if got[k] != v]

