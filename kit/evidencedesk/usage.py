"""Cost and latency, measured without a wall clock: a manual clock, a price table, a usage ledger,
latency percentiles, and three client wrappers (slow, timed, and one with a per-call timeout).

Prices are in credits, an invented unit, read from kit/data/prices.json as Decimal (never float). Input
tokens a provider read from its prompt cache are priced apart, at the model's cached-input price: the
table's "cached_input" for that model, or else CACHED_INPUT_SHARE of its input price (an invented rule).
Time is in seconds on a ManualClock that only moves when code advances it, so tests never wait.
Token estimates (estimate_tokens, request_tokens) live in llm.py and are re-exported here; this module
imports llm.py, never the other way round. TimeoutClient is taught with the limits of budget.py (page
"Budgets, Caching, and Usage Limits") but lives here, beside SlowClient, since it reads the same clock.
Left out: real provider prices, real latency, and the controls that act on these numbers (budgets,
caching, retries and per-user limits: budget.py, cache.py, retry.py, limits.py).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from evidencedesk import DATA_DIR
from evidencedesk.llm import (  # noqa: F401 -- estimate_tokens, request_tokens: re-exported, their old home
    MESSAGE_OVERHEAD_TOKENS,
    LLMClient,
    LLMRequest,
    LLMResponse,
    LLMTimeout,
    estimate_tokens,
    request_tokens,
)
from evidencedesk.strictjson import read_json

PLAIN_DECIMAL = r"^[0-9]{1,20}(\.[0-9]{1,20})?$"  # the only price form: "0.000003"; no sign, exponent, space or _


def decimal_from_text(value: object) -> object:
    """A plain decimal string ("0.005", see PLAIN_DECIMAL) as a Decimal; any other value as it is, for the field's
    own type check. JSON has no decimal type, and a float is never money, so a data file writes credits as text.

    Raises: ValueError naming the text when it is not a plain decimal (a sign, an exponent, a space).
    Example: decimal_from_text("0.005") == Decimal("0.005")
    """
    if isinstance(value, str):
        if not re.fullmatch(PLAIN_DECIMAL, value):
            raise ValueError(f'must be a plain decimal string like "0.005", got {value[:20]!r}')
        return Decimal(value)
    return value


CreditsText = Annotated[Decimal, BeforeValidator(decimal_from_text)]  # credits, written in a data file as "0.005"
MODEL_NAME = re.compile(r"[!-~]{1,80}")  # a price table key: 1-80 visible ASCII characters, no spaces
CACHED_INPUT_SHARE = Decimal("0.1")  # invented: a cached input token costs a tenth of an input token by default


class PriceTableError(ValueError):
    """The price table file is missing or malformed; the message names the file and the entry."""


class UnknownModel(LookupError):
    """A model has no entry in the price table; the message names the model."""


class CallTimeout(LLMTimeout):
    """A call took longer than our own per-call limit. Attributes: seconds (measured), limit (seconds).

    An LLMTimeout (code "timeout", retryable), so callers handle it like a timeout the provider reports.
    Example: CallTimeout(2.5, 2.0)  # "call took 2.50 s, limit is 2.00 s"
    """

    def __init__(self, seconds: float, limit: float) -> None:
        super().__init__(f"call took {seconds:.2f} s, limit is {limit:.2f} s")
        self.seconds = seconds
        self.limit = limit


class ManualClock:
    """A clock that moves only when told to. Call it to read the time in seconds.

    Args: start (float, seconds). Raises (advance): ValueError for a negative or non-finite step (nan, inf),
    TypeError for a non-number.
    Example: clock = ManualClock(); clock.advance(1.5); clock() -> 1.5
    """

    def __init__(self, start: float = 0.0) -> None:
        if isinstance(start, bool) or not isinstance(start, int | float) or not math.isfinite(start):
            raise ValueError(f"start must be a finite number of seconds, got {start!r}")
        self.now = float(start)

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> float:
        """Move the clock forward by seconds (float, >= 0) and return the new time in seconds.

        Example: ManualClock(1.0).advance(0.5) -> 1.5
        """
        if isinstance(seconds, bool) or not isinstance(seconds, int | float):
            raise TypeError(f"seconds must be a number, got {type(seconds).__name__}")
        if not math.isfinite(seconds):  # nan would make every later time comparison false
            raise ValueError(f"seconds must be a finite number, got {seconds}")
        if seconds < 0:
            raise ValueError(f"a clock cannot go back: seconds={seconds}")
        self.now += seconds
        return self.now


@dataclass(frozen=True)
class Price:
    """Credits per token for one model: input, output and cached_input (Decimal, credits per token).

    cached_input prices the input tokens a provider read from its prompt cache; left out (None), it is
    input * CACHED_INPUT_SHARE.
    Example: Price(Decimal("0.000003"), Decimal("0.000006")).cached_input -> Decimal("0.0000003")
    """

    input: Decimal
    output: Decimal
    cached_input: Decimal | None = None

    def __post_init__(self) -> None:
        if self.cached_input is None:
            object.__setattr__(self, "cached_input", self.input * CACHED_INPUT_SHARE)


class _PriceEntry(BaseModel):
    """One entry as written in the file: input and output, and cached_input if the model has its own, each a
    plain decimal string."""

    model_config = ConfigDict(extra="forbid", strict=True)
    input: str = Field(pattern=PLAIN_DECIMAL)
    output: str = Field(pattern=PLAIN_DECIMAL)
    cached_input: str | None = Field(default=None, pattern=PLAIN_DECIMAL)


def _price(path: Path, model: str, entry: object) -> Price:
    """Parse one entry of the price table, or raise PriceTableError naming file and entry."""
    where = f"{path.name}: entry {model[:40]!r}"
    if not MODEL_NAME.fullmatch(model):
        raise PriceTableError(f"{where}: a model name is 1-80 visible ASCII characters, without spaces")
    try:
        checked = _PriceEntry.model_validate(entry)
    except ValidationError as exc:
        raise PriceTableError(f"{where} must be an object with 'input' and 'output' (and, if the model has its own, "
                              f"'cached_input'), each a string holding a plain non-negative decimal, like "
                              f"\"0.000003\"") from exc
    cached = Decimal(checked.cached_input) if checked.cached_input is not None else None
    return Price(Decimal(checked.input), Decimal(checked.output), cached)


def load_prices(path: Path | str | None = None) -> dict[str, Price]:
    """Load the price table: {"model": {"input": "0.000003", "output": "0.000006"}} in credits per token.

    An entry may add "cached_input" (credits per cached input token); without it, Price applies CACHED_INPUT_SHARE.
    Args: path (Path, str or None) -- defaults to kit/data/prices.json.
    Returns: dict model name -> Price (Decimal values).
    Raises: PriceTableError naming the file (unreadable, not strict JSON, repeated model names, not an
    object) or the bad entry (odd model name; a price that is not a plain decimal string).
    Example: load_prices()["fake-agent-1"].input -> Decimal("0.000003")
    """
    path = Path(path) if path is not None else DATA_DIR / "prices.json"
    try:
        raw = read_json(path)
    except (OSError, ValueError) as exc:
        raise PriceTableError(f"{path.name}: cannot read a JSON price table ({type(exc).__name__}: {exc})") from exc
    if not isinstance(raw, dict) or not raw:
        raise PriceTableError(f"{path.name}: the price table must be a non-empty JSON object")
    return {model: _price(path, model, entry) for model, entry in raw.items()}


@dataclass(frozen=True)
class UsageRecord:
    """One model call as the ledger sees it.

    Args: call_id (str); model (str); input_tokens, output_tokens (int, tokens, >= 0); cache_hit (bool):
    True when a response cache answered and no provider was called, so both token counts are 0;
    cached_input_tokens (int, tokens, 0 to input_tokens): the part of input_tokens that the provider read
    from its prompt cache.
    Raises: ValueError naming the field when a token count is not a non-negative int, cache_hit is not a
    bool, a cache hit reports tokens, or cached_input_tokens exceeds input_tokens.
    Example: UsageRecord("run-1", "fake-agent-1", 250, 40); UsageRecord("c2", "m", 410, 12, cached_input_tokens=384)
    """

    call_id: str
    model: str
    input_tokens: int
    output_tokens: int
    cache_hit: bool = False
    cached_input_tokens: int = 0

    def __post_init__(self) -> None:
        for name in ("input_tokens", "output_tokens", "cached_input_tokens"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be a non-negative int, got {value!r}")
        if not isinstance(self.cache_hit, bool):
            raise ValueError(f"cache_hit must be a bool, got {self.cache_hit!r}")
        if self.cache_hit and (self.input_tokens or self.output_tokens):
            raise ValueError("cache_hit: a cache hit sends nothing to a provider, so its token counts must be 0")
        if self.cached_input_tokens > self.input_tokens:
            raise ValueError(f"cached_input_tokens ({self.cached_input_tokens}) must not exceed input_tokens "
                             f"({self.input_tokens})")


def cost_of(record: UsageRecord, table: dict[str, Price]) -> Decimal:
    """Cost of one call in credits: input_tokens * input price + output_tokens * output price, except that
    the input tokens read from a prompt cache (cached_input_tokens, 0 unless a provider cached) cost the
    cached-input price instead.

    Args: record (UsageRecord); table (dict model -> Price, credits per token).
    Returns: Decimal, credits. Raises: UnknownModel naming the model when it has no price.
    Example: cost_of(UsageRecord("c1", "fake-agent-1", 250, 40), load_prices()) -> Decimal("0.000990")
    """
    price = table.get(record.model)
    if price is None:
        raise UnknownModel(f"no price for model {record.model!r}")
    cached = record.cached_input_tokens  # the input tokens a provider read from its prompt cache
    full = price.input * (record.input_tokens - cached) + price.output * record.output_tokens
    return full + price.cached_input * cached if cached else full  # a 0 term would add a decimal place


def record_usage(request: LLMRequest, response: LLMResponse, call_id: str) -> UsageRecord:
    """Turn one call into a UsageRecord: the request's model, the response's token counts (cached input included).

    Args: request (LLMRequest); response (LLMResponse); call_id (str).
    Returns: UsageRecord. Raises: ValueError if the response reports negative tokens, or more cached input
    tokens than input tokens.
    Example: record_usage(request, response, "run-1") -> UsageRecord("run-1", "scripted-1", 7, 1)
    """
    usage = response.usage
    return UsageRecord(call_id, request.model, usage.input_tokens, usage.output_tokens,
                       cached_input_tokens=usage.cached_input_tokens)


@dataclass(frozen=True)
class Summary:
    """Totals of a ledger: calls (int, cache hits included), input_tokens, output_tokens, tokens (int, tokens),
    cost (Decimal, credits), cache_hits (int, calls a cache answered for 0 credits), cached_input_tokens
    (int, tokens: the part of input_tokens that providers read from their prompt caches)."""

    calls: int
    input_tokens: int
    output_tokens: int
    tokens: int
    cost: Decimal
    cache_hits: int = 0
    cached_input_tokens: int = 0


class Ledger:
    """Keeps every UsageRecord of a run, in order, and totals them.

    Args: table (dict model -> Price or None) -- defaults to load_prices().
    Raises (add): TypeError for a non-UsageRecord, UnknownModel for a model without a price (checked on add).
    Example: ledger = Ledger(); ledger.add(UsageRecord("c1", "fake-agent-1", 250, 40)); ledger.summary().calls -> 1
    """

    def __init__(self, table: dict[str, Price] | None = None) -> None:
        self.table = table if table is not None else load_prices()
        self._records: list[UsageRecord] = []

    @property
    def records(self) -> tuple[UsageRecord, ...]:
        """Every record added so far, in order (a tuple, so callers cannot edit the ledger)."""
        return tuple(self._records)

    def add(self, record: UsageRecord) -> None:
        """Append one record; its model must have a price."""
        if not isinstance(record, UsageRecord):
            raise TypeError(f"record must be a UsageRecord, got {type(record).__name__}")
        cost_of(record, self.table)  # fail now, not at summary time
        self._records.append(record)

    def summary(self) -> Summary:
        """Totals over all records. Returns: Summary (tokens and credits)."""
        tokens_in = sum(r.input_tokens for r in self._records)
        tokens_out = sum(r.output_tokens for r in self._records)
        cost = sum((cost_of(r, self.table) for r in self._records), Decimal(0))
        hits = sum(r.cache_hit for r in self._records)
        cached = sum(r.cached_input_tokens for r in self._records)
        return Summary(len(self._records), tokens_in, tokens_out, tokens_in + tokens_out, cost, hits, cached)


def percentile(values: Sequence[float], p: float) -> float:
    """The p-th percentile by the nearest-rank method: the smallest value with at least p% of values <= it.

    Always one of the values measured, never an average of two (statistics.quantiles interpolates).
    Definition: "Percentile", nearest-rank method, https://en.wikipedia.org/wiki/Percentile (read 2026-10-12).
    Args: values (sequence of float, e.g. seconds; not empty, all finite); p (float, percent, 0 < p <= 100).
    Returns: float, one of the values. Raises: ValueError naming values or p when either is out of range.
    Example: percentile([0.5, 0.5, 0.6, 5.4], 50) -> 0.5
    """
    if not values or not all(isinstance(v, int | float) and math.isfinite(v) for v in values):
        raise ValueError("values must be a non-empty sequence of finite numbers")
    if isinstance(p, bool) or not isinstance(p, int | float) or not 0 < p <= 100:
        raise ValueError(f"p must be a percent with 0 < p <= 100, got {p!r}")
    ordered = sorted(values)
    rank = math.ceil(p * len(ordered) / 100)  # 1-based; p * n first, so 95 * 20 / 100 is exactly 19
    return ordered[rank - 1]


@dataclass(frozen=True)
class LatencySummary:
    """Latency of a run of calls, in seconds: calls (int), mean_s, p50_s, p95_s, max_s (float, seconds)."""

    calls: int
    mean_s: float
    p50_s: float
    p95_s: float
    max_s: float


def latency_summary(seconds: Sequence[float]) -> LatencySummary:
    """Mean, p50, p95 and max of call durations (seconds). Raises ValueError as percentile does.

    Example: latency_summary([0.5, 0.5, 0.6, 5.4]).p95_s -> 5.4
    """
    p50, p95 = percentile(seconds, 50), percentile(seconds, 95)  # these check the values first
    return LatencySummary(len(seconds), sum(seconds) / len(seconds), p50, p95, max(seconds))


class SlowClient:
    """Wraps a client and makes every call take simulated time on the clock.

    Each complete() advances clock by base_s + per_output_token_s * output tokens (seconds).
    Args: inner (LLMClient); clock (ManualClock); base_s (float, seconds per call);
    per_output_token_s (float, seconds per output token).
    Raises: ValueError for a delay that is negative, not finite or not a number; whatever inner.complete raises.
    Example: SlowClient(ScriptedClient(["ok"]), clock, base_s=0.4).complete(request)  # clock moves 0.41 s
    """

    def __init__(self, inner: LLMClient, clock: ManualClock, base_s: float, per_output_token_s: float = 0.01) -> None:
        if not all(isinstance(d, int | float) and not isinstance(d, bool) and 0 <= d < math.inf
                   for d in (base_s, per_output_token_s)):
            raise ValueError(f"delays must be finite numbers >= 0, got base_s={base_s!r}, "
                             f"per_output_token_s={per_output_token_s!r}")
        self.inner, self.clock = inner, clock
        self.base_s, self.per_output_token_s = base_s, per_output_token_s

    def complete(self, request: LLMRequest) -> LLMResponse:
        """Run the inner call, then advance the clock by the simulated latency (seconds)."""
        response = self.inner.complete(request)
        self.clock.advance(self.base_s + self.per_output_token_s * response.usage.output_tokens)
        return response


class TimedClient:
    """Wraps a client and records how long each call took on the clock, failed calls included.

    Args: inner (LLMClient); clock (callable returning seconds, e.g. ManualClock).
    `seconds` holds one duration per call (float, seconds), in order.
    Example: timed = TimedClient(SlowClient(inner, clock, 0.4), clock); timed.complete(request); timed.seconds
    """

    def __init__(self, inner: LLMClient, clock: ManualClock) -> None:
        self.inner, self.clock = inner, clock
        self.seconds: list[float] = []

    def complete(self, request: LLMRequest) -> LLMResponse:
        """Run the inner call and note its duration (seconds), even when it raises."""
        start = self.clock()
        try:
            return self.inner.complete(request)
        finally:
            self.seconds.append(self.clock() - start)


class TimeoutClient:
    """Wraps a client and raises CallTimeout when one call took longer than timeout_s on the clock.

    The simulated call has finished when the time is measured, so a wrapper inside this one has already
    recorded (and a provider may bill) the late call; a real client would cancel it at the limit instead.
    Args: inner (LLMClient); clock (ManualClock); timeout_s (float, seconds, > 0).
    Raises: ValueError for a timeout_s that is not a finite number > 0; CallTimeout (from complete).
    Example: TimeoutClient(SlowClient(inner, clock, 3.0), clock, timeout_s=2.0).complete(request)  # CallTimeout
    """

    def __init__(self, inner: LLMClient, clock: ManualClock, timeout_s: float) -> None:
        if isinstance(timeout_s, bool) or not isinstance(timeout_s, int | float) or not 0 < timeout_s < math.inf:
            raise ValueError(f"timeout_s must be a finite number of seconds > 0, got {timeout_s!r}")
        self.inner, self.clock, self.timeout_s = inner, clock, timeout_s

    def complete(self, request: LLMRequest) -> LLMResponse:
        """Run the inner call; raise CallTimeout if the clock moved more than timeout_s (seconds) during it."""
        start = self.clock()
        response = self.inner.complete(request)
        elapsed = self.clock() - start
        if elapsed > self.timeout_s:
            raise CallTimeout(elapsed, self.timeout_s)
        return response
