"""Cost per user and per feature, read from finished spans.

Each chat span holds its model and token counts (gen_ai.response.model, or gen_ai.request.model when the
call failed before a reply; gen_ai.usage.*); span_cost() prices them with the kit's table
(usage.cost_of, credits, an invented unit; cached input tokens at the cached-input price). The user and
the feature are on the trace's root span (the application's own evidencedesk.user and evidencedesk.feature),
so attribute() joins each chat span to its root by trace id. A chat span whose trace has no root among the
spans (the root was dropped, or never ended) still counts, under UNATTRIBUTED, so the parts always sum
exactly to the total (Decimal, never float). A call that failed reported no tokens and costs 0 here; a real
provider may bill part of a failed or cancelled call.
Left out: real prices (the providers' pricing pages), currencies, batch and priority tiers, and billing
from sampled traces, which see only part of the calls (sampling.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from opentelemetry.sdk.trace import ReadableSpan

from evidencedesk.tracing.genai import (
    CACHE_READ_TOKENS,
    CHAT,
    FEATURE,
    INPUT_TOKENS,
    OPERATION,
    OUTPUT_TOKENS,
    REQUEST_MODEL,
    RESPONSE_MODEL,
    USER,
)
from evidencedesk.usage import Price, UsageRecord, cost_of, load_prices

UNATTRIBUTED = "(no root span)"  # the owner of a call whose trace's root span is not among the spans


def span_cost(span: ReadableSpan, table: dict[str, Price]) -> Decimal:
    """A chat span's cost in credits from its model and token attributes; 0 for any other span, or a chat
    span without token counts (a failed call).

    Args: span (ReadableSpan); table (dict model -> Price). Returns: Decimal, credits.
    Raises: usage.UnknownModel naming a model with no price. Example: span_cost(chat_span, load_prices())
    """
    a = span.attributes or {}
    if a.get(OPERATION) != CHAT or INPUT_TOKENS not in a:
        return Decimal(0)
    model = str(a.get(RESPONSE_MODEL) or a.get(REQUEST_MODEL))
    record = UsageRecord(f"{span.context.span_id:016x}", model, int(a[INPUT_TOKENS]), int(a.get(OUTPUT_TOKENS, 0)),
                         cached_input_tokens=int(a.get(CACHE_READ_TOKENS, 0)))
    return cost_of(record, table)


@dataclass(frozen=True)
class Attribution:
    """What the spans cost: total (Decimal, credits), by_user and by_feature (dict name -> Decimal, credits,
    sorted by name), calls (int, chat spans counted). The values of each dict sum exactly to total."""

    total: Decimal
    by_user: dict[str, Decimal]
    by_feature: dict[str, Decimal]
    calls: int


def roots(spans: Sequence[ReadableSpan]) -> dict[int, ReadableSpan]:
    """The root span of each trace among spans (a span without a parent), by trace id.

    Example: roots(tracing.spans())[outcome.trace_id].name -> "invoke_agent helpdesk"
    """
    return {s.context.trace_id: s for s in spans if s.parent is None}


def attribute(spans: Sequence[ReadableSpan],
              table: dict[str, Price] | None = None) -> Attribution:
    """The cost of every chat span, in total and split by the user and
    the feature on its trace's root span (UNATTRIBUTED without a root).

    Args: spans (sequence of ReadableSpan); table (dict model -> Price,
    default load_prices()). Returns: Attribution.
    Raises: UnknownModel naming an unpriced model.
    Example: attribute(tracing.spans()).by_user["kwame"]
    """
    table = table if table is not None else load_prices()
    owners = roots(spans)
    total, calls = Decimal(0), 0
    by_user: dict[str, Decimal] = {}
    by_feature: dict[str, Decimal] = {}
    for span in spans:
        if (span.attributes or {}).get(OPERATION) != CHAT:
            continue
        cost, calls = span_cost(span, table), calls + 1
        root = owners.get(span.context.trace_id)
        on_root = (root.attributes or {}) if root is not None else {}
        user = str(on_root.get(USER, UNATTRIBUTED))
        feature = str(on_root.get(FEATURE, UNATTRIBUTED))
        by_user[user] = by_user.get(user, Decimal(0)) + cost
        by_feature[feature] = by_feature.get(feature, Decimal(0)) + cost
        total += cost
    return Attribution(total, dict(sorted(by_user.items())),
                       dict(sorted(by_feature.items())), calls)
