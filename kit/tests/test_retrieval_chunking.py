"""Tests of evidencedesk.retrieval.chunking: chunk sizes and overlap, stable ids, and the document file."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from evidencedesk.llm import estimate_tokens
from evidencedesk.retrieval.chunking import (
    CHUNK_TOKENS,
    OVERLAP_TOKENS,
    Chunk,
    Document,
    DocumentError,
    chunk_document,
    chunk_id,
    load_documents,
)

DOCS = {d.id: d for d in load_documents()}
PROPERTY = settings(max_examples=200, deadline=None, derandomize=True, database=None)
WORDS = st.lists(st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789.,:-", min_size=1, max_size=30),
                 min_size=1, max_size=120)


def doc_of(text: str, doc_id: str = "d1") -> Document:
    return Document(id=doc_id, tenant="kettlewise", owner="", title="T", text=text)


def test_the_kit_corpus_has_three_tenants_and_documents_that_need_several_chunks() -> None:
    assert len(DOCS) == 11 and {d.tenant for d in DOCS.values()} == {"kettlewise", "lumenhaus", "pawpost"}
    counts = {doc_id: len(chunk_document(doc)) for doc_id, doc in DOCS.items()}
    assert counts["kw-returns"] == 4 and sum(1 for n in counts.values() if n > 1) >= 5
    assert (CHUNK_TOKENS, OVERLAP_TOKENS) == (60, 15)
    assert [d.id for d in DOCS.values() if d.owner] == ["kw-price-plan"]


def test_a_chunk_id_is_the_document_id_the_position_and_a_hash_of_the_text() -> None:
    assert re.fullmatch(r"kw-returns#2-[0-9a-f]{6}", chunk_id("kw-returns", 2, "some text"))
    assert chunk_id("d", 0, "a") == chunk_id("d", 0, "a") != chunk_id("d", 0, "b")
    assert chunk_id("d", 0, "a") != chunk_id("d", 1, "a") and chunk_id("d", 0, "a") != chunk_id("e", 0, "a")
    assert [c.id for c in chunk_document(DOCS["kw-returns"])][0] == "kw-returns#0-8a6401"  # the page cites it


@PROPERTY
@given(words=WORDS, size=st.integers(1, 40), overlap=st.integers(0, 39))
def test_chunks_cover_every_word_in_order_within_size_and_overlap(words: list[str], size: int, overlap: int) -> None:
    overlap = min(overlap, size - 1)
    words = [f"{word}_{n}" for n, word in enumerate(words)]  # each word once, so a chunk's place is known
    doc = doc_of(" ".join(words))
    chunks = chunk_document(doc, size, overlap)
    assert [c.position for c in chunks] == list(range(len(chunks)))
    assert all(c.tokens == estimate_tokens(c.text) for c in chunks)
    assert all(c.tokens <= size or len(c.text.split()) == 1 for c in chunks)  # a long word stays whole
    assert chunks[0].text.split()[0] == words[0] and chunks[-1].text.split()[-1] == words[-1]
    start, end = -1, 0  # the previous chunk's words: words[start:end]
    for chunk in chunks:  # each chunk starts after the previous one's first word, and skips no word
        here = chunk.text.split()
        start = next(i for i in range(start + 1, end + 1) if words[i:i + len(here)] == here)
        assert estimate_tokens(" ".join(words[start:end])) <= overlap or start == end
        end = start + len(here)
    assert end == len(words)
    assert [c.id for c in chunk_document(doc, size, overlap)] == [c.id for c in chunks]  # chunked again: same ids


@PROPERTY
@given(words=WORDS, size=st.integers(3, 40), overlap=st.integers(0, 19))
def test_a_passage_within_the_overlap_is_whole_in_a_chunk_when_the_overlap_is_under_half(
        words: list[str], size: int, overlap: int) -> None:
    overlap = min(overlap, (size - 1) // 2)
    words = [f"{word}_{n}" for n, word in enumerate(words)]  # each word once: a match is the passage itself
    chunks = [c.text.split() for c in chunk_document(doc_of(" ".join(words)), size, overlap)]
    for start in range(len(words)):
        for end in range(start + 1, len(words) + 1):
            if estimate_tokens(" ".join(words[start:end])) > overlap:
                break
            passage = words[start:end]
            assert any(c[i:i + len(passage)] == passage for c in chunks for i in range(len(c))), passage


def test_a_passage_no_longer_than_the_overlap_is_whole_in_some_chunk() -> None:
    doc = DOCS["kw-returns"]
    chunks = chunk_document(doc)
    for start in range(0, len(doc.text.split()) - 3):
        passage = " ".join(doc.text.split()[start:start + 3])
        if estimate_tokens(passage) <= OVERLAP_TOKENS:
            assert any(passage in c.text for c in chunks), passage


def test_chunk_text_is_the_documents_own_text_between_words() -> None:
    doc = doc_of("One  two\nthree.   Four five")
    chunks = chunk_document(doc, size=3, overlap=1)
    assert all(c.text in doc.text and c.text == c.text.strip() for c in chunks)
    assert [(c.doc_id, c.tenant, c.owner) for c in chunks][0] == ("d1", "kettlewise", "")


def test_an_edit_renames_only_the_chunks_whose_text_changed() -> None:
    doc = DOCS["kw-returns"]
    before = chunk_document(doc)
    edited = chunk_document(doc.model_copy(update={"text": doc.text.replace("within 30 days", "within 45 days")}))
    changed = [(b.id, a.id) for b, a in zip(before, edited, strict=True) if b.id != a.id]
    assert len(changed) == 1 and changed[0][0].startswith("kw-returns#0-") and changed[0][1].startswith("kw-returns#0-")
    longer = chunk_document(doc.model_copy(update={"text": "Please note: " + doc.text}))  # boundaries shift
    assert [b.id == a.id for b, a in zip(before, longer, strict=True)] == [False, False, True, True]
    assert all((b.id == a.id) == (b.text == a.text) for b, a in zip(before, longer, strict=True))


def test_ids_do_not_depend_on_other_documents() -> None:
    alone = chunk_document(DOCS["kw-delivery"])
    assert [c.id for c in alone] == [c.id for c in chunk_document(DOCS["kw-delivery"])]
    assert all(c.id.startswith("kw-delivery#") for c in alone)


def test_a_single_long_word_is_a_chunk_of_its_own() -> None:
    chunks = chunk_document(doc_of("short " + "x" * 100 + " tail"), size=5, overlap=2)
    assert [c.text for c in chunks] == ["short", "x" * 100, "tail"]


@pytest.mark.parametrize(("size", "overlap", "message"), [
    (0, 0, "size must be an int >= 1"), (True, 0, "size must be an int >= 1"), (10, -1, "overlap must be an int >= 0"),
    (10, 10, "overlap must be less than size"), (10, 2.5, "overlap must be an int"), ("60", 5, "size must be"),
])
def test_bad_sizes_are_named(size: object, overlap: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        chunk_document(doc_of("a b c"), size, overlap)  # type: ignore[arg-type]


def test_only_a_document_is_chunked() -> None:
    with pytest.raises(TypeError, match="doc must be a Document, got dict"):
        chunk_document({"id": "d1", "text": "x"})  # type: ignore[arg-type]


@pytest.mark.parametrize(("change", "field"), [
    ({"id": "Bad Id"}, "id"), ({"tenant": ""}, "tenant"), ({"owner": "Ravi!"}, "owner"), ({"text": "   "}, "text"),
    ({"title": ""}, "title"), ({"colour": "red"}, "colour"), ({"text": 42}, "text"),
])
def test_a_bad_document_names_its_field(change: dict, field: str) -> None:
    values = {"id": "d1", "tenant": "kettlewise", "owner": "", "title": "T", "text": "words", **change}
    with pytest.raises(ValidationError) as caught:
        Document(**values)
    assert caught.value.errors()[0]["loc"][0] == field


def test_chunks_and_documents_are_frozen() -> None:
    chunk = chunk_document(DOCS["kw-delivery"])[0]
    with pytest.raises(AttributeError):
        chunk.text = "changed"  # type: ignore[misc]
    with pytest.raises(ValidationError):
        DOCS["kw-delivery"].text = "changed"  # type: ignore[misc]
    assert isinstance(chunk, Chunk)


def test_the_document_file_is_checked(tmp_path: Path) -> None:
    path = tmp_path / "docs.json"
    good = {"id": "d1", "tenant": "kettlewise", "owner": "", "title": "T", "text": "words"}
    cases = [(json.dumps({"id": "d1"}), "expected a list of documents"),
             (json.dumps([good, {**good, "text": ""}]), "document 1: field text"),
             (json.dumps([good, good]), "document 1: field id: repeated id 'd1'"),
             ('[{"id": "d1", "id": "d2"}]', "cannot read the documents"),
             ("not json", "cannot read the documents")]
    for text, message in cases:
        path.write_text(text, encoding="utf-8")
        with pytest.raises(DocumentError, match=message):
            load_documents(path)
    with pytest.raises(DocumentError, match="missing.json: cannot read"):
        load_documents(tmp_path / "missing.json")
