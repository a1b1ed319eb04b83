"""Two Sams in two tenants keep two memories; keyed by user alone they share one."""

import pytest

from evidencedesk.tenancy.context import TenantContext
from evidencedesk.tenancy.memory import TenantMemories
from evidencedesk.usage import ManualClock

A = TenantContext(tenant="quillmere", user="sam")
B = TenantContext(tenant="tidewick", user="sam")


def test_same_user_id_in_two_tenants_gets_two_stores():
    memories = TenantMemories(ManualClock())
    assert memories.for_context(A).write("plan", "quillmere plan is studio", "user:turn-1").ok
    assert memories.for_context(B).notes() == []
    assert memories.for_context(A) is memories.for_context(A)


def test_keyed_by_user_alone_the_second_sam_reads_the_first():
    memories = TenantMemories(ManualClock(), key_by_user=True)
    memories.for_context(A).write("plan", "quillmere plan is studio", "user:turn-1")
    assert [n.text for n in memories.for_context(B).notes()] == ["quillmere plan is studio"]


def test_page_5_rules_and_expiry_still_apply():
    clock = ManualClock()
    memory = TenantMemories(clock, ttl_s=60).for_context(A)
    assert memory.write("key", "the key is sk-sim-NOT-A-REAL-KEY-000000000", "user:turn-1").code == "secret"
    memory.write("plan", "quillmere plan is studio", "user:turn-1")
    clock.advance(61)
    assert memory.notes() == []
    with pytest.raises(TypeError):
        TenantMemories(clock).for_context("quillmere/sam")
