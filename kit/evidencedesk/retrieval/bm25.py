"""A small BM25 ranker: which chunks share the most telling words with a question.

BM25 scores a chunk for a query as a sum over the query's distinct terms of
    idf(term) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / average length))
where tf is how often the term occurs in the chunk and length counts the chunk's terms. The weight is
BM25's as Robertson and Zaragoza give it in "The Probabilistic Relevance Framework: BM25 and Beyond"
(Foundations and Trends in Information Retrieval 3(4), 2009, section 3.4); the factor (k1 + 1) scales
every score alike and changes no ranking. idf(term) = log(1 + (N - n + 0.5) / (n + 0.5)), with N chunks
of which n hold the term, is the form Apache Lucene's BM25Similarity uses, and so are the defaults
K1 = 1.2 and B = 0.75 (https://lucene.apache.org/core/10_3_1/core/org/apache/lucene/search/similarities/
BM25Similarity.html, read December 2026): unlike the paper's log((N - n + 0.5) / (n + 0.5)) it never goes
below zero, which in a small set of chunks a term found in more than half of them would.
Every figure (N, n, the average length) comes from the chunks the index was built over, and from no
others: which chunks those are is access control's question (access.py). Terms are the lower-case runs of
letters and digits of a text's visible form (security.visible), less a short list of STOPWORDS. Ties are
broken by chunk id, in string order, so equal scores come back in the same order on every run. Left out:
stemming ("refund" and "refunds" are two terms), synonyms, phrases, and an index kept on disk.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from evidencedesk.retrieval.chunking import Chunk
from evidencedesk.security import visible

K1 = 1.2  # how fast repeats of a term stop adding to the score (0: a term counts once, however often)
B = 0.75  # how much a chunk's length discounts its term counts (0: not at all, 1: fully)
TOP_K = 3  # chunks returned for a question, by default
TERM = re.compile(r"[a-z0-9]+")
# Common English words that name no topic; dropped from texts and queries alike.
STOPWORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "can", "do", "does", "for", "from", "has", "have",
    "how", "i", "if", "in", "is", "it", "its", "me", "my", "no", "not", "of", "on", "or", "our", "so", "that",
    "the", "their", "them", "then", "there", "this", "to", "was", "we", "what", "when", "where", "which",
    "who", "will", "with", "you", "your",
})


def terms(text: str) -> list[str]:
    """The terms of text, in order: lower-case runs of letters and digits of its visible form, less STOPWORDS.

    Args: text (str). Returns: list of str. Raises: TypeError for a non-str.
    Example: terms("Can I return the K2 kettle?") -> ["return", "k2", "kettle"]
    """
    return [t for t in TERM.findall(visible(text).lower()) if t not in STOPWORDS]


@dataclass(frozen=True)
class Hit:
    """One ranked chunk: chunk (Chunk) and score (float, BM25, > 0). Example: hit.chunk.id, round(hit.score, 3)"""

    chunk: Chunk
    score: float


@dataclass(frozen=True)
class BM25Index:
    """The statistics of BM25 over exactly the chunks given, and search over them.

    Args: chunks (iterable of Chunk, ids unique); k1 (float >= 0); b (float, 0 to 1).
    Attributes: chunks (tuple); count (int, N); average_length (float, terms; 0.0 with no chunks);
    document_frequency (dict term -> n, chunks holding the term).
    Raises: TypeError for an item that is not a Chunk; ValueError naming k1, b or a repeated chunk id.
    Example: BM25Index(chunks).search("return a kettle", k=3)
    """

    chunks: tuple[Chunk, ...]
    k1: float = K1
    b: float = B
    count: int = field(init=False)
    average_length: float = field(init=False)
    document_frequency: dict[str, int] = field(init=False, repr=False)
    _counts: tuple[Counter[str], ...] = field(init=False, repr=False)

    def __init__(self, chunks: Iterable[Chunk], k1: float = K1, b: float = B) -> None:
        chunks = tuple(chunks)
        for index, chunk in enumerate(chunks):
            if not isinstance(chunk, Chunk):
                raise TypeError(f"chunks[{index}] must be a Chunk, got {type(chunk).__name__}")
        if len({c.id for c in chunks}) < len(chunks):
            raise ValueError("chunks: two chunks share an id")
        number = (int, float)
        if isinstance(k1, bool) or not isinstance(k1, number) or not 0 <= k1 < math.inf:
            raise ValueError(f"k1 must be a finite number >= 0, got {k1!r}")
        if isinstance(b, bool) or not isinstance(b, number) or not 0 <= b <= 1:
            raise ValueError(f"b must be a number from 0 to 1, got {b!r}")
        counts = tuple(Counter(terms(c.text)) for c in chunks)
        total = sum(sum(c.values()) for c in counts)
        keep = object.__setattr__  # the dataclass is frozen: its fields are set here, once
        keep(self, "chunks", chunks)
        keep(self, "k1", float(k1))
        keep(self, "b", float(b))
        keep(self, "count", len(chunks))
        keep(self, "average_length", total / len(chunks) if chunks else 0.0)
        keep(self, "document_frequency", dict(Counter(t for c in counts for t in c)))
        keep(self, "_counts", counts)

    def idf(self, term: str) -> float:
        """log(1 + (N - n + 0.5) / (n + 0.5)) for term (str) over this index's chunks: > 0, higher when rarer.

        Example: index.idf("kettle")
        """
        n = self.document_frequency.get(term, 0)
        return math.log(1 + (self.count - n + 0.5) / (n + 0.5))

    def score(self, query: str, position: int) -> float:
        """The BM25 score of chunk number position (int, in self.chunks) for query (str); 0.0 when no term matches.

        Example: index.score("return a kettle", 0)
        """
        counts = self._counts[position]
        total = 0.0
        for term in dict.fromkeys(terms(query)):  # each distinct term once, in query order
            tf = counts.get(term, 0)
            if tf:  # then the chunk has terms, and so the average length is > 0
                norm = 1 - self.b + self.b * sum(counts.values()) / self.average_length
                total += self.idf(term) * tf * (self.k1 + 1) / (tf + self.k1 * norm)
        return total

    def search(self, query: str, k: int = TOP_K, among: frozenset[str] | None = None) -> list[Hit]:
        """The k best chunks for query, best first: score > 0 only, ties broken by chunk id (string order).

        Args: query (str); k (int >= 1); among (frozenset of chunk ids, or None for every chunk): rank only
        these, still with the statistics of every chunk of the index.
        Returns: list of Hit, at most k. Raises: ValueError naming k; TypeError for a non-str query.
        Example: [h.chunk.id for h in index.search("return a kettle", k=2)]
        """
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError(f"k must be an int >= 1, got {k!r}")
        hits = [Hit(chunk, self.score(query, i)) for i, chunk in enumerate(self.chunks)
                if among is None or chunk.id in among]
        ranked = sorted((h for h in hits if h.score > 0), key=lambda h: (-h.score, h.chunk.id))
        return ranked[:k]
