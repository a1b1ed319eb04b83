"""The resilience lab and its table of scenarios: two invented providers behind a fallback chain.

lab() wires the chain the page uses: the invented Alpha first (model small-model-1, 0.4 s an attempt
on the ManualClock) and the invented Beta second (model large-model-1, 0.6 s an attempt), each a fake
server played from a script, behind its adapter from providers.py and its own circuit breaker.
kit/data/resilience/scenarios.jsonl holds one run per line: what each fake server does, the run's
limits, how Alpha's breaker starts, and what should happen (the reason the run ended, who answered,
every attempt, alerts, Alpha's breaker at the end); check_row() says how a run differs from its row.
Left out: real providers and real latency (the seconds here are invented), and streaming (deadline.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from evidencedesk import DATA_DIR
from evidencedesk.budget import COST_BUDGET, STEP_BUDGET, TIME_BUDGET, RunBudget
from evidencedesk.llm import LLMRequest, Message
from evidencedesk.providers import (
    FAULTS,
    RATE_LIMIT,
    AlphaClient,
    BetaClient,
    FakeAlphaServer,
    FakeBetaServer,
    Fault,
    Transport,
)
from evidencedesk.resilience.breaker import CLOSED, HALF_OPEN, OPEN, CircuitBreaker
from evidencedesk.resilience.fallback import (
    ANSWERED,
    CHAIN_POLICY,
    FIX_REQUEST,
    NO_PROVIDER_LEFT,
    ChainRun,
    FallbackChain,
    Route,
)
from evidencedesk.retry import RetryPolicy
from evidencedesk.strictjson import read_jsonl
from evidencedesk.usage import CreditsText, ManualClock

RESILIENCE_DATA = DATA_DIR / "resilience"
ALPHA_MODEL, BETA_MODEL = "small-model-1", "large-model-1"  # both in kit/data/prices.json
ALPHA_LATENCY_S, BETA_LATENCY_S = 0.4, 0.6  # seconds each attempt takes on the clock (invented)
ANSWERS = {"alpha": "Yes: an unused kettle can be returned within 30 days.",
           "beta": "Unused kettles may be returned within 30 days of purchase, with the receipt."}
RULES = Message("system", "Answer from the returns policy, version 3. Be brief.")
REASONS = (ANSWERED, FIX_REQUEST, NO_PROVIDER_LEFT, STEP_BUDGET, TIME_BUDGET, COST_BUDGET)
Script = list[str | Fault]


class ScenarioError(ValueError):
    """A row of the resilience table is malformed; the message names the line and the field."""


def ask(question: str, max_tokens: int = 200) -> LLMRequest:
    """The lab's request: the returns rules, then the question (str). max_tokens (int, tokens).

    The model is a placeholder: each route of the chain asks for its own. Example: ask("Can I return a kettle?")
    """
    return LLMRequest(ALPHA_MODEL, [RULES, Message("user", question)], max_tokens=max_tokens)


def timed(server: Transport, clock: ManualClock, seconds: float) -> Transport:
    """A transport that takes `seconds` (float) on the clock, then hands the body to server (a fake server).

    Example: AlphaClient(timed(FakeAlphaServer(["Yes."]), clock, 0.4))
    """
    def send(body: str) -> tuple[int, str]:
        clock.advance(seconds)
        return server(body)
    return send


def lab(alpha: Script, beta: Script, *, failures_to_open: int = 3, cool_down_s: float = 30.0,
        policy: RetryPolicy = CHAIN_POLICY) -> tuple[FallbackChain, ManualClock]:
    """A fresh chain, Alpha then Beta, on a new ManualClock at 0.

    Args: alpha, beta (lists of str replies and providers.Fault: each fake server's script); failures_to_open
    (int) and cool_down_s (float, seconds): each breaker's settings; policy (retry.RetryPolicy: retries per
    provider). Returns (chain, clock).
    Example: chain, clock = lab([Fault(OVERLOAD), Fault(OVERLOAD)], ["Yes."])
    """
    clock = ManualClock()
    routes = [Route("alpha", AlphaClient(timed(FakeAlphaServer(alpha), clock, ALPHA_LATENCY_S)), ALPHA_MODEL,
                    CircuitBreaker("alpha", clock, failures_to_open, cool_down_s)),
              Route("beta", BetaClient(timed(FakeBetaServer(beta), clock, BETA_LATENCY_S)), BETA_MODEL,
                    CircuitBreaker("beta", clock, failures_to_open, cool_down_s))]
    return FallbackChain(routes, clock, policy), clock


class Limits(BaseModel):
    """The RunBudget fields a row may set; max_cost as a decimal string ("0.005"), never a float."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)
    max_steps: int | None = Field(default=None, gt=0)
    max_seconds: float | None = Field(default=None, gt=0)
    max_cost: CreditsText | None = Field(default=None, gt=0)



