"""Each tenant exports its own events, redacted; the operator's recent view mixes tenants."""

import pytest

from evidencedesk.security import SIMULATED_SECRET
from evidencedesk.tenancy.audit import AuditLog
from evidencedesk.tenancy.context import TenantContext

A = TenantContext(tenant="quillmere", user="sam")
B = TenantContext(tenant="tidewick", user="noor")


def test_export_is_per_tenant_numbered_per_tenant_and_redacted():
    log = AuditLog()
    log.record(A, "put", "T-1501")
    log.record(B, "put", f"key {SIMULATED_SECRET}")
    log.record(A, "get", "T-1501")
    assert log.export(A) == ["quillmere#1 sam put: T-1501", "quillmere#2 sam get: T-1501"]
    assert log.export(B) == ["tidewick#1 noor put: key [redacted]"]
    assert any("tidewick" in line for line in log.recent()) and any("quillmere" in line for line in log.recent())


def test_record_needs_a_context():
    with pytest.raises(TypeError):
        AuditLog().record("quillmere", "put", "x")
