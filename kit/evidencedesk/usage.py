"""Cost and latency, measured without a wall clock: a manual clock, a price table, a usage ledger,
and two client wrappers (one slow, one with a per-call timeout).

Prices are in credits, an invented unit, read from kit/data/prices.json as Decimal (never float).
Time is in seconds on a ManualClock that only moves when code advances it, so tests never wait.
Left out: real provider prices, real latency, caching, retries and rate limits.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evidencedesk import DATA_DIR
from evidencedesk.llm import LLMClient, LLMRequest, LLMResponse, estimate_tokens
from evidencedesk.strictjson import read_json

MESSAGE_OVERHEAD_TOKENS = 4  # per message, for role and separators: part of the estimate, not measured
PLAIN_DECIMAL = r"^[0-9]{1,20}(\.[0-9]{1,20})?$"  # the only price form: "0.000003"; no sign, exponent, space or _
MODEL_NAME = re.compile(r"[!-~]{1,80}")  # a price table key: 1-80 visible ASCII characters, no spaces


class PriceTableError(ValueError):
    """The price table file is missing or malformed; the message names the file and the entry."""


class UnknownModel(LookupError):
    """A model has no entry in the price table; the message names the model."""


class CallTimeout(RuntimeError):
    """A call took longer than its limit. Attributes: seconds (measured), limit (seconds)."""

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
    """Credits per token for one model: input and output (Decimal, credits per token).

    Example: Price(Decimal("0.000003"), Decimal("0.000006"))
    """

    input: Decimal
    output: Decimal


class _PriceEntry(BaseModel):
    """One entry as written in the file: exactly input and output, each a plain decimal string."""

    model_config = ConfigDict(extra="forbid", strict=True)
    input: str = Field(pattern=PLAIN_DECIMAL)
    output: str = Field(pattern=PLAIN_DECIMAL)


def _price(path: Path, model: str, entry: object) -> Price:
    """Parse one entry of the price table, or raise PriceTableError naming file and entry."""
    where = f"{path.name}: entry {model[:40]!r}"
    if not MODEL_NAME.fullmatch(model):
        raise PriceTableError(f"{where}: a model name is 1-80 visible ASCII characters, without spaces")
    try:
        checked = _PriceEntry.model_validate(entry)
    except ValidationError as exc:
        raise PriceTableError(f"{where} must be an object with exactly 'input' and 'output', each a string "
                              f"holding a plain non-negative decimal, like \"0.000003\"") from exc
    return Price(Decimal(checked.input), Decimal(checked.output))


def load_prices(path: Path | str | None = None) -> dict[str, Price]:
    """Load the price table: {"model": {"input": "0.000003", "output": "0.000006"}} in credits per token.

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

    Args: call_id (str); model (str); input_tokens, output_tokens (int, tokens, >= 0).
    Raises: ValueError naming the field when a token count is not a non-negative int.
    Example: UsageRecord("run-1", "fake-agent-1", 250, 40)
    """

    call_id: str
    model: str
    input_tokens: int
    output_tokens: int

    def __post_init__(self) -> None:
        for name in ("input_tokens", "output_tokens"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be a non-negative int, got {value!r}")


def cost_of(record: UsageRecord, table: dict[str, Price]) -> Decimal:
    """Cost of one call in credits: input_tokens * input price + output_tokens * output price.

    Args: record (UsageRecord); table (dict model -> Price, credits per token).
    Returns: Decimal, credits. Raises: UnknownModel naming the model when it has no price.
    Example: cost_of(UsageRecord("c1", "fake-agent-1", 250, 40), load_prices()) -> Decimal("0.000990")
    """
    price = table.get(record.model)
    if price is None:
        raise UnknownModel(f"no price for model {record.model!r}")
    return price.input * record.input_tokens + price.output * record.output_tokens


def request_tokens(request: LLMRequest) -> int:
    """Estimate the input tokens of a request: sum of estimate_tokens(content) + 4 per message.

    An estimate for budgeting before a call, not a tokenizer count.
    Args: request (LLMRequest). Returns: int, tokens.
    Example: request_tokens(LLMRequest("scripted-1", [Message("user", "hello world")], 10)) -> 7
    """
    return sum(estimate_tokens(m.content) + MESSAGE_OVERHEAD_TOKENS for m in request.messages)


def record_usage(request: LLMRequest, response: LLMResponse, call_id: str) -> UsageRecord:
    """Turn one call into a UsageRecord: the request's model, the response's token counts.

    Args: request (LLMRequest); response (LLMResponse); call_id (str).
    Returns: UsageRecord. Raises: ValueError if the response reports negative tokens.
    Example: record_usage(request, response, "run-1") -> UsageRecord("run-1", "scripted-1", 7, 1)
    """
    return UsageRecord(call_id, request.model, response.usage.input_tokens, response.usage.output_tokens)


@dataclass(frozen=True)
class Summary:
    """Totals of a ledger: calls (int), input_tokens, output_tokens, tokens (int, tokens), cost (Decimal, credits)."""

    calls: int
    input_tokens: int
    output_tokens: int
    tokens: int
    cost: Decimal


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
        return Summary(len(self._records), tokens_in, tokens_out, tokens_in + tokens_out, cost)


class SlowClient:
    """Wraps a client and makes every call take simulated time on the clock.

    Each complete() advances clock by base_s + per_output_token_s * output tokens (seconds).
    Args: inner (LLMClient); clock (ManualClock); base_s (float, seconds per call);
    per_output_token_s (float, seconds per output token).
    Raises: ValueError for a negative delay; whatever inner.complete raises.
    Example: SlowClient(ScriptedClient(["ok"]), clock, base_s=0.4).complete(request)  # clock moves 0.41 s
    """

    def __init__(self, inner: LLMClient, clock: ManualClock, base_s: float, per_output_token_s: float = 0.01) -> None:
        if base_s < 0 or per_output_token_s < 0:
            raise ValueError(f"delays must be >= 0, got base_s={base_s}, per_output_token_s={per_output_token_s}")
        self.inner, self.clock = inner, clock
        self.base_s, self.per_output_token_s = base_s, per_output_token_s

    def complete(self, request: LLMRequest) -> LLMResponse:
        """Run the inner call, then advance the clock by the simulated latency (seconds)."""
        response = self.inner.complete(request)
        self.clock.advance(self.base_s + self.per_output_token_s * response.usage.output_tokens)
        return response


class TimeoutClient:
    """Wraps a client and raises CallTimeout when one call took longer than timeout_s on the clock.

    The simulated call has finished when the time is measured; a real client would cancel it instead.
    Args: inner (LLMClient); clock (ManualClock); timeout_s (float, seconds, > 0).
    Raises: ValueError for timeout_s <= 0; CallTimeout (from complete) with seconds and limit.
    Example: TimeoutClient(SlowClient(inner, clock, 3.0), clock, timeout_s=2.0).complete(request)  # CallTimeout
    """

    def __init__(self, inner: LLMClient, clock: ManualClock, timeout_s: float) -> None:
        if timeout_s <= 0:
            raise ValueError(f"timeout_s must be > 0, got {timeout_s}")
        self.inner, self.clock, self.timeout_s = inner, clock, timeout_s

    def complete(self, request: LLMRequest) -> LLMResponse:
        """Run the inner call; raise CallTimeout if the clock moved more than timeout_s (seconds) during it."""
        start = self.clock()
        response = self.inner.complete(request)
        elapsed = self.clock() - start
        if elapsed > self.timeout_s:
            raise CallTimeout(elapsed, self.timeout_s)
        return response
