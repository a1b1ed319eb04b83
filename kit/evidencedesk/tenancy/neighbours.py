"""A noisy neighbour: one tenant's traffic against a shared allowance, and per-tenant limits that hold.

The Beginner course's daily limits (limits.UserLimits) count calls and credits per key. Keyed by tenant,
each tenant has its own allowance and nothing another does can use it up. Keyed by one shared pool key,
the first tenant to send a burst spends everyone's allowance: the others are refused for work they never
sent. serve() plays a list of requests, one tenant id each, on either design. Left out: per-minute rates,
concurrency limits and queues, fair sharing of spare capacity, and costs (every call here counts 1).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from decimal import Decimal

from evidencedesk.limits import DailyLimit, UserLimits
from evidencedesk.usage import ManualClock

POOL = "pool"  # the one key of a shared allowance


def serve(requests: Iterable[str], max_calls: int, per_tenant: bool = True) -> dict[str, tuple[int, int]]:
    """Play requests (iterable of tenant ids, in order) against a daily limit of max_calls (int) calls.

    per_tenant=True: each tenant has max_calls; False: all tenants share one allowance of max_calls.
    Returns: {tenant: (served, refused)}, tenants in order of first request.
    Example: serve(["a", "a", "b"], max_calls=1) -> {"a": (1, 1), "b": (1, 0)}
    """
    limits = UserLimits(DailyLimit(max_calls=max_calls, max_cost=Decimal("1000")), ManualClock())
    served, refused = Counter[str](), Counter[str]()
    order: list[str] = []
    for tenant in requests:
        if tenant not in order:
            order.append(tenant)
        key = tenant if per_tenant else POOL
        if limits.refusal(key, Decimal(0)):
            refused[tenant] += 1
        else:
            limits.charge(key, Decimal(0))
            served[tenant] += 1
    return {t: (served[t], refused[t]) for t in order}
