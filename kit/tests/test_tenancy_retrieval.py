"""An index per tenant: scores never move with another tenant's writes; a shared index's do."""

import pytest

from evidencedesk.retrieval.chunking import Document
from evidencedesk.tenancy.context import TenantContext
from evidencedesk.tenancy.platform import load_tenants
from evidencedesk.tenancy.retrieval import (TenantIndexes, infer_document_frequency, probe_documents,
                                            shared_search)

TENANTS = load_tenants()
A = TenantContext(tenant="quillmere", user="sam")
NOOR = TenantContext(tenant="tidewick", user="noor")
SAM_T = TenantContext(tenant="tidewick", user="sam")


def indexes():
    return TenantIndexes((d for t in TENANTS for d in t.documents), {t.id: t.users for t in TENANTS})


def scores(hits):
    return [(h.chunk.id, round(h.score, 9)) for h in hits]


def test_per_tenant_search_sees_only_its_tenant_and_owner_rule_holds():
    idx = indexes()
    assert {h.chunk.tenant for h in idx.search(A, "refunds recall candle")} <= {"quillmere"}
    assert any(h.chunk.doc_id == "tw-care" for h in idx.search(NOOR, "wick trim"))
    assert all(h.chunk.doc_id != "tw-care" for h in idx.search(SAM_T, "wick trim"))
    assert idx.search(TenantContext(tenant="quillmere", user="noor"), "refunds") == []


def test_per_tenant_scores_do_not_move_when_another_tenant_writes():
    idx = indexes()
    before = scores(idx.search(A, "refunds paper"))
    idx.add(Document(id="tw-extra", tenant="tidewick", owner="", title="x", text="refunds refunds paper"))
    assert scores(idx.search(A, "refunds paper")) == before != []


def test_shared_index_scores_move_and_rank_first_loses_places():
    idx = indexes()
    before = scores(shared_search(A, idx.chunks(), "refunds"))
    idx.add(Document(id="tw-extra", tenant="tidewick", owner="", title="x", text="refunds refunds"))
    after = scores(shared_search(A, idx.chunks(), "refunds"))
    assert [c for c, _ in after] == [c for c, _ in before] and after != before
    assert len(shared_search(A, idx.chunks(), "refunds paper", order="rank_first")) == 1
    for n in (2, 3, 4):  # four of Tidewick's chunks outrank Quillmere's one: it falls out of the top 3
        idx.add(Document(id=f"tw-extra{n}", tenant="tidewick", owner="", title="x", text="refunds paper"))
    assert shared_search(A, idx.chunks(), "refunds paper", order="rank_first") == []
    assert len(idx.search(A, "refunds paper")) == 1
    with pytest.raises(ValueError, match="order"):
        shared_search(A, idx.chunks(), "x", order="later")


def test_inference_counts_other_tenants_chunks_on_a_shared_index_and_nothing_per_tenant():
    idx = indexes()
    for doc in probe_documents("brassfern", "recall"):
        idx.add(doc)
    ola = TenantContext(tenant="brassfern", user="ola")
    probe = "brassfern-probe-a"

    def score(search, word):
        return next(h.score for h in search(word) if h.chunk.doc_id == probe)

    shared = [score(lambda w: shared_search(ola, idx.chunks(), w, k=10), w) for w in ("qzxone", "qzxtwo", "recall")]
    alone = [score(lambda w: idx.search(ola, w, k=10), w) for w in ("qzxone", "qzxtwo", "recall")]
    n_chunks, holding = infer_document_frequency(*shared)
    assert n_chunks == len(idx.chunks()) and holding - 1 == sum(
        1 for c in idx.chunks() if c.tenant != "brassfern" and "recall" in c.text.lower())
    assert infer_document_frequency(*alone) == (len(idx.libraries["brassfern"].chunks), 1)
    assert holding - 1 >= 1  # tidewick's unannounced recall notice holds the word
    with pytest.raises(ValueError):
        infer_document_frequency(1.0, 0.0, 1.0)
