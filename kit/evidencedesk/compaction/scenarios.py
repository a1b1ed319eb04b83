"""The caching and compaction lab, and its table of scenarios: what hits the prompt cache, and what compaction keeps.

variant_request() builds the lab's request (the rules, the triage tools and the goal of steps.py) with one
thing that may change between calls, early or late in the prompt: the time, the user's name, the order of
the tool definitions. kit/data/compaction/scenarios.jsonl holds one row per line, of five kinds: "cache"
(calls of one variant through a PrefixCache on a ManualClock: each call's outcome, and the cost of the
calls when the row gives one), "clip" (the run's six observations through clip_old), "summary" (the four
older observations through a Summariser over a ScriptedClient that replies with the row's text), "budget"
(compact under a budget, with the same scripted summariser) and "run" (steps.run_steps with a Setup: its
answer). A cache row may also expect the tokens each call wrote and the cost under a 5-minute write premium
(cachewrites.py), as when a wait longer than the cache's lifetime makes the next call write again.
check_row() says how a run differs from its row. Left out: real providers, models and prices.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from evidencedesk.calling.definitions import offered
from evidencedesk.compaction.cachewrites import WRITE_SHARE_5M, cost_with_writes
from evidencedesk.compaction.history import (
    LEVELS,
    Clipped,
    OverBudget,
    Summariser,
    clip_old,
    compact,
)
from evidencedesk.compaction.promptcache import CachingProvider, PrefixCache
from evidencedesk.compaction.steps import COMPACTION_DATA, GOAL, MODEL, RULES, SETUPS, Setup, lab_gate, run_steps
from evidencedesk.llm import LLMRequest, Message, ScriptedClient
from evidencedesk.strictjson import read_jsonl
from evidencedesk.usage import PLAIN_DECIMAL, Ledger, ManualClock, record_usage

VARIANTS = ("stable", "time_early", "time_late", "user_early", "user_late", "tools_reordered", "short")
USERS = ("kwame", "lena", "ana")  # the user of call k is USERS[k % 3], for the user_* variants
OVER_BUDGET = "over_budget"  # a budget row whose history does not fit even summarised
START_S = 9 * 3600  # the lab's clock reads 09:00:00 at 0 seconds


class ScenarioError(ValueError):
    """A row of the compaction table is malformed; the message names the line and the field."""


def clock_text(clock: ManualClock) -> str:
    """The time on the lab's clock (ManualClock) as HH:MM:SS, 09:00:00 at 0 seconds.

    Example: clock_text(ManualClock(65)) -> "09:01:05"
    """
    seconds = int(START_S + clock())
    return f"{seconds // 3600 % 24:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def variant_request(variant: str, call: int, clock: ManualClock) -> LLMRequest:
    """The lab's request for call number `call` (int, from 1) of a variant (one of VARIANTS), at clock's time.

    stable: the rules, the goal, the triage tools, nothing that changes. time_early / user_early: a line
    with the time or the user's name opens the system message. time_late / user_late: the same line comes
    as the last message instead. tools_reordered: on call 2 the tool definitions come in the opposite order.
    short: one short question and no tools, under the cache's minimum.
    Raises: ValueError naming variant when unknown. Example: variant_request("time_late", 2, clock).messages[-1]
    """
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, got {str(variant)[:40]!r}")
    if variant == "short":
        return LLMRequest(MODEL, [Message("user", "Is T-601 still open?")], 200)
    gate = lab_gate()
    tools = offered(gate.registry, gate.policy, "triage")
    if variant == "tools_reordered" and call == 2:
        tools = tuple(reversed(tools))
    line = {"time": f"Time: {clock_text(clock)}", "user": f"You are helping {USERS[call % len(USERS)]}."}
    changing = line.get(variant.split("_")[0], "")
    rules, last = RULES, []
    if variant.endswith("_early"):
        rules = f"{changing}\n{RULES}"
    elif variant.endswith("_late"):
        last = [Message("user", changing)]
    return LLMRequest(MODEL, [Message("system", rules), Message("user", GOAL), *last], 200, tools=tools)


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)
    id: str = Field(pattern=r"^c[0-9]{2}$")
    why: str = Field(min_length=1)


class CacheExpect(BaseModel):
    """What a cache row expects: each call's outcome, and optionally the calls' total cost in credits (a plain
    decimal string), the tokens each call wrote to the cache (written), and the total cost when writes cost
    cachewrites.WRITE_SHARE_5M times the input price (cost_5m, a plain decimal string).

    Raises: pydantic.ValidationError naming the field.
    Example: CacheExpect(outcomes=["miss", "hit"], written=[384, 0])
    """

    model_config = ConfigDict(extra="forbid", strict=True)
    outcomes: list[Literal["hit", "miss", "too_short"]] = Field(min_length=1)
    cost: str | None = Field(default=None, pattern=PLAIN_DECIMAL)
    written: list[int] | None = None
    cost_5m: str | None = Field(default=None, pattern=PLAIN_DECIMAL)


class CacheRow(_Row):
    """Calls of one variant, wait_s seconds apart on the clock, through one PrefixCache."""

    kind: Literal["cache"]
    variant: str
    calls: int = Field(ge=1, le=10)
    wait_s: float = Field(ge=0, lt=86400)
    expect: CacheExpect

    @field_validator("variant")
    @classmethod
    def known_variant(cls, value: str) -> str:
        if value not in VARIANTS:
            raise ValueError(f"unknown variant {value[:40]!r}; known: {', '.join(VARIANTS)}")
        return value


class ClipExpect(BaseModel):
    """What a clip row expects: the ids of the observations kept whole and of those clipped (lists of str, in
    order), and how many clipped texts end with the marker (markers, int >= 0).

    Raises: pydantic.ValidationError naming the field.
    Example: ClipExpect(whole=["o5", "o6"], clipped=["o1"], markers=1)
    """

    model_config = ConfigDict(extra="forbid", strict=True)
    whole: list[str]
    clipped: list[str]
    markers: int = Field(ge=0)


class ClipRow(_Row):
    """The run's six observations through clip_old(keep_last, clip_tokens)."""

    kind: Literal["clip"]
    keep_last: int = Field(ge=0, le=10)
    clip_tokens: int = Field(ge=1, le=400)
    expect: ClipExpect


