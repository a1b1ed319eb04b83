"""Tests of evidencedesk.retrieval.citations: the answer's citations against what was retrieved for it."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from evidencedesk.llm import Overloaded, ScriptedClient, ScriptExhausted
from evidencedesk.retrieval.access import Library, retrieve
from evidencedesk.retrieval.citations import (
    ANSWERED,
    CITES_UNREADABLE,
    CITES_UNRETRIEVED,
    NO_CITATION,
    NOTHING_RETRIEVED,
    REASONS,
    REFUSAL,
    CitedAnswer,
    Outcome,
    answer_question,
    check_citations,
)
from evidencedesk.security import Session

LIBRARY = Library.load()
ANA = Session("ana")
QUESTION = "How long do I have to return a kettle?"
HITS = retrieve(ANA, LIBRARY, QUESTION)
RETRIEVED = [h.chunk.id for h in HITS]
OWN_NOT_RETRIEVED = "kw-warranty#0-82d00d"
OTHER_TENANT = "lh-returns#0-b865da"
RAVIS_DRAFT = "kw-price-plan#0-1d7474"


def reply(answer: str, citations: list[str]) -> str:
    return json.dumps({"answer": answer, "citations": citations})


def ask(*replies: str, session: Session = ANA, question: str = QUESTION) -> tuple[Outcome, ScriptedClient]:
    client = ScriptedClient(list(replies))
    return answer_question(session, LIBRARY, question, client), client


def test_the_ids_used_here_exist_and_only_the_first_is_retrieved_for_ana() -> None:
    assert RETRIEVED[0] == "kw-returns#0-8a6401" and len(RETRIEVED) == 3
    assert all(LIBRARY.chunk(c) is not None for c in (OWN_NOT_RETRIEVED, OTHER_TENANT, RAVIS_DRAFT))
    assert not {OWN_NOT_RETRIEVED, OTHER_TENANT, RAVIS_DRAFT} & set(RETRIEVED)


@pytest.mark.parametrize(("citations", "reason", "offending"), [
    ([RETRIEVED[0]], ANSWERED, ()),
    ([RETRIEVED[2], RETRIEVED[0], RETRIEVED[0]], ANSWERED, ()),
    ([], NO_CITATION, ()),
    ([RETRIEVED[0], OWN_NOT_RETRIEVED], CITES_UNRETRIEVED, (OWN_NOT_RETRIEVED,)),
    (["kw-returns#7-abcdef"], CITES_UNRETRIEVED, ("kw-returns#7-abcdef",)),
    ([OTHER_TENANT], CITES_UNREADABLE, (OTHER_TENANT,)),
    ([RAVIS_DRAFT, OWN_NOT_RETRIEVED], CITES_UNREADABLE, (RAVIS_DRAFT,)),  # unreadable is checked first
])
def test_check_citations_names_the_first_failure_and_the_ids(citations: list[str], reason: str,
                                                             offending: tuple[str, ...]) -> None:
    answer = CitedAnswer(answer="Within 30 days.", citations=citations)
    assert check_citations(answer, HITS, ANA, LIBRARY) == (reason, offending)


def test_a_cited_chunk_of_another_tenant_is_readable_to_its_own_user_but_still_not_retrieved() -> None:
    answer = CitedAnswer(answer="Within 14 days.", citations=[OTHER_TENANT])
    assert check_citations(answer, HITS, Session("mira"), LIBRARY) == (CITES_UNRETRIEVED, (OTHER_TENANT,))


def test_an_answer_citing_what_it_was_given_is_answered() -> None:
    outcome, client = ask(reply("Within 30 days of delivery.", [RETRIEVED[0]]))
    assert (outcome.reason, outcome.shown, outcome.attempts) == (ANSWERED, "Within 30 days of delivery.", 1)
    assert outcome.retrieved == tuple(RETRIEVED) and outcome.citations == (RETRIEVED[0],) and outcome.flagged == {}
    sent = client.requests[0].messages[-1].content
    assert all(f'source="doc:{c}"' in sent for c in RETRIEVED) and OWN_NOT_RETRIEVED not in sent


@pytest.mark.parametrize(("citations", "reason"), [
    ([], NO_CITATION), ([OWN_NOT_RETRIEVED], CITES_UNRETRIEVED), ([OTHER_TENANT], CITES_UNREADABLE),
])
def test_every_refusal_shows_the_user_the_same_text(citations: list[str], reason: str) -> None:
    outcome, _ = ask(reply("Within 14 days.", citations))
    assert (outcome.reason, outcome.shown, outcome.answer) == (reason, REFUSAL, "Within 14 days.")
    assert "14" not in outcome.shown and OTHER_TENANT not in outcome.shown


def test_nothing_retrieved_means_no_model_call() -> None:
    for session, question in ((Session(""), QUESTION), (ANA, "Is there a battery recall?")):
        outcome, client = ask(session=session, question=question)  # an empty script: a call would raise
        assert (outcome.reason, outcome.shown, outcome.attempts) == (NOTHING_RETRIEVED, REFUSAL, 0)
        assert outcome.retrieved == () and client.requests == []


def test_a_reply_that_is_not_a_cited_answer_gets_one_repair_then_a_named_refusal() -> None:
    outcome, client = ask("Within 30 days.", reply("Within 30 days.", [RETRIEVED[0]]))
    assert (outcome.reason, outcome.attempts, len(client.requests)) == (ANSWERED, 2, 2)
    outcome, _ = ask("Within 30 days.", "Still not JSON.")
    assert (outcome.reason, outcome.shown, outcome.attempts) == ("invalid_json", REFUSAL, 2)
    outcome, _ = ask(json.dumps({"answer": "x", "citations": [], "confidence": 1}), json.dumps({"answer": ""}))
    assert outcome.reason == "schema_mismatch"


def test_the_flagged_chunks_travel_with_the_outcome() -> None:
    k2 = "Does the K2 work on an induction hob?"
    outcome, _ = ask(reply("No: it needs its own base.", ["kw-k2-faq#1-6d7cad"]), question=k2)
    assert outcome.reason == ANSWERED and set(outcome.flagged) == {"kw-k2-faq#1-6d7cad", "kw-k2-faq#0-788e4b"}


def test_provider_errors_are_not_swallowed() -> None:
    with pytest.raises(Overloaded):
        ask(Overloaded("busy", "alpha"))  # type: ignore[arg-type]
    with pytest.raises(ScriptExhausted):
        ask("not JSON")  # the repair has no reply left in the script


@pytest.mark.parametrize("data", [
    {"answer": "x", "citations": ["a"], "extra": 1}, {"answer": "", "citations": []},
    {"answer": "x", "citations": ["a"] * 6}, {"answer": "x", "citations": [1]}, {"answer": "x"},
    {"answer": "x", "citations": [""]},
])
def test_cited_answer_is_strict(data: dict) -> None:
    with pytest.raises(ValidationError):
        CitedAnswer.model_validate(data)


def test_the_reasons_are_named_once() -> None:
    assert len(set(REASONS)) == len(REASONS) == 5 and REASONS[0] == ANSWERED
