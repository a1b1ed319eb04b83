"""Tests of evidencedesk.retrieval.access: who may read what, filtering before ranking, and the two leaks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evidencedesk.retrieval.access import (
    Library,
    filter_with_global_stats,
    load_tenants,
    may_read,
    rank_then_filter,
    retrieve,
)
from evidencedesk.retrieval.bm25 import terms
from evidencedesk.retrieval.chunking import Document, DocumentError
from evidencedesk.security import Session

LIBRARY = Library.load()
USERS = ("ana", "ravi", "mira", "ifeoma", "", "nobody")
VOCABULARY = sorted({t for c in LIBRARY.chunks for t in terms(c.text)})
PROPERTY = settings(max_examples=150, deadline=None, derandomize=True, database=None)
MIRAS_DRAFT = Document(id="lh-warranty-draft", tenant="lumenhaus", owner="mira", title="Draft",
                       text="Draft: every Aurora lamp gets a five-year warranty, and warranty claims move.")


def only_tenant(library: Library, tenant: str) -> Library:
    return Library(tuple(d for d in library.documents if d.tenant == tenant), library.tenants)


def test_users_belong_to_tenants() -> None:
    tenants = load_tenants()
    assert dict(tenants) == {"ana": "kettlewise", "ravi": "kettlewise", "mira": "lumenhaus", "ifeoma": "pawpost"}
    with pytest.raises(TypeError):
        tenants["eve"] = "kettlewise"  # type: ignore[index]


@pytest.mark.parametrize(("user", "doc_id", "allowed"), [
    ("ana", "kw-returns", True), ("ravi", "kw-returns", True), ("ana", "kw-price-plan", False),
    ("ravi", "kw-price-plan", True), ("ana", "lh-returns", False), ("mira", "lh-returns", True),
    ("mira", "kw-returns", False), ("ifeoma", "pp-returns", True), ("", "kw-returns", False),
    ("nobody", "kw-returns", False),
])
def test_may_read_needs_the_tenant_and_then_the_owner(user: str, doc_id: str, allowed: bool) -> None:
    doc = next(d for d in LIBRARY.documents if d.id == doc_id)
    assert may_read(Session(user), doc, LIBRARY.tenants) is allowed
    assert all(may_read(Session(user), c, LIBRARY.tenants) is allowed for c in LIBRARY.chunks if c.doc_id == doc_id)


def test_readable_is_the_allowed_set_in_library_order() -> None:
    ana = LIBRARY.readable(Session("ana"))
    assert {c.doc_id for c in ana} == {"kw-returns", "kw-warranty", "kw-descaling", "kw-delivery", "kw-k2-faq"}
    assert [c.id for c in ana] == [c.id for c in LIBRARY.chunks if c in ana]
    assert LIBRARY.readable(Session("")) == () and LIBRARY.readable(Session("nobody")) == ()


@PROPERTY
@given(words=st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=6), user=st.sampled_from(USERS),
       k=st.integers(1, 8))
def test_retrieve_returns_only_readable_chunks_and_ignores_everyone_else(words: list[str], user: str, k: int) -> None:
    session, query = Session(user), " ".join(words)
    hits = retrieve(session, LIBRARY, query, k)
    assert len(hits) <= k and all(may_read(session, h.chunk, LIBRARY.tenants) for h in hits)
    mine = LIBRARY.tenants.get(user)
    if mine:  # with every other tenant's documents gone, or one more added, nothing changes: hits, order, scores
        assert retrieve(session, only_tenant(LIBRARY, mine), query, k) == hits
        assert retrieve(session, LIBRARY.with_document(MIRAS_DRAFT), query, k) == hits or user == "mira"


def test_rank_then_filter_leaks_that_other_documents_match() -> None:
    ana = Session("ana")
    assert retrieve(ana, LIBRARY, "Is there a battery recall?") == []
    shown, hidden = rank_then_filter(ana, LIBRARY, "Is there a battery recall?")
    assert (shown, hidden) == ([], 3)
    top = rank_then_filter(Session("mira"), LIBRARY, "Is there a battery recall?")
    assert top[1] == 0 and [h.chunk.doc_id for h in top[0]][0] == "lh-aurora-recall"
    shown, hidden = rank_then_filter(ana, LIBRARY, "When do the new prices start?")  # inside her own tenant too
    assert hidden == 1 and [h.chunk.doc_id for h in shown] == ["kw-returns"]


def test_filter_with_global_stats_shows_only_readable_chunks_but_its_scores_move() -> None:
    ana, question = Session("ana"), "How do I make a warranty claim?"
    before = filter_with_global_stats(ana, LIBRARY, question)
    after = filter_with_global_stats(ana, LIBRARY.with_document(MIRAS_DRAFT), question)
    assert all(may_read(ana, h.chunk, LIBRARY.tenants) for h in before + after)
    assert [h.chunk.id for h in before] == [h.chunk.id for h in after]
    assert [h.score for h in after] != [h.score for h in before] and after[0].score < before[0].score
    assert retrieve(ana, LIBRARY.with_document(MIRAS_DRAFT), question) == retrieve(ana, LIBRARY, question)


def test_with_document_adds_or_replaces_and_leaves_other_chunk_ids_alone() -> None:
    added = LIBRARY.with_document(MIRAS_DRAFT)
    assert [d.id for d in added.documents][-1] == "lh-warranty-draft" and len(added.documents) == 12
    returns = next(d for d in LIBRARY.documents if d.id == "kw-returns")
    edited = LIBRARY.with_document(returns.model_copy(update={"text": returns.text.replace("30 days", "45 days")}))
    assert [d.id for d in edited.documents] == [d.id for d in LIBRARY.documents]
    assert [c.id for c in edited.chunks if c.doc_id != "kw-returns"] == \
        [c.id for c in LIBRARY.chunks if c.doc_id != "kw-returns"]
    with pytest.raises(TypeError, match="doc must be a Document"):
        LIBRARY.with_document({"id": "x"})  # type: ignore[arg-type]


def test_a_library_refuses_two_documents_with_one_id_and_finds_chunks_by_id() -> None:
    with pytest.raises(ValueError, match="two documents share an id"):
        Library((MIRAS_DRAFT, MIRAS_DRAFT), LIBRARY.tenants)
    first = LIBRARY.chunks[0]
    assert LIBRARY.chunk(first.id) == first and LIBRARY.chunk("kw-returns#9-000000") is None
    assert Library.load(size=30, overlap=8).chunks != LIBRARY.chunks


def test_the_users_file_is_checked(tmp_path: Path) -> None:
    path = tmp_path / "users.json"
    for text in (json.dumps(["ana"]), json.dumps({"ana": ""}), json.dumps({"ana": 3}), "{"):
        path.write_text(text, encoding="utf-8")
        with pytest.raises(DocumentError, match="users.json"):
            load_tenants(path)