class SummaryExpect(BaseModel):
    """What a summary row expects: the summary's source tag (str), the role of the message it becomes (a user
    message, never the system's), and the names of its injection signals (list of str, in order).

    Raises: pydantic.ValidationError naming the field.
    Example: SummaryExpect(source="summary:o1,o2,o3,o4", role="user", signals=[])
    """

    model_config = ConfigDict(extra="forbid", strict=True)
    source: str
    role: Literal["user", "system", "assistant", "tool"]
    signals: list[str]


class SummaryRow(_Row):
    """The four older observations summarised by a ScriptedClient that replies `summary`."""

    kind: Literal["summary"]
    summary: str = Field(min_length=1, max_length=480)
    expect: SummaryExpect


class BudgetExpect(BaseModel):
    """What a budget row expects: the level compact() chose, one of history.LEVELS, or OVER_BUDGET when it
    raised OverBudget.

    Raises: pydantic.ValidationError naming level when it is not one of those. Example: BudgetExpect(level="clipped")
    """

    model_config = ConfigDict(extra="forbid", strict=True)
    level: str

    @field_validator("level")
    @classmethod
    def known_level(cls, value: str) -> str:
        if value not in (*LEVELS, OVER_BUDGET):
            raise ValueError(f"unknown level {value[:40]!r}; known: {', '.join((*LEVELS, OVER_BUDGET))}")
        return value


class BudgetRow(_Row):
    """compact() of the run's six observations under budget_tokens, with a scripted summariser."""

    kind: Literal["budget"]
    budget_tokens: int = Field(ge=0, le=100_000)
    summary: str = Field(min_length=1, max_length=480)
    expect: BudgetExpect


class RunExpect(BaseModel):
    """What a run row expects: the run's final answer (str) and how many model calls it made (steps, int >= 1).

    Raises: pydantic.ValidationError naming the field. Example: RunExpect(answer="T-601: open; T-602: open.", steps=7)
    """

    model_config = ConfigDict(extra="forbid", strict=True)
    answer: str
    steps: int = Field(ge=1)


