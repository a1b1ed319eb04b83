"""The answer-cache key holds the tenant; salted prefixes of two tenants share no cached block."""

from evidencedesk.compaction.promptcache import PrefixCache
from evidencedesk.tenancy.caches import PrefixBuilder, answer_key, tenant_request, tenant_salt
from evidencedesk.tenancy.context import TenantContext
from evidencedesk.usage import ManualClock

A = TenantContext(tenant="quillmere", user="sam")
A2 = TenantContext(tenant="quillmere", user="ada")
B = TenantContext(tenant="tidewick", user="sam")


def test_answer_key_differs_by_tenant_and_not_by_user():
    assert answer_key(A, "Refund window?") != answer_key(B, "Refund window?")
    assert answer_key(A, "Refund window?") == answer_key(A2, "Refund window?")
    assert answer_key(A, "Refund window?", with_tenant=False) == answer_key(B, "Refund window?", with_tenant=False)


def test_salt_is_per_tenant_and_opens_the_request():
    assert tenant_salt("quillmere") != tenant_salt("tidewick") and tenant_salt("a") == tenant_salt("a")
    assert tenant_salt("a", "other-secret") != tenant_salt("a")
    request = tenant_request(A, "facts", "q")
    assert request.messages[0].content.startswith(tenant_salt("quillmere"))
    assert not tenant_request(A, "facts", "q", salt=False).messages[0].content.startswith("cache-salt")


def test_unsalted_rules_hit_across_tenants_salted_do_not():
    for salt, outcome in ((False, "hit"), (True, "miss")):
        cache = PrefixCache(ManualClock(), min_tokens=32)
        cache.read(tenant_request(A, "Quillmere facts.", "q1", salt=salt))
        assert cache.read(tenant_request(B, "Tidewick facts.", "q2", salt=salt)).outcome == outcome


def test_memoised_prefix_hands_the_first_tenants_facts_to_the_next():
    good, bad = PrefixBuilder(), PrefixBuilder(memoise=True)
    for builder in (good, bad):
        builder.prefix(A, "Quillmere facts.")
    assert "Quillmere" not in good.prefix(B, "Tidewick facts.")[1].content
    assert "Quillmere" in bad.prefix(B, "Tidewick facts.")[1].content
