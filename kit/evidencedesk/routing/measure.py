"""Each configuration run over the eval set with page 8's runner: pass rate, cost and latency per request.

measure() runs one configuration: "cheap" (the cheap model alone), "expensive" (the expensive model alone)
or a cascade at a threshold (a Decimal), through evals.runner.run_eval, so every reply is graded by page 8's
graders and the runs pair case by case (evals.paired.pair). Every call is billed into one usage.Ledger and
timed on one ManualClock, so a Measured knows its total cost in credits, the cost of each kind of call
(cheap, verifier, expensive) and the seconds each request took. Prices are the kit's invented credits
(kit/data/prices.json) and the seconds are invented (models.CHEAP_S, VERIFIER_S, EXPENSIVE_S).
Left out: concurrency, retries and the variation of real latency.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from evidencedesk.evals.cases import GoldenCase
from evidencedesk.evals.runner import Config, EvalRun, run_eval
from evidencedesk.evals.stats import Rate, wilson
from evidencedesk.routing.cascade import Cascade, Routed, cascade_for
from evidencedesk.routing.models import (
    CHEAP_MODEL,
    CHEAP_S,
    EXPENSIVE_MODEL,
    EXPENSIVE_S,
    PROMPT,
    Metered,
    ReplyRow,
    load_replies,
    recorded,
)
from evidencedesk.usage import Ledger, ManualClock, TimedClient, cost_of

CHEAP, EXPENSIVE = "cheap", "expensive"  # the two single-model configurations


@dataclass(frozen=True)
class Measured:
    """One configuration on the eval set: name (str); run (evals.runner.EvalRun); ledger (usage.Ledger,
    every call); seconds (tuple of float, per request); log (tuple of cascade.Routed; empty unless a cascade).

    Example: measure(cases, Decimal("0.8")).rate  # a Wilson interval, evals.stats.Rate
    """

    name: str
    run: EvalRun
    ledger: Ledger
    seconds: tuple[float, ...]
    log: tuple[Routed, ...] = ()

    @property
    def rate(self) -> Rate:
        """The pass rate with its Wilson interval (page 8's evals.stats.wilson)."""
        return wilson(self.run.passed, self.run.total)

    @property
    def cost(self) -> Decimal:
        """Credits for the whole eval set (Decimal)."""
        return self.ledger.summary().cost

    def cost_of(self, kind: str) -> Decimal:
        """Credits spent on one kind of call: "cheap", "verifier" or "expensive" (by call id prefix)."""
        records = [r for r in self.ledger.records if r.call_id.startswith(f"{kind}-")]
        return sum((cost_of(r, self.ledger.table) for r in records), Decimal(0))

    @property
    def escalated(self) -> int:
        """Requests the cascade escalated (0 for a single model)."""
        return sum(r.escalated for r in self.log)


def name_of(config: str | Decimal) -> str:
    """The configuration's display name: "cheap", "expensive" or "cascade 0.80". Example: name_of(Decimal("0.8"))"""
    return config if isinstance(config, str) else f"cascade {config:.2f}"


def measure(cases: list[GoldenCase], config: str | Decimal, rows: dict[str, ReplyRow] | None = None) -> Measured:
    """Run one configuration over cases with run_eval, on a fresh clock and ledger.

    Args: cases (golden cases, e.g. models.load_route_cases()); config (CHEAP, EXPENSIVE, or a Decimal
    threshold for a cascade); rows (the reply table; default models.load_replies(cases)).
    Returns a Measured. Raises ValueError naming config when it is none of those.
    Example: measure(load_route_cases(), EXPENSIVE).run.passed
    """
    rows = rows if rows is not None else load_replies(cases)
    clock, ledger = ManualClock(), Ledger()
    cheap, expensive, _ = recorded(cases, rows)
    client: Cascade | Metered
    if config == CHEAP:
        client = Metered(cheap, ledger, clock, CHEAP_S, "cheap", CHEAP_MODEL)
    elif config == EXPENSIVE:
        client = Metered(expensive, ledger, clock, EXPENSIVE_S, "expensive", EXPENSIVE_MODEL)
    elif isinstance(config, Decimal):
        client = cascade_for(cases, config, rows, clock, ledger)
    else:
        raise ValueError(f"config must be {CHEAP!r}, {EXPENSIVE!r} or a Decimal threshold, got {config!r}")
    timed = TimedClient(client, clock)
    run = run_eval(cases, Config(name_of(config), PROMPT, timed))
    log = tuple(client.log) if isinstance(client, Cascade) else ()
    return Measured(name_of(config), run, ledger, tuple(timed.seconds), log)
