"""A gateway in front of one model provider: admission, backpressure, and who starts next.

Every call passes, in order: a size check (a call larger than its tenant's token bucket can never run:
refused, no Retry-After), the tenant's daily spend cap (wallet.SpendCap: refused before the call), its rate
limits (buckets.RateLimits: 429 with the Retry-After the buckets compute), and its queue (429 with Retry-After
when full: the earliest second a call of the queue could start, when one in flight ends). A call that passes
is queued, and starts when one of the upstream's `slots` is free and its tenant is under its concurrency
limit, in the order the Design's queue decides (fairqueue). A 429 is backpressure: it tells the caller to
slow down, and `as_error` turns it into the kit's llm.RateLimited, which page 2's retry rules honour; a refusal
for cost becomes resilience.errors.QuotaExhausted, which no wait clears (never retried, alerted, and kept out of
the circuit breaker, as page 2 taught for a provider's spend limit).
The upstream is a scripted fake: a fixed pool of `slots` concurrent calls, each producing OUTPUT_SHARE of its
max_tokens at UPSTREAM_TOKENS_PER_S (both invented). A real provider's limit is its own RPM and TPM for your
organisation or project, answered with its own 429s (see the page); the gateway keeps its callers under it.
Left out: retries inside the gateway, streaming, cancellation, several models and several providers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from evidencedesk.llm import RateLimited
from evidencedesk.quotas.buckets import RateLimits, TooLarge
from evidencedesk.quotas.fairqueue import Call, DeficitRoundRobin, SharedFifo
from evidencedesk.quotas.wallet import SpendCap
from evidencedesk.resilience.errors import QuotaExhausted
from evidencedesk.usage import ManualClock, Price, load_prices

STARTED, QUEUED = "started", "queued"  # admitted: started at once, or waited in a queue first
RATE_LIMITED = "429"  # refused for now, with a Retry-After: a bucket was short or the queue was full
OVER_BUDGET = "refused_cost"  # the tenant's daily spend cap could not cover the call's worst case
TOO_LARGE = "too_large"  # bigger than the tenant's token bucket can ever hold: no wait helps
RATE, QUEUE_FULL, DAILY_SPEND = "rate", "queue_full", "daily_spend"  # why a call was refused
MODEL = "small-model-1"  # the priced model every call of the kit's gateway uses (kit/data/prices.json)
OUTPUT_SHARE = Fraction(3, 5)  # invented: a call produces 3/5 of its max_tokens
UPSTREAM_TOKENS_PER_S = 300  # invented: output tokens per second of one upstream call


class Plan(BaseModel):
    """What one tenant may use: rpm and tpm (int, per minute), concurrency (int, calls at once), queue_limit
    (int, calls waiting in its own queue), daily_cap (Decimal, credits a day), weight (int, its share in the
    fair queue), burst_s (int, seconds of rpm and tpm each bucket holds: the burst; default 60, a minute).
    Frozen and strict. Raises pydantic.ValidationError naming the field.
    Example: Plan(rpm=60, tpm=60_000, concurrency=4, queue_limit=10, daily_cap=Decimal("5"))
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)
    rpm: Annotated[int, Field(gt=0)]
    tpm: Annotated[int, Field(gt=0)]
    concurrency: Annotated[int, Field(gt=0)]
    queue_limit: Annotated[int, Field(gt=0)]
    daily_cap: Annotated[Decimal, Field(gt=0)]
    weight: Annotated[int, Field(gt=0)] = 1
    burst_s: Annotated[int, Field(gt=0)] = 60


class Design(BaseModel):
    """How the gateway queues: scheduler "fifo" (one queue of fifo_limit calls for all) or "drr" (a queue per
    tenant of its plan's queue_limit, deficit round robin with quantum tokens); per_tenant_concurrency (bool:
    enforce each plan's concurrency). Example: Design(scheduler="drr")
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
    scheduler: Literal["fifo", "drr"]
    fifo_limit: Annotated[int, Field(gt=0)] = 200
    quantum: Annotated[int, Field(gt=0)] = 4096
    per_tenant_concurrency: bool = True


@dataclass(frozen=True)
class Decision:
    """What the gateway answered a call: call_id (int), tenant (str), outcome (STARTED, QUEUED, RATE_LIMITED,
    OVER_BUDGET or TOO_LARGE), reason (RATE, QUEUE_FULL, DAILY_SPEND or ""), retry_after_s (int seconds, or
    None when waiting cannot help or was not needed)."""

    call_id: int
    tenant: str
    outcome: str
    reason: str = ""
    retry_after_s: int | None = None

    def as_error(self) -> RateLimited | QuotaExhausted | None:
        """The kit's error for a refusal: llm.RateLimited for a 429 (retry_after_s carried), QuotaExhausted
        for a refusal for cost (not retryable: the message says when the day resets), else None.
        Example: Decision(1, "a", RATE_LIMITED, RATE, 10).as_error().retry_after_s -> 10.0"""
        if self.outcome == OVER_BUDGET:
            return QuotaExhausted(f"{self.tenant}: {self.reason}, resets in {self.retry_after_s} s", "gateway")
        if self.outcome != RATE_LIMITED:
            return None
        wait = float(self.retry_after_s) if self.retry_after_s is not None else 0.0
        return RateLimited(f"{self.tenant}: {self.reason}", "gateway", retry_after_s=wait)


@dataclass
class Running:
    """A call in flight: the call, the second it ends, the credits its tenant's cap holds for it."""

    call: Call
    ends_s: int
    held: Decimal = field(default=Decimal(0))


def output_tokens(call: Call) -> int:
    """Output tokens the scripted upstream produces for call: OUTPUT_SHARE of max_tokens, rounded down."""
    return int(call.max_tokens * OUTPUT_SHARE)


