"""Many tenants, more than 10,000 calls, one shared upstream: FIFO against the fair design, on the ManualClock.

The traffic is arithmetic, not random, so every run is the same: 19 light tenants send one call every
LIGHT_EVERY_S seconds each, out of step with one another, and one heavy tenant sends HEAVY_PER_S calls every
second, for DURATION_S seconds: 2,850 light calls and 9,000 heavy ones. Within a second, arrivals are spread
evenly (heavy call k at k/15 of the second, light tenant i at (2i-1)/38, shifted by PHASE_STEP thousandths
more each second), so no tenant is always first or always last.
Call sizes cycle through five input sizes and two max_tokens. Both designs get the same gateway, plans,
buckets and upstream (SLOTS calls at once); only the queue differs:
- FIFO: one shared queue of FIFO_LIMIT calls, no per-tenant concurrency limit: the design of a first gateway;
- fair: a queue of Plan.queue_limit calls per tenant, deficit round robin, per-tenant concurrency limits.
run() plays one design and returns each tenant's offered, served and refused calls and its waits.
HEAVY_PLAN (360 RPM, 6 calls a second) is tuned: with the light tenants' 4.75 calls a second the plans admit
more than the upstream serves (about 8.6), and only then does the queue's order decide who is refused. A heavy
plan under about 228 RPM fits, and FIFO refuses no light call; run(plans=plans(heavy=...)) plays other plans.
Left out: callers that retry after a 429 (each refused call is dropped and counted), and time-of-day shape.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from evidencedesk.quotas.fairness import jain_index, max_min_shares, normalised, p95
from evidencedesk.quotas.fairqueue import Call
from evidencedesk.quotas.gateway import QUEUE_FULL, RATE, RATE_LIMITED, Decision, Design, Gateway, Plan, service_s
from evidencedesk.tenancy.context import TenantContext
from evidencedesk.usage import ManualClock

DURATION_S = 600  # seconds during which calls arrive
DRAIN_S = 600  # at most this long after the last arrival for the queues to empty
LIGHT_TENANTS = tuple(f"light-{i:02d}" for i in range(1, 20))
HEAVY = "heavy"
LIGHT_EVERY_S = 4  # a light tenant sends one call every 4 s: 150 calls in 600 s
HEAVY_PER_S = 15  # the heavy tenant sends 15 calls a second: 9,000 in 600 s
PHASE_STEP = 263  # thousandths of a second the light tenants' arrivals shift each second (mod 1)
SLOTS = 20  # upstream calls at once, shared by every tenant
INPUT_SIZES = (400, 700, 1000, 1300, 1600)  # input tokens, cycled per tenant
MAX_TOKENS = (500, 500, 1000)  # max_tokens, cycled per tenant
LIGHT_PLAN = Plan(rpm=60, tpm=60_000, concurrency=4, queue_limit=10, daily_cap=Decimal("5"))
HEAVY_PLAN = Plan(rpm=360, tpm=1_200_000, concurrency=16, queue_limit=10, daily_cap=Decimal("50"))
FIFO = Design(scheduler="fifo", fifo_limit=200, per_tenant_concurrency=False)
FAIR = Design(scheduler="drr", quantum=4096)


def plans(heavy: Plan = HEAVY_PLAN) -> dict[str, Plan]:
    """Every tenant's plan: the heavy tenant's (heavy, a Plan; default HEAVY_PLAN) first, then the light tenants'.

    Example: plans(HEAVY_PLAN.model_copy(update={"rpm": 180}))["heavy"].rpm -> 180
    """
    return {HEAVY: heavy, **dict.fromkeys(LIGHT_TENANTS, LIGHT_PLAN)}


_plans = plans  # inside run(), its argument `plans` hides this function


def traffic(duration_s: int = DURATION_S) -> list[Call]:
    """The fixed arrival schedule: every call of every tenant, in arrival order. Example: len(traffic()) -> 11850"""
    keyed: list[tuple[int, int, str]] = []
    for second in range(duration_s):
        keyed += [(second, k * 1000 // HEAVY_PER_S, HEAVY) for k in range(HEAVY_PER_S)]
        shift = second * PHASE_STEP % 1000  # the light tenants' places move each second: none is always last
        keyed += [(second, ((2 * i - 1) * 1000 // (2 * len(LIGHT_TENANTS)) + shift) % 1000, tenant)
                  for i, tenant in enumerate(LIGHT_TENANTS, 1) if (second + i) % LIGHT_EVERY_S == 0]
    sent: Counter[str] = Counter()
    calls = []
    for number, (second, _, tenant) in enumerate(sorted(keyed)):
        j = sent[tenant]
        sent[tenant] += 1
        calls.append(Call(id=number, context=TenantContext(tenant=tenant, user="api"), arrival_s=second,
                          input_tokens=INPUT_SIZES[j % len(INPUT_SIZES)], max_tokens=MAX_TOKENS[j % len(MAX_TOKENS)]))
    return calls


@dataclass(frozen=True)
class TenantResult:
    """One tenant's run: offered, served, rate_429 (a bucket was short), queue_429 (its queue was full),
    refused_cost (its spend cap), calls (int each); waits (tuple of int seconds, one per served call)."""

    offered: int
    served: int
    rate_429: int
    queue_429: int
    refused_cost: int
    waits: tuple[int, ...]


@dataclass(frozen=True)
class RunResult:
    """A whole run: design (str), tenants (dict tenant -> TenantResult), end_s (int, the second it ended),
    busy_slot_s (int, upstream slot-seconds spent on calls: utilisation is busy_slot_s / (slots * end_s))."""

    design: str
    tenants: dict[str, TenantResult]
    end_s: int
    busy_slot_s: int

    def light(self) -> list[TenantResult]:
        """The light tenants' results, in LIGHT_TENANTS order."""
        return [self.tenants[t] for t in LIGHT_TENANTS]

    def fair_shares(self) -> dict[str, Fraction]:
        """Max-min fair shares of the calls this run served, over what each tenant offered."""
        served = sum(r.served for r in self.tenants.values())
        return max_min_shares({t: r.offered for t, r in self.tenants.items()}, served)

    def jain(self) -> Fraction:
        """Jain's index over every tenant's served calls / its max-min fair share (1 = exactly fair)."""
        return jain_index(normalised({t: r.served for t, r in self.tenants.items()}, self.fair_shares()).values())

    def light_p95_s(self) -> int:
        """p95 of the light tenants' waits, all their served calls together (seconds)."""
        return p95([w for r in self.light() for w in r.waits])


