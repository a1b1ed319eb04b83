"""The resilience lab and its table of scenarios: two invented providers behind a fallback chain.

lab() wires the chain the page uses: the invented Alpha first (model small-model-1, 0.4 s an attempt
on the ManualClock) and the invented Beta second (model large-model-1, 0.6 s an attempt), each a fake
server played from a script, behind its adapter from providers.py and its own circuit breaker.
kit/data/resilience/scenarios.jsonl holds one run per line: what each fake server does, the run's
limits, how Alpha's breaker starts, and what should happen (the reason the run ended, who answered,
every attempt, alerts, Alpha's breaker at the end); check_row() says how a run differs from its row.
A row may also script an exhausted quota at Alpha ("quota", which the invented Alpha cannot say: the
lab raises errors.QuotaExhausted in its place), jitter fractions for the waits, or a probe already out
at a half-open breaker. A row with a "stream" entry is a streamed read instead of a chain run: one
FakeStream read under the limits of a model family (deadline.py), checked against expect_stream.
Left out: real providers and real latency (the seconds here are invented), and streaming through the chain.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from evidencedesk import DATA_DIR
from evidencedesk.budget import COST_BUDGET, STEP_BUDGET, TIME_BUDGET, RunBudget
from evidencedesk.llm import LLMClient, LLMRequest, LLMResponse, Message
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
from evidencedesk.resilience.deadline import Deadlines, StreamRead, deadlines_for, read_stream
from evidencedesk.resilience.errors import QuotaExhausted
from evidencedesk.resilience.failures import Draw, ScriptedDraw
from evidencedesk.resilience.fallback import (
    ANSWERED,
    CHAIN_POLICY,
    FIX_REQUEST,
    NO_PROVIDER_LEFT,
    ChainRun,
    FallbackChain,
    Route,
)
from evidencedesk.resilience.stream import USAGE_STYLES, FakeStream
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
QUOTA = "quota"  # a script entry: the provider says the account's quota is exhausted
Script = list[str | Fault]
STREAM_TTFT_S, STREAM_INTERVAL_S = 0.8, 0.05  # the streamed rows' timetable (invented), seconds


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


class QuotaWall:
    """A client that answers some calls with errors.QuotaExhausted (after `seconds` on the clock) and passes the
    others to inner. A scripted fake: the kit's invented providers have no quota error of their own.

    Args: inner (LLMClient); clock (ManualClock); seconds (float); walls (set of int: the call numbers, from 1,
    that hit the exhausted quota). Example: QuotaWall(alpha_client, clock, 0.4, {1})
    """

    def __init__(self, inner: LLMClient, clock: ManualClock, seconds: float, walls: set[int]) -> None:
        self.inner, self.clock, self.seconds, self.walls, self.calls = inner, clock, seconds, set(walls), 0

    def complete(self, request: LLMRequest) -> LLMResponse:
        """inner's answer, or QuotaExhausted on a scripted call. Example: wall.complete(ask("Hi"))"""
        self.calls += 1
        if self.calls in self.walls:
            self.clock.advance(self.seconds)
            raise QuotaExhausted("you exceeded your current quota", "alpha")
        return self.inner.complete(request)


def lab(alpha: Script, beta: Script, *, failures_to_open: int = 3, cool_down_s: float = 30.0,
        policy: RetryPolicy = CHAIN_POLICY, draw: Draw | None = None) -> tuple[FallbackChain, ManualClock]:
    """A fresh chain, Alpha then Beta, on a new ManualClock at 0.

    Args: alpha, beta (lists of str replies and providers.Fault: each fake server's script; QUOTA in Alpha's
    script: that call raises errors.QuotaExhausted); failures_to_open (int) and cool_down_s (float, seconds):
    each breaker's settings; policy (retry.RetryPolicy: retries per provider); draw (failures.Draw or None:
    jitter for the waits). Returns (chain, clock).
    Example: chain, clock = lab([Fault(OVERLOAD), Fault(OVERLOAD)], ["Yes."])
    """
    clock = ManualClock()
    walls = {n for n, entry in enumerate(alpha, start=1) if entry == QUOTA}
    alpha_client: LLMClient = AlphaClient(timed(FakeAlphaServer([e for e in alpha if e != QUOTA]), clock,
                                                ALPHA_LATENCY_S))
    if walls:
        alpha_client = QuotaWall(alpha_client, clock, ALPHA_LATENCY_S, walls)
    routes = [Route("alpha", alpha_client, ALPHA_MODEL, CircuitBreaker("alpha", clock, failures_to_open, cool_down_s)),
              Route("beta", BetaClient(timed(FakeBetaServer(beta), clock, BETA_LATENCY_S)), BETA_MODEL,
                    CircuitBreaker("beta", clock, failures_to_open, cool_down_s))]
    return FallbackChain(routes, clock, policy, draw), clock


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
    at_s: float | None = None  # clock seconds when the last attempt ended, when the row pins it

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