def service_s(call: Call) -> int:
    """Whole seconds the scripted upstream takes: 1 + output_tokens // UPSTREAM_TOKENS_PER_S."""
    return 1 + output_tokens(call) // UPSTREAM_TOKENS_PER_S


class Gateway:
    """Admission, queues and a fixed pool of upstream calls for many tenants, on one ManualClock.

    Args: plans (dict tenant -> Plan); clock (ManualClock; whole seconds); slots (int > 0, upstream calls at
    once); design (Design); table (dict model -> usage.Price, default kit/data/prices.json).
    Use: arrive(call) for each call at its second, step() once a second. started holds each started call's
    wait in seconds. Raises KeyError naming a tenant without a plan.
    Example: g = Gateway({"a": plan}, clock, slots=4, design=Design(scheduler="drr")); g.arrive(call).outcome
    """

    def __init__(self, plans: dict[str, Plan], clock: ManualClock, slots: int, design: Design,
                 table: dict[str, Price] | None = None) -> None:
        if isinstance(slots, bool) or not isinstance(slots, int) or slots < 1:
            raise ValueError(f"slots must be an int >= 1, got {slots!r}")
        self.plans, self.clock, self.slots, self.design = dict(plans), clock, slots, design
        self.limits = {t: RateLimits(p.rpm, p.tpm, clock, p.burst_s) for t, p in self.plans.items()}
        self.wallet = SpendCap({t: p.daily_cap for t, p in self.plans.items()},
                               table if table is not None else load_prices(), clock)
        self.queue: SharedFifo | DeficitRoundRobin
        if design.scheduler == "fifo":
            self.queue = SharedFifo(design.fifo_limit)
        else:
            self.queue = DeficitRoundRobin(max(p.queue_limit for p in self.plans.values()), design.quantum,
                                           {t: p.weight for t, p in self.plans.items()})
        self.running: dict[int, Running] = {}
        self.in_flight = dict.fromkeys(self.plans, 0)  # tenant -> calls running now
        self.started: dict[int, int] = {}  # call id -> seconds it waited before it started
        self._held: dict[int, Decimal] = {}  # queued call id -> credits its tenant's cap holds for it

    def now(self) -> int:
        """The clock in whole seconds. Raises ValueError when the clock is not on a whole second."""
        now = self.clock()
        if now != int(now):
            raise ValueError(f"the gateway runs on whole seconds; the clock says {now}")
        return int(now)

    def _plan(self, tenant: str) -> Plan:
        if tenant not in self.plans:
            raise KeyError(f"tenant {tenant!r} has no plan")
        return self.plans[tenant]

    def _has_room(self, tenant: str) -> bool:
        if isinstance(self.queue, DeficitRoundRobin):
            return len(self.queue.queues.get(tenant, ())) < self.plans[tenant].queue_limit
        return self.queue.has_room(tenant)

    def _queue_retry_s(self, tenant: str) -> int:
        """Seconds until the queue could move: the first end of a call in flight (the tenant's own, per tenant)."""
        mine = isinstance(self.queue, DeficitRoundRobin)
        ends = [r.ends_s for r in self.running.values() if not mine or r.call.tenant == tenant]
        return max(1, min(ends) - self.now()) if ends else 1

    def arrive(self, call: Call) -> Decision:
        """Admit or refuse call (Call) now. An admitted call is queued, and
        may start at once. Returns a Decision."""
        self._plan(call.tenant)  # raises KeyError for a tenant without a plan
        tenant, size = call.tenant, (call.input_tokens, call.max_tokens)
        try:
            rate_wait = self.limits[tenant].wait_s(call.tokens)
        except TooLarge:
            return Decision(call.id, tenant, TOO_LARGE)
        if self.wallet.refusal(tenant, MODEL, *size):
            wait = self.wallet.resets_in_s()
            return Decision(call.id, tenant, OVER_BUDGET, DAILY_SPEND, wait)
        if rate_wait:
            return Decision(call.id, tenant, RATE_LIMITED, RATE, rate_wait)
        if not self._has_room(tenant):
            wait = self._queue_retry_s(tenant)
            return Decision(call.id, tenant, RATE_LIMITED, QUEUE_FULL, wait)
        self.limits[tenant].admit(call.tokens)
        self._held[call.id] = self.wallet.admit(tenant, MODEL, *size)
        self.queue.push(call)
        started = self._start_what_fits()
        outcome = STARTED if call.id in started else QUEUED
        return Decision(call.id, tenant, outcome)

    def _can_start(self, tenant: str) -> bool:
        return not self.design.per_tenant_concurrency or self.in_flight[tenant] < self.plans[tenant].concurrency

    def _start_what_fits(self) -> set[int]:
        """Start queued calls while a slot is free and the queue has one whose tenant may start."""
        now, ids = self.now(), set()
        while len(self.running) < self.slots and (call := self.queue.pop(self._can_start)) is not None:
            self.running[call.id] = Running(call, now + service_s(call), self._held.pop(call.id))
            self.in_flight[call.tenant] += 1
            self.started[call.id] = now - call.arrival_s
            ids.add(call.id)
        return ids

    def step(self) -> list[Call]:
        """End the calls due by now (settling each one's cost), then start what fits. Returns the ended calls."""
        now = self.now()
        ended = [r for r in self.running.values() if r.ends_s <= now]
        for run in ended:
            del self.running[run.call.id]
            self.in_flight[run.call.tenant] -= 1
            self.wallet.settle(run.call.tenant, MODEL, run.call.input_tokens, output_tokens(run.call), run.held)
        self._start_what_fits()
        return [r.call for r in ended]
