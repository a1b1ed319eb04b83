"""Properties over random interleavings of several tenants' requests: no tenant sees another's data, and
no tenant can tell what the others did; each classic bug breaks one of the two, and Hypothesis finds it.

The profile is fixed (derandomize=True, no database, no deadline), so every run tries the same
interleavings and the count of tests and examples is stable: the test cannot flake.
"""

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st

from evidencedesk.tenancy.context import TenantContext
from evidencedesk.tenancy.platform import (BUGS, OPS, Platform, foreign_data, interference, load_tenants, markers,
                                           run)

TENANTS = load_tenants()
CONTEXTS = [TenantContext(tenant=t.id, user=u) for t in TENANTS for u in t.users]
ARGS = {"put": ["T-1501", "T-1502"], "get": ["T-1501", "T-1502", "summary"],
        "ask": ["Refund window?", "Shipping?"], "remember": ["plan", "size"], "recall": [""],
        "job": ["T-1501", "T-1502"], "upload": ["refunds paper", "recall wick"],
        "search": ["refunds paper", "recall"], "audit": [""], "fail": [""]}
REQUEST = st.sampled_from(CONTEXTS).flatmap(
    lambda ctx: st.sampled_from(OPS).flatmap(lambda op: st.sampled_from(ARGS[op]).map(lambda arg: (ctx, op, arg))))
INTERLEAVINGS = st.lists(REQUEST, max_size=16)
PROFILE = settings(max_examples=100, derandomize=True, database=None, deadline=None,
                   suppress_health_check=[HealthCheck.too_slow])
HUNT = settings(max_examples=300, derandomize=True, database=None, deadline=None, phases=[Phase.generate],
                suppress_health_check=[HealthCheck.too_slow])  # the first interleaving that shows it, unshrunk


def leaks(bug):
    """The first interleaving Hypothesis generates in which bug shows, by either check (no shrinking:
    the scenario table holds the shortest runs, written by hand)."""
    return find(INTERLEAVINGS, lambda rs: foreign_data(rs, [bug]) is not None or interference(rs, [bug]) is not None,
                settings=HUNT)


@PROFILE
@given(INTERLEAVINGS)
def test_no_tenant_sees_another_tenants_data(requests):
    assert foreign_data(requests) is None


@PROFILE
@given(INTERLEAVINGS)
def test_no_tenant_can_tell_what_the_others_did(requests):
    assert interference(requests) is None


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_the_property_finds_every_classic_bug(bug):
    found = leaks(bug)
    assert 1 <= len(found) <= 16
    assert interference(found, [bug]) is not None or foreign_data(found, [bug]) is not None
    assert foreign_data(found) is None and interference(found) is None  # the same run, without the bug


def test_platform_checks_its_inputs():
    with pytest.raises(ValueError, match="unknown bug"):
        Platform(["no_such_bug"])
    platform = Platform()
    with pytest.raises(ValueError, match="op must be"):
        platform.handle(CONTEXTS[0], "delete_all")
    with pytest.raises(ValueError, match="not hosted"):
        platform.handle(TenantContext(tenant="elsewhere", user="sam"), "get", "x")


def test_requests_past_the_daily_limit_are_refused():
    said = run([(CONTEXTS[0], "get", "x")] * 13)
    assert said[-1] == "refused: daily limit" and said[-2] == "not found"


def test_foreign_data_knows_a_tenants_document_ids_not_only_its_name():
    tidewick = next(t for t in TENANTS if t.id == "tidewick")
    assert markers()["tidewick"] == ("tidewick", *(d.id for d in tidewick.documents))
    leaked = [t if t.id != "quillmere" else t.model_copy(update={"facts": "See tw-recall."}) for t in TENANTS]
    ask = [(CONTEXTS[0], "ask", "Refund window?")]
    assert foreign_data(ask) is None
    assert foreign_data(ask, tenants=leaked) == (0, "From the facts: See tw-recall. [prefix miss]")


def test_data_misassigned_from_the_start_is_seen_by_foreign_data_only():
    quill, tide = (next(t for t in TENANTS if t.id == i) for i in ("quillmere", "tidewick"))
    swapped = [t.model_copy(update={"facts": quill.facts}) if t.id == "tidewick" else t for t in TENANTS]
    tide_sam = TenantContext(tenant="tidewick", user="sam")
    requests = [(CONTEXTS[0], "ask", "Refund window?"), (tide_sam, "ask", "Refund window?")]
    assert interference(requests, tenants=swapped) is None  # the same alone and in company
    assert foreign_data(requests, tenants=swapped)[0] == 1
    assert tide.facts not in run(requests, tenants=swapped)[1]
