"""Data and credentials keyed by tenant: a record of one tenant answers another exactly like a missing one.

TenantStore keys every record by (tenant, key), and its reads take a TenantContext, so no call can even
name another tenant's record: the tenant comes from the context, never from the request's arguments.
A record of another tenant and a record that does not exist give the same answer (None), the rule of the
Beginner course's ownership check (security.can_read). KeyRing holds each tenant's own credential for the
systems the help desk calls on its behalf (its ticket system, its shop): key_for(ctx) looks it up by the
context's tenant, and register() refuses a credential that another tenant already holds, so one leaked or
misrouted key never opens two tenants. Logs get a fingerprint, never the key. Left out: encryption at rest
with a key per tenant, a real secret manager, and rotation.
"""

from __future__ import annotations

import hashlib

from evidencedesk.tenancy.context import TenantContext

FINGERPRINT_DIGITS = 8  # hex digits of SHA-256 shown for a credential in logs


def _ctx(ctx: object) -> TenantContext:
    if not isinstance(ctx, TenantContext):
        raise TypeError(f"ctx must be a TenantContext, got {type(ctx).__name__}")
    return ctx


class TenantStore:
    """Records (str) by (tenant, key): put and get for the context's tenant only.

    Example: store.put(ctx, "T-1501", "Refund sent"); store.get(ctx, "T-1501") -> "Refund sent"
    """

    def __init__(self) -> None:
        self._records: dict[tuple[str, str], str] = {}

    def put(self, ctx: TenantContext, key: str, text: str) -> None:
        """Store text (str) under key (str, non-empty) for ctx's tenant. Raises TypeError/ValueError naming the input."""
        if not isinstance(key, str) or not key or not isinstance(text, str):
            raise ValueError(f"key must be a non-empty str and text a str, got {key!r}, {type(text).__name__}")
        self._records[(_ctx(ctx).tenant, key)] = text

    def get(self, ctx: TenantContext, key: str) -> str | None:
        """The record under key for ctx's tenant, or None: another tenant's record reads as missing."""
        return self._records.get((_ctx(ctx).tenant, key))

    def keys(self, ctx: TenantContext) -> list[str]:
        """ctx's tenant's keys, sorted. Example: store.keys(ctx) -> ["T-1501"]"""
        tenant = _ctx(ctx).tenant
        return sorted(k for t, k in self._records if t == tenant)


def fingerprint(secret: str) -> str:
    """The first 8 hex digits of SHA-256 of secret (str), for logs. Example: fingerprint("k") -> "8254c329\""""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()[:FINGERPRINT_DIGITS]


class KeyRing:
    """Each tenant's own credential; one credential never belongs to two tenants.

    Example: ring.register("quillmere", key); ring.key_for(ctx)
    """

    def __init__(self) -> None:
        self._keys: dict[str, str] = {}

    def register(self, tenant: str, secret: str) -> None:
        """Give tenant (str) the credential secret (str, non-empty).

        Raises ValueError when secret is empty, or already held by another tenant (the message names that
        tenant and the fingerprint, never the key).
        """
        if not isinstance(secret, str) or not secret:
            raise ValueError("secret must be a non-empty str")
        holder = next((t for t, s in self._keys.items() if s == secret and t != tenant), None)
        if holder is not None:
            raise ValueError(f"credential {fingerprint(secret)} already belongs to {holder}; never share one")
        self._keys[tenant] = secret

    def key_for(self, ctx: TenantContext) -> str:
        """ctx's tenant's credential. Raises KeyError naming the tenant when it has none (never a fallback)."""
        tenant = _ctx(ctx).tenant
        if tenant not in self._keys:
            raise KeyError(f"no credential for tenant {tenant}")
        return self._keys[tenant]
