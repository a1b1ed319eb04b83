"""Agent memory per tenant and user: page 5's SessionMemory, one store for each (tenant, user) pair.

A user id is unique inside its tenant only: two companies can each have a "sam". TenantMemories keys its
stores by (tenant, user), so each Sam gets his own. key_by_user=True is THE BUG of a store keyed by the
user id alone, as a system first built for one company keys it: the second Sam reads the first one's
notes. Every write still goes through SessionMemory's rules (no secrets, no personal data, no
instructions, a source tag, an expiry). Left out: memory kept anywhere but in this process.
"""

from __future__ import annotations

from collections.abc import Callable

from evidencedesk.agent.memory import SessionMemory
from evidencedesk.tenancy.context import TenantContext


class TenantMemories:
    """SessionMemory stores by (tenant, user); clock (callable returning seconds), ttl_s (float, seconds).

    Example: TenantMemories(clock).for_context(ctx).write("plan", "Plan is Pro", "user:turn-1")
    """

    def __init__(self, clock: Callable[[], float], ttl_s: float = 600, key_by_user: bool = False) -> None:
        self.clock, self.ttl_s, self.key_by_user = clock, ttl_s, key_by_user
        self._stores: dict[tuple[str, str], SessionMemory] = {}

    def for_context(self, ctx: TenantContext) -> SessionMemory:
        """The store of ctx's tenant and user, made on first use. Raises TypeError for a non-TenantContext."""
        if not isinstance(ctx, TenantContext):
            raise TypeError(f"ctx must be a TenantContext, got {type(ctx).__name__}")
        key = ("*", ctx.user) if self.key_by_user else (ctx.tenant, ctx.user)
        if key not in self._stores:
            self._stores[key] = SessionMemory(ctx.user, self.clock, ttl_s=self.ttl_s)
        return self._stores[key]
