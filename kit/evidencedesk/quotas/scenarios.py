"""The scenario table of this page: kit/data/quotas/scenarios.jsonl, one traffic pattern per row.

Each row plays a few bursts of calls through a small Gateway and says what one tenant (`watch`) must get:
how many of its calls started at once, waited in a queue, got a 429, were refused for cost or were too large
for any bucket. Every tenant has ROW_PLAN unless the row overrides fields of it; bursts are arithmetic
(count calls, one every every_s seconds from at_s). check_row() returns the mismatches; [] means the row holds.
Left out: rows with retries, and the many-tenant run, which is simulate.py's.
"""

from __future__ import annotations

import json
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

from evidencedesk.quotas.fairqueue import Call
from evidencedesk.quotas.gateway import (
    OVER_BUDGET,
    QUEUED,
    RATE_LIMITED,
    STARTED,
    TOO_LARGE,
    Design,
    Gateway,
    Plan,
)
from evidencedesk.tenancy.context import TenantContext
from evidencedesk.usage import ManualClock

QUOTAS_DATA = Path(__file__).resolve().parents[2] / "data" / "quotas"
ROW_PLAN = Plan(rpm=6, tpm=6_000, concurrency=2, queue_limit=3, daily_cap=Decimal("1"))
COLUMNS = (STARTED, QUEUED, RATE_LIMITED, OVER_BUDGET, TOO_LARGE)
FIELDS = {"id", "pattern", "design", "slots", "plans", "bursts", "watch", "expect", "why"}


def load_rows(path: str | Path | None = None) -> list[dict[str, Any]]:
    """The rows of the table (default kit/data/quotas/scenarios.jsonl). Raises ValueError naming a bad line."""
    path = Path(path) if path is not None else QUOTAS_DATA / "scenarios.jsonl"
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            row = json.loads(line)
            assert isinstance(row, dict) and set(row) == FIELDS and set(row["expect"]) == set(COLUMNS)
        except (ValueError, AssertionError):
            raise ValueError(f"{path.name}: line {number}: expected a row with exactly {sorted(FIELDS)}, "
                             f"and expect holding {list(COLUMNS)}") from None
        rows.append(row)
    return rows


def calls_of(row: dict[str, Any]) -> list[Call]:
    """The row's calls, in arrival order (by second, then burst order). Example: len(calls_of(row))"""
    timed = []
    for order, burst in enumerate(row["bursts"]):
        for n in range(burst["count"]):
            timed.append((burst["at_s"] + n * burst["every_s"], order, n, burst))
    calls = []
    for number, (second, _, _, burst) in enumerate(sorted(timed, key=lambda t: t[:3])):
        calls.append(Call(id=number, context=TenantContext(tenant=burst["tenant"], user="api"), arrival_s=second,
                          input_tokens=burst["input_tokens"], max_tokens=burst["max_tokens"]))
    return calls


def plan_of(overrides: dict[str, Any]) -> Plan:
    """ROW_PLAN with the row's overrides (daily_cap as a decimal string, "0.01"), checked as any Plan is.

    Raises pydantic.ValidationError naming a bad field. Example: plan_of({"rpm": 60}).rpm -> 60
    """
    fields = {**ROW_PLAN.model_dump(), **overrides}
    if isinstance(fields["daily_cap"], str):
        fields["daily_cap"] = Decimal(fields["daily_cap"])
    return Plan.model_validate(fields)


def run_row(row: dict[str, Any]) -> dict[str, int]:
    """Play the row; returns {outcome: count} over the watched tenant's calls, for every COLUMNS outcome."""
    calls = calls_of(row)
    tenants = dict.fromkeys(c.tenant for c in calls)
    plans = {t: plan_of(row["plans"].get(t, {})) for t in tenants}
    clock = ManualClock()
    gateway = Gateway(plans, clock, row["slots"], Design(**row["design"]))
    got: Counter[str] = Counter()
    last = max(c.arrival_s for c in calls)
    for second in range(last + 1):
        gateway.step()
        for call in (c for c in calls if c.arrival_s == second):
            decision = gateway.arrive(call)
            if call.tenant == row["watch"]:
                got[decision.outcome] += 1
        clock.advance(1)
    return {column: got[column] for column in COLUMNS}


def check_row(row: dict[str, Any]) -> list[str]:
    """The row's mismatches as "outcome: expected X, got Y"; [] when it holds."""
    got = run_row(row)
    return [f"{k}: expected {v}, got {got[k]}" for k, v in row["expect"].items() if got[k] != v]