class StreamScript(BaseModel):
    """A streamed row's script: model (str, its family sets the limits unless deadlines is given), deadlines
    (first_token_s, total_s in seconds, or None), usage_style, thinking_s, thinking_every_s, error_after."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)
    model: str
    deadlines: dict[str, float] | None = None
    usage_style: str = "at_end"
    thinking_s: float = Field(default=0.0, ge=0)
    thinking_every_s: float | None = Field(default=None, gt=0)
    error_after: int | None = Field(default=None, ge=0)
    reply_chars: int | None = Field(default=None, ge=1)  # None: Alpha's answer; else that many "x"

    @field_validator("usage_style")
    @classmethod
    def known_style(cls, value: str) -> str:
        if value not in USAGE_STYLES:
            raise ValueError(f"unknown usage_style {value[:40]!r}; known: {', '.join(USAGE_STYLES)}")
        return value


class StreamExpect(BaseModel):
    """What a streamed row expects: complete (bool), cut (str), counted_by (str), ttft_s (float seconds or None)
    and error (str, an error event's name, or "")."""

    model_config = ConfigDict(extra="forbid", strict=True)
    complete: bool
    cut: Literal["", "first_token_timeout", "deadline", "error_event"]
    counted_by: Literal["provider", "provider input, estimated output", "estimated"]
    ttft_s: float | None
    error: str = ""


class Row(BaseModel):
    """One row of scenarios.jsonl. Script entries: "answer" (the provider's answer), "quota" (Alpha only), or a
    providers.FAULTS kind. A row with `stream` is a streamed read with expect_stream; every other row is a
    chain run with expect."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)
    id: str = Field(pattern=r"^r[0-9]{2}$")
    alpha: list[str] = Field(default_factory=list)
    beta: list[str] = Field(default_factory=list)
    retry_after_s: float = Field(default=1.0, ge=0, lt=3600)  # the wait a rate_limit entry asks for, seconds
    long_input: bool = False  # a question of 40,000 characters: too long for either provider's context window
    failures_before: int = Field(default=0, ge=0)  # failures Alpha's breaker saw before the run, at clock 0
    wait_before_s: float = Field(default=0.0, ge=0, lt=3600)  # seconds on the clock between those and the run
    limits: Limits = Field(default_factory=Limits)
    jitter: list[float] | None = None  # fractions in [0, 1) for full jitter; None: no jitter
    probe_out: bool = False  # another caller holds the half-open breaker's probe when the run starts
    expect: Expect | None = None
    stream: StreamScript | None = None
    expect_stream: StreamExpect | None = None
    why: str = Field(min_length=1)

    @field_validator("alpha", "beta")
    @classmethod
    def known_entries(cls, value: list[str]) -> list[str]:
        for entry in value:
            if entry not in ("answer", QUOTA) and entry not in FAULTS:
                raise ValueError(f"unknown script entry {entry[:40]!r}; known: answer, quota, {', '.join(FAULTS)}")
        return value

    @model_validator(mode="after")
    def one_kind(self) -> Row:
        chain_row = self.stream is None and self.expect_stream is None and self.expect is not None
        stream_row = self.stream is not None and self.expect_stream is not None and self.expect is None
        if not (chain_row or stream_row):
            raise ValueError("a row has either expect (a chain run) or stream with expect_stream (a streamed read)")
        return self

    @field_validator("beta")
    @classmethod
    def no_quota_at_beta(cls, value: list[str]) -> list[str]:
        if QUOTA in value:
            raise ValueError("only Alpha's script may hold quota")
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
    return [ANSWERS[provider] if e == "answer" else e if e == QUOTA else
            Fault(e, wait_s=retry_after_s if e == RATE_LIMIT else 1.0) for e in entries]


def run_row(row: dict[str, Any]) -> tuple[ChainRun, FallbackChain]:
    """Run one row in a fresh lab: Alpha's breaker first sees failures_before failures, then the clock moves on
    by wait_before_s, then one request. Returns (run, chain). Raises pydantic.ValidationError for a bad row.
    Example: run, chain = run_row(load_rows()[0])
    """
    r = Row.model_validate(row)
    if r.stream is not None:
        raise ValueError(f"{r.id} is a streamed row: use run_stream_row")
    chain, clock = lab(_script(r.alpha, "alpha", r.retry_after_s), _script(r.beta, "beta", r.retry_after_s),
                       draw=ScriptedDraw(r.jitter) if r.jitter is not None else None)
    alpha_breaker = chain.routes[0].breaker
    for _ in range(r.failures_before):
        if alpha_breaker.allow():
            alpha_breaker.record(ok=False)
    clock.advance(r.wait_before_s)
    if r.probe_out:
        alpha_breaker.allow()  # another caller's probe: let through, its result not yet in
    question = "Can I return a kettle? " + ("Here is my whole order history: " + "x" * 40_000 if r.long_input else "")
    return chain.run(ask(question.strip()), RunBudget(**r.limits.model_dump(exclude_none=True)), run_id=r.id), chain


def run_stream_row(row: dict[str, Any]) -> StreamRead:
    """Read one streamed row: Alpha's answer (or reply_chars of "x") streamed to the row's model on a fresh clock
    (first event at 0.8 s, a piece every 0.05 s), under the model family's limits or the row's own.
    Raises: ValueError for a row without a stream; pydantic.ValidationError for a bad row.
    Example: run_stream_row(row).cut
    """
    r = Row.model_validate(row)
    if r.stream is None:
        raise ValueError(f"{r.id} is a chain row: use run_row")
    s = r.stream
    limits = Deadlines(**s.deadlines) if s.deadlines is not None else deadlines_for(s.model)
    request = replace(ask("Can I return a kettle?"), model=s.model)
    reply = ANSWERS["alpha"] if s.reply_chars is None else "x" * s.reply_chars
    clock = ManualClock()
    stream = FakeStream(request, clock, reply, STREAM_TTFT_S, STREAM_INTERVAL_S, usage_style=s.usage_style,
                        thinking_s=s.thinking_s, thinking_every_s=s.thinking_every_s, error_after=s.error_after)
    return read_stream(stream, clock, limits)


def attempts_of(run: ChainRun) -> list[str]:
    """Every attempt of a run as "provider:outcome". Example: attempts_of(run) -> ["alpha:ok"]"""
    return [f"{a.provider}:{a.outcome}" for a in run.attempts]


def check_row(row: dict[str, Any]) -> list[str]:
    """Run a row and list how the run differs from what the row expects (an empty list: it matches).

    Compares reason, answered_by, attempts, the number of alerts and Alpha's breaker state at the end.
    Example: check_row(load_rows()[0]) == []
    """
    r = Row.model_validate(row)
    if r.expect_stream is not None:
        read = run_stream_row(row)
        expect_s = r.expect_stream
        got_s = {"complete": read.complete, "cut": read.cut, "counted_by": read.counted_by,
                 "ttft_s": None if read.ttft_s is None else round(read.ttft_s, 6), "error": read.error}
        return [f"{row['id']} {name}: expected {getattr(expect_s, name)!r}, got {value!r}"
                for name, value in got_s.items() if getattr(expect_s, name) != value]
    expect = r.expect
    assert expect is not None, "Row.one_kind: a row without a stream has expect"
    run, chain = run_row(row)
    got = {"reason": run.reason, "answered_by": run.answered_by, "attempts": attempts_of(run),
           "alerts": len(run.alerts), "alpha_breaker": chain.routes[0].breaker.state}
    if expect.at_s is not None:
        got["at_s"] = round(run.attempts[-1].at_s, 6)
    return [f"{row['id']} {name}: expected {getattr(expect, name)!r}, got {value!r}"
            for name, value in got.items() if getattr(expect, name) != value]
