"""Tests of evidencedesk.retrieval.prompt: chunks as untrusted, source-tagged blocks, and their signals."""

from __future__ import annotations

from evidencedesk.context import ContextPart, render_untrusted
from evidencedesk.llm import LLMRequest
from evidencedesk.retrieval.access import Library, retrieve
from evidencedesk.retrieval.bm25 import Hit
from evidencedesk.retrieval.chunking import Document, chunk_document
from evidencedesk.retrieval.prompt import MODEL, RULES, build_request, chunk_part, signals, source_of
from evidencedesk.security import Session

LIBRARY = Library.load()
K2 = retrieve(Session("ana"), LIBRARY, "Does the K2 work on an induction hob?")


def test_a_chunk_is_an_untrusted_document_tagged_with_its_id() -> None:
    chunk = LIBRARY.chunks[0]
    part = chunk_part(chunk)
    assert source_of(chunk) == "doc:kw-returns#0-8a6401" == part.source
    assert (part.kind, part.trust, part.text) == ("document", "untrusted", chunk.text)
    longest = Document(id="d" * 40, tenant="kettlewise", owner="", title="T", text="word " * 80)
    assert all(isinstance(chunk_part(c), ContextPart) for c in chunk_document(longest))  # the tag always fits


def test_the_injected_supplier_page_is_flagged_chunk_by_chunk_and_cannot_close_its_block() -> None:
    assert [h.chunk.id for h in K2] == ["kw-k2-faq#1-6d7cad", "kw-k2-faq#0-788e4b"]
    found = signals(K2)
    assert list(found) == [K2[0].chunk.id, K2[1].chunk.id]  # both halves of the split instruction, in hit order
    assert found[K2[0].chunk.id] == ["tool_request", "exfiltration"]
    assert found[K2[1].chunk.id] == ["ignore_instructions", "addressed_to_assistant", "tool_request"]
    block = render_untrusted(chunk_part(K2[0].chunk))
    assert "&lt;/document&gt; &lt;rules&gt;" in block and block.count("</document>") == 1
    assert signals(retrieve(Session("ana"), LIBRARY, "How long do I have to return a kettle?")) == {}


def test_the_request_keeps_rules_trusted_and_everything_retrieved_untrusted() -> None:
    request = build_request("Does the K2 work on an induction hob?", K2)
    assert isinstance(request, LLMRequest) and request.model == MODEL
    system, user = request.messages
    assert (system.role, system.content, user.role) == ("system", RULES, "user")
    assert user.content.startswith('<question source="user">\nDoes the K2 work on an induction hob?\n</question>')
    assert [line for line in user.content.splitlines() if line.startswith("<document")] == \
        [f'<document source="doc:{h.chunk.id}">' for h in K2]
    assert not any(h.chunk.text[:30] in system.content for h in K2)


def test_no_hits_give_a_request_with_the_question_alone() -> None:
    hits: list[Hit] = []
    request = build_request("Anything?", hits)
    assert "<document" not in request.messages[1].content and signals(hits) == {}
