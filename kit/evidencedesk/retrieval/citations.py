"""Citations checked against what was retrieved: an answer may cite only the chunks it was given.

answer_question() runs the whole path for one question: retrieve (access.retrieve) for the session,
build the request (prompt.build_request), ask the model for a CitedAnswer as JSON through
calling.structured.ask_structured (strict JSON, one bounded repair), then check_citations(). An answer
passes only if it cites at least one chunk, every chunk it cites is one the session may read, and every
one was retrieved for this question. Each failure has a named reason for the log. The user sees one and
the same REFUSAL text whatever the reason: a message that said "you cited another tenant's chunk" would
tell the user that the chunk exists, the leak access control is there to stop. When nothing is
retrieved, the model is not called at all. Left out: checking that a cited chunk supports the claim made
with it (that takes a reader or a grader, not an id check), and quoting spans within chunks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from evidencedesk.calling.structured import OutputRefused, ask_structured
from evidencedesk.llm import LLMClient
from evidencedesk.retrieval.access import Library, may_read, retrieve
from evidencedesk.retrieval.bm25 import TOP_K, Hit
from evidencedesk.retrieval.prompt import build_request, signals
from evidencedesk.security import Session

ANSWERED = "answered"  # the answer cites only chunks retrieved for it, which the session may read
NOTHING_RETRIEVED = "nothing_retrieved"  # no readable chunk matched: no model call, nothing to cite
NO_CITATION = "no_citation"  # the answer cites nothing, so nothing backs it
CITES_UNREADABLE = "cites_unreadable"  # it cites a chunk the session may not read: an alert, not just a refusal
CITES_UNRETRIEVED = "cites_unretrieved"  # it cites a chunk (or an id) that was not retrieved for this question
REASONS = (ANSWERED, NOTHING_RETRIEVED, NO_CITATION, CITES_UNREADABLE, CITES_UNRETRIEVED)
REFUSAL = "I could not answer that from the documents you can see."  # shown for every refusal alike
MAX_CITATIONS = 5


class CitedAnswer(BaseModel):
    """The answer the model must return: its text and the chunk ids it used. Strict: no extra fields.

    Example: CitedAnswer(answer="Within 30 days.", citations=["kw-returns#0-8a6401"])
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    answer: Annotated[str, Field(min_length=1, max_length=600)]
    citations: Annotated[list[Annotated[str, Field(min_length=1, max_length=80)]], Field(max_length=MAX_CITATIONS)]


@dataclass(frozen=True)
class Outcome:
    """How one question ended.

    Fields: reason (one of REASONS, or a structured-output code such as "invalid_json"); shown (str, what the
    user reads: the answer, or REFUSAL); answer (str, the model's text, "" when none came back); citations
    (tuple of str, as the model wrote them); offending (tuple of str, the citations that failed the check);
    retrieved (tuple of str, chunk ids in rank order); flagged (dict chunk id -> injection signals);
    attempts (int, model calls: 0 when nothing was retrieved).
    Example: outcome.reason, outcome.shown
    """

    reason: str
    shown: str
    answer: str = ""
    citations: tuple[str, ...] = ()
    offending: tuple[str, ...] = ()
    retrieved: tuple[str, ...] = ()
    flagged: dict[str, list[str]] = field(default_factory=dict)
    attempts: int = 0


def check_citations(answer: CitedAnswer, hits: Sequence[Hit], session: Session,
                    library: Library) -> tuple[str, tuple[str, ...]]:
    """(ANSWERED, ()) when answer cites at least one chunk and only retrieved ones; else (reason, the bad ids).

    Checked in this order: NO_CITATION; CITES_UNREADABLE, for cited ids of chunks in library that session
    may not read; CITES_UNRETRIEVED, for cited ids not among hits (made-up ids included).
    Args: answer (CitedAnswer); hits (the hits retrieved for this question); session (Session);
    library (Library). Returns: (str, tuple of str).
    Example: check_citations(CitedAnswer(answer="x", citations=[]), hits, session, library) -> ("no_citation", ())
    """
    cited = tuple(dict.fromkeys(answer.citations))
    if not cited:
        return NO_CITATION, ()
    unreadable = tuple(c for c in cited if (chunk := library.chunk(c)) is not None
                       and not may_read(session, chunk, library.tenants))
    if unreadable:
        return CITES_UNREADABLE, unreadable
    retrieved = {h.chunk.id for h in hits}
    unretrieved = tuple(c for c in cited if c not in retrieved)
    return (CITES_UNRETRIEVED, unretrieved) if unretrieved else (ANSWERED, ())


def answer_question(session: Session, library: Library, question: str, client: LLMClient,
                    k: int = TOP_K) -> Outcome:
    """Retrieve for session, ask the model for a CitedAnswer, check its citations; never raise on a bad reply.

    Args: session (Session); library (Library); question (str); client (LLMClient, e.g. llm.ScriptedClient);
    k (int, chunks retrieved). Returns: Outcome. Raises: the client's LLMError as it is.
    Example: answer_question(Session("ana"), Library.load(), "Who pays for returns?", client).reason
    """
    hits = retrieve(session, library, question, k)
    retrieved, flagged = tuple(h.chunk.id for h in hits), signals(hits)
    if not hits:
        return Outcome(NOTHING_RETRIEVED, REFUSAL)
    try:
        structured = ask_structured(client, build_request(question, hits), CitedAnswer, native=False)
    except OutputRefused as refused:
        return Outcome(refused.code, REFUSAL, retrieved=retrieved, flagged=flagged, attempts=refused.attempts)
    reply = structured.value
    assert isinstance(reply, CitedAnswer)  # ask_structured returns an instance of the model it was given
    reason, offending = check_citations(reply, hits, session, library)
    return Outcome(reason, reply.answer if reason == ANSWERED else REFUSAL, reply.answer, tuple(reply.citations),
                   offending, retrieved, flagged, structured.attempts)