class Expect(BaseModel):
    """What a row expects of its run. attempts: "provider:outcome" for every attempt, in order."""

    model_config = ConfigDict(extra="forbid", strict=True)
    reason: str
    answered_by: Literal["alpha", "beta", ""]
    attempts: list[str] = Field(min_length=1)
    alerts: int = Field(ge=0)
    alpha_breaker: str

    @field_validator("reason")
    @classmethod
    def known_reason(cls, value: str) -> str:
        if value not in REASONS:
            raise ValueError(f"unknown reason {value[:40]!r}; known: {', '.join(REASONS)}")
        return value

    @field_validator("alpha_breaker")
    @classmethod
    def known_state(cls, value: str) -> str:
        if value not in (CLOSED, OPEN, HALF_OPEN):
            raise ValueError(f"unknown breaker state {value[:40]!r}; known: {CLOSED}, {OPEN}, {HALF_OPEN}")
        return value


class Row(BaseModel):
    """One row of scenarios.jsonl. Script entries: "answer" (the provider's answer) or a providers.FAULTS kind."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)
    id: str = Field(pattern=r"^r[0-9]{2}$")
    alpha: list[str]
    beta: list[str]
    retry_after_s: float = Field(default=1.0, ge=0, lt=3600)  # the wait a rate_limit entry asks for, seconds
    long_input: bool = False  # a question of 40,000 characters: too long for either provider's context window
    failures_before: int = Field(default=0, ge=0)  # failures Alpha's breaker saw before the run, at clock 0
    wait_before_s: float = Field(default=0.0, ge=0, lt=3600)  # seconds on the clock between those and the run
    limits: Limits = Field(default_factory=Limits)
    expect: Expect
    why: str = Field(min_length=1)

    @field_validator("alpha", "beta")
    @classmethod
    def known_entries(cls, value: list[str]) -> list[str]:
        for entry in value:
            if entry != "answer" and entry not in FAULTS:
                raise ValueError(f"unknown script entry {entry[:40]!r}; known: answer, {', '.join(FAULTS)}")
        return value


def load_rows(path: str | Path | None = None) -> list[dict[str, Any]]:
    """Read and validate the resilience table, one JSON object per line (blank lines skipped).

    path (str or Path; default kit/data/resilience/scenarios.jsonl). Returns the rows as dicts, in order.
    Raises ScenarioError naming the file when it cannot be read, and the line and the field of a row that
    is not strict JSON, not a valid Row, or repeats an id. Example: load_rows()[0]["id"] == "r01"
    """
    path = Path(path) if path is not None else RESILIENCE_DATA / "scenarios.jsonl"
    return [row for _, row, _ in read_jsonl(path, Row.model_validate, ScenarioError, "resilience table")]


def _script(entries: list[str], provider: str, retry_after_s: float) -> Script:
    return [ANSWERS[provider] if e == "answer" else Fault(e, wait_s=retry_after_s if e == RATE_LIMIT else 1.0)
            for e in entries]


def run_row(row: dict[str, Any]) -> tuple[ChainRun, FallbackChain]:
    """Run one row in a fresh lab: Alpha's breaker first sees failures_before failures, then the clock moves on
    by wait_before_s, then one request. Returns (run, chain). Raises pydantic.ValidationError for a bad row.
    Example: run, chain = run_row(load_rows()[0])
    """
    r = Row.model_validate(row)
    chain, clock = lab(_script(r.alpha, "alpha", r.retry_after_s), _script(r.beta, "beta", r.retry_after_s))
    alpha_breaker = chain.routes[0].breaker
    for _ in range(r.failures_before):
        if alpha_breaker.allow():
            alpha_breaker.record(ok=False)
    clock.advance(r.wait_before_s)
    question = "Can I return a kettle? " + ("Here is my whole order history: " + "x" * 40_000 if r.long_input else "")
    return chain.run(ask(question.strip()), RunBudget(**r.limits.model_dump(exclude_none=True)), run_id=r.id), chain


def attempts_of(run: ChainRun) -> list[str]:
    """Every attempt of a run as "provider:outcome". Example: attempts_of(run) -> ["alpha:ok"]"""
    return [f"{a.provider}:{a.outcome}" for a in run.attempts]


def check_row(row: dict[str, Any]) -> list[str]:
    """Run a row and list how the run differs from what the row expects (an empty list: it matches).

    Compares reason, answered_by, attempts, the number of alerts and Alpha's breaker state at the end.
    Example: check_row(load_rows()[0]) == []
    """
    expect = Row.model_validate(row).expect
    run, chain = run_row(row)
    got = {"reason": run.reason, "answered_by": run.answered_by, "attempts": attempts_of(run),
           "alerts": len(run.alerts), "alpha_breaker": chain.routes[0].breaker.state}
    return [f"{row['id']} {name}: expected {getattr(expect, name)!r}, got {value!r}"
            for name, value in got.items() if getattr(expect, name) != value]