def run(design: Design, calls: list[Call] | None = None, slots: int = SLOTS,
        plans: dict[str, Plan] | None = None) -> RunResult:
    """Play calls (default traffic()) through a Gateway of `design` and `plans` (default plans()) on a fresh
    ManualClock. Returns RunResult.

    Each second: end what is due and start what fits (step), then the second's arrivals, then the clock moves
    1 s. After the last arrival, seconds pass until nothing waits or runs (at most DRAIN_S).
    Raises RuntimeError when the queues have not emptied DRAIN_S seconds after the last arrival.
    Example: run(FAIR).tenants["light-01"].served -> 150
    """
    calls = traffic() if calls is None else calls
    plans = _plans() if plans is None else plans
    clock = ManualClock()
    gateway = Gateway(plans, clock, slots, design)
    by_second: defaultdict[int, list[Call]] = defaultdict(list)
    for call in calls:
        by_second[call.arrival_s].append(call)
    last = max(by_second, default=0)
    decisions: list[Decision] = []
    second = 0
    while second <= last or gateway.running or len(gateway.queue):
        if second > last + DRAIN_S:
            raise RuntimeError(f"queues still busy {DRAIN_S} s after the last arrival")
        gateway.step()
        decisions += [gateway.arrive(call) for call in by_second.get(second, ())]
        clock.advance(1)
        second += 1
    busy = sum(service_s(c) for c in calls if c.id in gateway.started)
    return RunResult(design.scheduler, _tally(calls, decisions, gateway.started, plans), second, busy)


def _tally(calls: list[Call], decisions: list[Decision], started: dict[int, int],
           plans: dict[str, Plan]) -> dict[str, TenantResult]:
    offered = Counter(c.tenant for c in calls)
    refused = Counter((d.tenant, d.reason) for d in decisions if d.outcome == RATE_LIMITED)
    cost = Counter(d.tenant for d in decisions if d.outcome == "refused_cost")
    waits: defaultdict[str, list[int]] = defaultdict(list)
    for call in calls:
        if call.id in started:
            waits[call.tenant].append(started[call.id])
    return {t: TenantResult(offered[t], len(waits[t]), refused[(t, RATE)], refused[(t, QUEUE_FULL)], cost[t],
                            tuple(waits[t])) for t in plans}
