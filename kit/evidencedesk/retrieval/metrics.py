"""recall@k, precision@k and MRR on a small labelled query set: how often, and how high, retrieval finds what a
question needs.

kit/data/retrieval/queries.jsonl holds one question per line: who asks it, the question, and its labels.
A label names a document and a phrase from it: one relevant passage. The chunks that hold the phrase are
that passage's chunks; with overlapping chunks a passage can sit in two of them. Labels by phrase, not by
chunk id, stay right when the chunk size changes, which is exactly when they are needed; a label that
matches no chunk is an error, not a zero. For the top k chunks retrieved (access.retrieve, for the asker's
session):
    precision@k = top-k chunks that hold a labelled passage / k
    recall@k    = labelled passages found in the top k / labelled passages
    RR@k        = 1 / rank of the first top-k chunk that holds a labelled passage (0 when none does)
Recall counts a passage once, however many of its chunks come back: counting chunks instead would score
a passage that sits in the overlap of two chunks 0.5 when one of them is found, an artefact of chunking.
Precision divides by k even when fewer than k chunks come back, or when fewer than k are relevant, so a
question with one relevant chunk scores at most 1/k. Recall ignores the order of the top k; the
reciprocal rank does not (its mean over the questions is MRR). Chunk sizes are compared at an equal
budget of tokens (k times the size), not at an equal k, since a larger chunk holds more text. That budget
is a cap, not what is spent: each Score also counts the chunk tokens actually handed over, which differ
by size (fewer small chunks share a word with the question, and many chunks are shorter than the size),
so read them beside the figures. None of the
three says whether the answer was right. Left out: nDCG and graded relevance, and confidence intervals (a
set this small has wide ones).
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
    return frozenset().union(*relevant_passages(query, chunks))


def relevant_passages(query: Query, chunks: Sequence[Chunk]) -> tuple[frozenset[str], ...]:
    """One set of chunk ids per label of query: the chunks of the label's document that hold its phrase.

    Each set is one relevant passage; two overlapping chunks that both hold it are one passage, not two.
    Args: query (Query); chunks (the chunks to look in). Returns: tuple of frozenset of str, in label order.
    Raises: QueryError naming the query and the label that matches no chunk.
    Example: relevant_passages(load_queries()[1], Library.load().chunks)  # q02: one passage, two chunks
    """
    passages = []
    for label in query.relevant:
        phrase = visible(label.phrase).casefold()
        ids = frozenset(c.id for c in chunks if c.doc_id == label.doc and phrase in visible(c.text).casefold())
        if not ids:
            raise QueryError(f"{query.id}: label {label.doc!r} / {label.phrase!r} matches no chunk")
        passages.append(ids)
    return tuple(passages)


def precision_at_k(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    """Relevant ids among the first k of ranked, divided by k (not by how many came back).

    Args: ranked (ids, best first); relevant (ids); k (int >= 1). Returns: float, 0 to 1.
    Raises: ValueError naming k. Example: precision_at_k(["a", "b"], {"a"}, 3) -> 0.333...
    """
    _check_k(k)
    return len(set(ranked[:k]) & set(relevant)) / k


def _check_k(k: object) -> None:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be an int >= 1, got {k!r}")


def recall_at_k(ranked: Sequence[str], passages: Sequence[Collection[str]], k: int) -> float:
    """Passages found among the first k of ranked, divided by the number of passages; each passage counts once.

    A passage is found when any of its chunk ids is in the top k, so a passage held by two overlapping chunks
    counts 1, not 1/2, when one of them comes back.
    Args: ranked (ids, best first); passages (at least one; each a collection of the ids that hold it);
    k (int >= 1). Returns: float, 0 to 1.
    Raises: ValueError naming k, or passages when it is empty (recall is undefined then) or holds an empty one.
    Example: recall_at_k(["a", "b"], [{"a", "x"}, {"c"}], 3) -> 0.5
    """
    _check_k(k)
    if not passages or not all(passages):
        raise ValueError("passages must hold at least one passage, each with at least one id: recall is undefined")
    top = set(ranked[:k])
    return sum(1 for passage in passages if top & set(passage)) / len(passages)


def reciprocal_rank(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    """1 / the rank (from 1) of the first relevant id among the first k of ranked; 0.0 when none is there.

    Its mean over the questions of a set is the mean reciprocal rank (MRR): unlike recall, it rewards a
    relevant chunk at rank 1 over one at rank 3.
    Args: ranked (ids, best first); relevant (ids); k (int >= 1). Returns: float, 0 to 1.
    Raises: ValueError naming k. Example: reciprocal_rank(["x", "a"], {"a"}, 3) -> 0.5
    """
    _check_k(k)
    return next((1 / rank for rank, item in enumerate(ranked[:k], start=1) if item in relevant), 0.0)


@dataclass(frozen=True)
class Score:
    """One query at one k: query id, k, relevant (int, labelled passages), found (int, passages found in the
    top k), precision, recall and rr (float, the reciprocal rank), and tokens (int, the chunk text handed over:
    the sum of the top-k chunks' tokens, at most k times the chunk size, fewer when fewer chunks match or are
    shorter). Example: Score("q01", 3, 1, 1, 0.333, 1.0, 0.5, 150)"""

    query: str
    k: int
    relevant: int
    found: int
    precision: float
    recall: float
    rr: float
    tokens: int


def evaluate(library: Library, queries: Sequence[Query], k: int) -> list[Score]:
    """Retrieve the top k for each query, as its user, and score it.

    Args: library (Library); queries (sequence of Query); k (int >= 1). Returns: list of Score, in query order.
    Raises: QueryError when a label matches no chunk, or names a document its query's user may not read.
    Example: [round(s.recall, 2) for s in evaluate(Library.load(), load_queries(), 3)]
    """
    scores = []
    for query in queries:
        session = Session(query.user)
        passages = relevant_passages(query, library.chunks)
        relevant = frozenset().union(*passages)
        unreadable = sorted(c for c in relevant if not may_read(session, library.chunk(c), library.tenants))
        if unreadable:
            raise QueryError(f"{query.id}: {query.user} may not read the labelled chunk {unreadable[0]}")
        hits = retrieve(session, library, query.question, k)
        ranked = [h.chunk.id for h in hits]
        found = sum(1 for passage in passages if set(ranked[:k]) & passage)
        scores.append(Score(query.id, k, len(passages), found, precision_at_k(ranked, relevant, k),
                            recall_at_k(ranked, passages, k), reciprocal_rank(ranked, relevant, k),
                            sum(h.chunk.tokens for h in hits[:k])))
    return scores


def k_for_budget(size: int, budget: int) -> int:
    """The k that spends a budget of tokens on chunks of at most size tokens: budget // size, at least 1.

    Compare chunk sizes at an equal budget (the same k * size), not at an equal k: at an equal k a larger
    chunk wins by holding more text, and costs more prompt. The budget caps what is handed over; what is
    spent is Score.tokens, which can differ from size to size.
    Args: size (int, tokens, >= 1); budget (int, tokens, >= size). Returns: int.
    Raises: ValueError naming size or budget. Example: k_for_budget(30, 120) -> 4
    """
    for name, value in (("size", size), ("budget", budget)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be an int >= 1 (tokens), got {value!r}")
    if budget < size:
        raise ValueError(f"budget must be at least one chunk of {size} tokens, got {budget}")
    return budget // size


def mean(values: Sequence[float]) -> float:
    """The arithmetic mean of values (a non-empty sequence of numbers). Raises: ValueError when empty.

    Example: mean([0.5, 1.0]) -> 0.75
    """
    if not values:
        raise ValueError("mean of no values")
    return sum(values) / len(values)