class RunRow(_Row):
    """steps.run_steps with one of steps.SETUPS, and whether the task state is sent."""

    kind: Literal["run"]
    setup: Literal["none", "caching", "compaction", "both"]
    state: bool
    expect: RunExpect


Row = Annotated[CacheRow | ClipRow | SummaryRow | BudgetRow | RunRow, Field(discriminator="kind")]


class _Table(BaseModel):
    row: Row


def _check(row: Any) -> BaseModel:
    return _Table.model_validate({"row": row}).row


def load_rows(path: str | Path | None = None) -> list[dict[str, Any]]:
    """Read and validate the table, one strict JSON object per line (blank lines skipped).

    path (str or Path; default kit/data/compaction/scenarios.jsonl). Returns the rows as dicts, in order.
    Raises: ScenarioError naming the file, and the line and the field of a bad row or a repeated id.
    Example: load_rows()[0]["id"] == "c01"
    """
    path = Path(path) if path is not None else COMPACTION_DATA / "scenarios.jsonl"
    table = read_jsonl(path, _check, ScenarioError, "compaction table")
    return [row for _, row, _ in table]


def _observations() -> list[Any]:
    return list(run_steps(SETUPS["none"]).observations)


def run_row(row: dict[str, Any]) -> dict[str, Any]:
    """Play one row in a fresh lab and report what its kind produces (the same keys as its expect).

    Raises: pydantic.ValidationError for a malformed row. Example: run_row(load_rows()[0])["outcomes"]
    """
    r = _check(row)
    if isinstance(r, CacheRow):
        clock, ledger = ManualClock(), Ledger()
        provider = CachingProvider(ScriptedClient(["Noted."] * r.calls, model=MODEL), PrefixCache(clock))
        for call in range(1, r.calls + 1):
            request = variant_request(r.variant, call, clock)
            ledger.add(record_usage(request, provider.complete(request), f"{r.id}-{call}"))
            clock.advance(r.wait_s)
        got: dict[str, Any] = {"outcomes": [read.outcome for read in provider.reads]}
        if r.expect.cost is not None:
            got["cost"] = str(ledger.summary().cost)
        if r.expect.written is not None:
            got["written"] = [read.written_tokens for read in provider.reads]
        if r.expect.cost_5m is not None:
            pairs = zip(ledger.records, provider.reads, strict=True)
            got["cost_5m"] = str(sum((cost_with_writes(rec, read.written_tokens, ledger.table, WRITE_SHARE_5M)
                                      for rec, read in pairs), Decimal(0)))
        return got
    if isinstance(r, ClipRow):
        items = clip_old(_observations(), r.keep_last, r.clip_tokens)
        clipped = [i for i in items if isinstance(i, Clipped)]
        return {"whole": [i.id for i in items if not isinstance(i, Clipped)], "clipped": [i.id for i in clipped],
                "markers": sum(i.text.endswith("tokens cut]") for i in clipped)}
    if isinstance(r, SummaryRow):
        summary = Summariser(ScriptedClient([r.summary], model=MODEL))(_observations()[:4])
        (message,) = summary.messages()
        return {"source": summary.source, "role": message.role, "signals": summary.signals}
    if isinstance(r, BudgetRow):
        summariser = Summariser(ScriptedClient([r.summary], model=MODEL))
        try:
            return {"level": compact(_observations(), r.budget_tokens, summarise=summariser).level}
        except OverBudget:
            return {"level": OVER_BUDGET}
    assert isinstance(r, RunRow)
    base = SETUPS[r.setup]
    run = run_steps(Setup(caching=base.caching, compaction=base.compaction, state=r.state))
    return {"answer": run.answer, "steps": len(run.steps)}


def check_row(row: dict[str, Any]) -> list[str]:
    """Run a row and list how the run differs from what it expects (an empty list: it matches).

    Example: check_row(load_rows()[0]) == []
    """
    expect = _check(row).expect.model_dump(exclude_none=True)  # type: ignore[attr-defined]
    got = run_row(row)
    return [f"{row['id']} {name}: expected {expect[name]!r}, got {got.get(name)!r}" for name in expect
            if expect[name] != got.get(name)]

