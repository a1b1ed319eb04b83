"""recall@k and precision@k on a small labelled query set: how often retrieval finds what a question needs.

kit/data/retrieval/queries.jsonl holds one question per line: who asks it, the question, and its labels.
A label names a document and a phrase from it; the relevant chunks are that document's chunks that hold
the phrase. Labels by phrase, not by chunk id, stay right when the chunk size changes, which is exactly
when they are needed; a label that matches no chunk is an error, not a zero. For the top k chunks
retrieved (access.retrieve, for the asker's session):
    precision@k = relevant chunks among the top k / k
    recall@k    = relevant chunks among the top k / all relevant chunks
Precision divides by k even when fewer than k chunks come back, or when fewer than k are relevant, so a
question with one relevant chunk scores at most 1/k. Recall ignores the order of the top k: a relevant
chunk in third place counts as much as one in first. Neither says whether the answer was right. Left
out: rank-aware measures (MRR, nDCG), graded relevance, and confidence intervals (a set this small has
wide ones).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from evidencedesk.retrieval.access import Library, may_read, retrieve
from evidencedesk.retrieval.chunking import RETRIEVAL_DATA, Chunk
from evidencedesk.security import Session, visible
from evidencedesk.strictjson import read_jsonl


class QueryError(ValueError):
    """A row of the query set is malformed, or a label matches no chunk; the message names which."""


class Label(BaseModel):
    """A relevant passage: a document id and a phrase of it (matched case-insensitively, visible form)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    doc: Annotated[str, Field(min_length=1, max_length=40)]
    phrase: Annotated[str, Field(min_length=3, max_length=80)]


class Query(BaseModel):
    """One labelled question: id (q01...), user (who asks), question, relevant (at least one Label)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    id: Annotated[str, Field(pattern=r"^q[0-9]{2}$")]
    user: Annotated[str, Field(min_length=1, max_length=40)]
    question: Annotated[str, Field(min_length=1, max_length=200)]
    relevant: Annotated[list[Label], Field(min_length=1)]


def load_queries(path: str | Path | None = None) -> list[Query]:
    """The labelled query set, one strict JSON object per line (blank lines skipped), ids unique.

    Args: path (str or Path; default kit/data/retrieval/queries.jsonl). Returns: list of Query, in order.
    Raises: QueryError naming the file, and the line and the field of a bad row or a repeated id.
    Example: load_queries()[0].question
    """
    path = Path(path) if path is not None else RETRIEVAL_DATA / "queries.jsonl"
    return [query for _, _, query in read_jsonl(path, Query.model_validate, QueryError, "query set")]


def relevant_ids(query: Query, chunks: Sequence[Chunk]) -> frozenset[str]:
    """The ids of the chunks that hold a label's phrase, in the label's document, over every label of query.

    Args: query (Query); chunks (the chunks to look in, e.g. Library.chunks). Returns: frozenset of str.
    Raises: QueryError naming the query and the label that matches no chunk.
    Example: relevant_ids(load_queries()[0], Library.load().chunks)
    """
    found: set[str] = set()
    for label in query.relevant:
        phrase = visible(label.phrase).casefold()
        ids = {c.id for c in chunks if c.doc_id == label.doc and phrase in visible(c.text).casefold()}
        if not ids:
            raise QueryError(f"{query.id}: label {label.doc!r} / {label.phrase!r} matches no chunk")
        found |= ids
    return frozenset(found)


def precision_at_k(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    """Relevant ids among the first k of ranked, divided by k (not by how many came back).

    Args: ranked (ids, best first); relevant (ids); k (int >= 1). Returns: float, 0 to 1.
    Raises: ValueError naming k. Example: precision_at_k(["a", "b"], {"a"}, 3) -> 0.333...
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be an int >= 1, got {k!r}")
    return len(set(ranked[:k]) & set(relevant)) / k


def recall_at_k(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    """Relevant ids among the first k of ranked, divided by the number of relevant ids.

    Args: ranked (ids, best first); relevant (ids, at least one); k (int >= 1). Returns: float, 0 to 1.
    Raises: ValueError naming k, or relevant when it is empty (recall is undefined then).
    Example: recall_at_k(["a", "b"], {"a", "c"}, 3) -> 0.5
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be an int >= 1, got {k!r}")
    if not relevant:
        raise ValueError("relevant must hold at least one id: recall is undefined without relevant items")
    return len(set(ranked[:k]) & set(relevant)) / len(set(relevant))


@dataclass(frozen=True)
class Score:
    """One query at one k: query id, k, relevant (int, chunks), found (int, relevant among the top k),
    precision and recall (float). Example: Score("q01", 3, 2, 1, 0.333, 0.5)"""

    query: str
    k: int
    relevant: int
    found: int
    precision: float
    recall: float


def evaluate(library: Library, queries: Sequence[Query], k: int) -> list[Score]:
    """Retrieve the top k for each query, as its user, and score it.

    Args: library (Library); queries (sequence of Query); k (int >= 1). Returns: list of Score, in query order.
    Raises: QueryError when a label matches no chunk, or names a document its query's user may not read.
    Example: [round(s.recall, 2) for s in evaluate(Library.load(), load_queries(), 3)]
    """
    scores = []
    for query in queries:
        session = Session(query.user)
        relevant = relevant_ids(query, library.chunks)
        unreadable = sorted(c for c in relevant if not may_read(session, library.chunk(c), library.tenants))
        if unreadable:
            raise QueryError(f"{query.id}: {query.user} may not read the labelled chunk {unreadable[0]}")
        ranked = [h.chunk.id for h in retrieve(session, library, query.question, k)]
        found = len(set(ranked[:k]) & relevant)
        scores.append(Score(query.id, k, len(relevant), found, precision_at_k(ranked, relevant, k),
                            recall_at_k(ranked, relevant, k)))
    return scores


def mean(values: Sequence[float]) -> float:
    """The arithmetic mean of values (a non-empty sequence of numbers). Raises: ValueError when empty.

    Example: mean([0.5, 1.0]) -> 0.75
    """
    if not values:
        raise ValueError("mean of no values")
    return sum(values) / len(values)
