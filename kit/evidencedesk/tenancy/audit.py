"""An audit log that every tenant exports alone, and a trace that never reaches a tenant.

AuditLog records who did what, with the tenant on every event and the detail passed through the
Beginner course's redact_log. export(ctx) gives a tenant its own events and nothing else. recent() is the
operator's view across every tenant, for the platform's own engineers: handing it to a tenant (say, in
an error message "to help debugging") is THE BUG of a trace holding another tenant's data. What a tenant
gets on an error is a trace id, numbered per tenant, so even the ids tell nothing of the others' traffic.
Left out: retention, tamper evidence, and shipping logs anywhere.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from evidencedesk.security import redact_log
from evidencedesk.tenancy.context import TenantContext


class AuditEvent(BaseModel):
    """One event: tenant, user, action (str), detail (str, redacted) and seq (int, per tenant, from 1).

    Frozen. Example: AuditEvent(tenant="quillmere", user="sam", action="put", detail="T-1501", seq=1)
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
    tenant: str
    user: str
    action: str
    detail: str
    seq: int

    def line(self) -> str:
        """The event as one log line. Example: "quillmere#3 sam put: T-1501\""""
        return f"{self.tenant}#{self.seq} {self.user} {self.action}: {self.detail}"


class AuditLog:
    """Events of every tenant, in order. Example: log.record(ctx, "put", "T-1501"); log.export(ctx)"""

    def __init__(self) -> None:
        self.events: list[AuditEvent] = []

    def record(self, ctx: TenantContext, action: str, detail: str) -> AuditEvent:
        """Append one event for ctx; detail goes through redact_log. Returns the event."""
        if not isinstance(ctx, TenantContext):
            raise TypeError(f"ctx must be a TenantContext, got {type(ctx).__name__}")
        seq = 1 + sum(1 for e in self.events if e.tenant == ctx.tenant)
        event = AuditEvent(tenant=ctx.tenant, user=ctx.user, action=action, detail=redact_log(detail), seq=seq)
        self.events.append(event)
        return event

    def export(self, ctx: TenantContext) -> list[str]:
        """ctx's tenant's events as lines, in order: what that tenant may download."""
        return [e.line() for e in self.events if e.tenant == ctx.tenant]

    def recent(self, n: int = 3) -> list[str]:
        """The operator's view: the last n (int) events of every tenant. Never for a tenant's eyes."""
        return [e.line() for e in self.events[-n:]]
