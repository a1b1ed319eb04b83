"""What writing to a prompt cache costs, and the worst case a budget must assume before a call.

A provider may bill the input tokens it writes into its cache above its base input price. Anthropic does: a
write to the 5-minute cache costs 1.25 times the base input price, a write to the 1-hour cache 2 times, and
a read 0.1 times (https://platform.claude.com/docs/en/about-claude/pricing, read 2026-12-03). OpenAI's guide
charges nothing extra for a write on models before the GPT-5.6 family, and 1.25 times the uncached input
price from it on (https://developers.openai.com/api/docs/guides/prompt-caching, read 2026-12-03). A write
share says which rule applies: the price of a written token as a multiple of the input price
(WRITE_SHARE_5M, WRITE_SHARE_1H, or NO_WRITE_PREMIUM). The kit's invented provider (promptcache.py) reports
the tokens each call wrote; cost_with_writes() adds the premium to usage.cost_of(), and
worst_case_with_writes() is the most a call can cost before anyone knows whether it will hit: every input
token written at the premium, and the whole output allowance. budget.worst_case_cost() prices the input at
the plain input price, so under a write premium a call can cost more than it says. Left out: the 1-hour and
5-minute tiers in one request, storage fees (Gemini's explicit caches are billed for how long they are
stored), and batch or regional price changes.
"""

from __future__ import annotations

from decimal import Decimal

from evidencedesk.compaction.steps import StepRun
from evidencedesk.llm import LLMRequest, request_tokens
from evidencedesk.usage import Price, UnknownModel, UsageRecord, cost_of

NO_WRITE_PREMIUM = Decimal("1")  # a write costs a plain input token: the kit's provider
WRITE_SHARE_5M = Decimal("1.25")  # Anthropic's 5-minute cache write (read 2026-12-03)
WRITE_SHARE_1H = Decimal("2")  # Anthropic's 1-hour cache write (read 2026-12-03)


def _share(write_share: object) -> Decimal:
    """write_share as a Decimal >= 1, or a ValueError naming it."""
    if not isinstance(write_share, Decimal) or not write_share.is_finite() or write_share < 1:
        raise ValueError(f"write_share must be a finite Decimal >= 1 (a multiple of the input price), "
                         f"got {write_share!r}")
    return write_share


def _price(model: str, table: dict[str, Price]) -> Price:
    price = table.get(model)
    if price is None:
        raise UnknownModel(f"no price for model {model!r}")
    return price


def cost_with_writes(record: UsageRecord, written_tokens: int, table: dict[str, Price],
                     write_share: Decimal = WRITE_SHARE_5M) -> Decimal:
    """The cost of one call in credits when the tokens it wrote to the cache cost write_share times the input price.

    usage.cost_of(record) bills every uncached input token at the input price; the written tokens are among
    those, so this adds (write_share - 1) x input price for each of them.
    Args: record (usage.UsageRecord); written_tokens (int, tokens, 0 to the record's uncached input);
    table (dict model -> usage.Price); write_share (Decimal >= 1; default WRITE_SHARE_5M).
    Returns: Decimal, credits. Raises: ValueError naming written_tokens or write_share; UnknownModel.
    Example: cost_with_writes(UsageRecord("c1", "small-model-1", 384, 2), 384, load_prices())
    """
    share = _share(write_share)
    uncached = record.input_tokens - record.cached_input_tokens
    if isinstance(written_tokens, bool) or not isinstance(written_tokens, int) or not 0 <= written_tokens <= uncached:
        raise ValueError(f"written_tokens must be an int from 0 to the {uncached} uncached input tokens, "
                         f"got {written_tokens!r}")
    premium = _price(record.model, table).input * (share - 1) * written_tokens
    return cost_of(record, table) + premium if premium else cost_of(record, table)


def worst_case_with_writes(request: LLMRequest, table: dict[str, Price],
                           write_share: Decimal = WRITE_SHARE_5M) -> Decimal:
    """The most a call can cost before it is made (Decimal, credits): every input token written to the cache at
    write_share times the input price, and the whole output allowance (max_tokens) at the output price.

    With write_share 1 it equals budget.worst_case_cost(request, table); above 1 it is higher, and a budget
    that checks the lower figure can be crossed by a call that misses and writes.
    Args: request (LLMRequest); table (dict model -> usage.Price); write_share (Decimal >= 1).
    Raises: ValueError naming write_share; UnknownModel naming the model.
    Example: worst_case_with_writes(request, load_prices(), WRITE_SHARE_1H)
    """
    share = _share(write_share)
    price = _price(request.model, table)
    return price.input * share * request_tokens(request) + price.output * request.max_tokens


def run_cost_with_writes(run: StepRun, write_share: Decimal = WRITE_SHARE_5M) -> Decimal:
    """A whole run's cost in credits when each step's cache writes cost write_share times the input price.

    Args: run (steps.StepRun, its ledger and steps in the same order); write_share (Decimal >= 1).
    Returns: Decimal, credits; with write_share 1, run.cost. Raises: ValueError naming write_share.
    Example: run_cost_with_writes(run_steps(SETUPS["caching"]), WRITE_SHARE_1H)
    """
    pairs = zip(run.ledger.records, run.steps, strict=True)
    return sum((cost_with_writes(r, s.written_tokens, run.ledger.table, write_share) for r, s in pairs), Decimal(0))
