"""Another tenant's record reads as missing; one credential never belongs to two tenants."""

import pytest

from evidencedesk.tenancy.context import TenantContext
from evidencedesk.tenancy.stores import KeyRing, TenantStore, fingerprint

A = TenantContext(tenant="quillmere", user="sam")
B = TenantContext(tenant="tidewick", user="sam")


def test_records_are_per_tenant_and_foreign_reads_as_missing():
    store = TenantStore()
    store.put(A, "T-1501", "quillmere ticket")
    assert store.get(A, "T-1501") == "quillmere ticket"
    assert store.get(B, "T-1501") is None == store.get(B, "T-9999")
    store.put(B, "T-1501", "tidewick ticket")
    assert (store.get(A, "T-1501"), store.get(B, "T-1501")) == ("quillmere ticket", "tidewick ticket")
    assert store.keys(A) == ["T-1501"] == store.keys(B)


def test_store_checks_its_inputs():
    with pytest.raises(TypeError):
        TenantStore().get("quillmere", "T-1501")
    with pytest.raises(ValueError, match="key"):
        TenantStore().put(A, "", "x")


def test_keyring_refuses_a_shared_credential_and_never_falls_back():
    ring = KeyRing()
    ring.register("quillmere", "sim-key-1")
    with pytest.raises(ValueError, match="already belongs to quillmere") as caught:
        ring.register("tidewick", "sim-key-1")
    assert "sim-key-1" not in str(caught.value) and fingerprint("sim-key-1") in str(caught.value)
    ring.register("quillmere", "sim-key-2")  # a tenant may rotate its own
    assert ring.key_for(A) == "sim-key-2"
    with pytest.raises(KeyError, match="tidewick"):
        ring.key_for(B)


def test_fingerprint_is_short_and_stable():
    assert fingerprint("k") == "8254c329" and len(fingerprint("another")) == 8
