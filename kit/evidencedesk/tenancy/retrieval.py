"""Page 3's BM25 with an index per tenant, and what a shared index with a tenant filter still tells.

TenantIndexes keeps one Library (retrieval.access) per tenant: a tenant's documents, chunks and BM25
statistics live apart from every other tenant's, and search() runs page 3's retrieve() inside that
library, so its owner rule for private documents still holds. shared_search() is how a single shared
index is usually queried: every tenant's chunks in one index, a filter on tenant and owner. With
order="filter" the filter picks the candidates but the statistics (N, each term's n, the average length)
stay the whole index's, which is what a filter clause does in Lucene-based engines; with
order="rank_first" the top k are taken over everyone and filtered afterwards, the gap page 3 showed.
infer_document_frequency() is the side channel made concrete, after the STRESS attack of Wang et al.
(IEEE S&P 2017): from the scores of three single-word searches that hit one chunk the tenant wrote itself,
it solves BM25's idf for the index's chunk count N and for n, the chunks holding a term. Left out: real
engines' shards, deletions still counted until a merge, and vector indexes (the same reasoning holds).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from evidencedesk.retrieval.access import Library, retrieve
from evidencedesk.retrieval.bm25 import TOP_K, BM25Index, Hit
from evidencedesk.retrieval.chunking import Chunk, Document
from evidencedesk.security import Session
from evidencedesk.tenancy.context import TenantContext

PROBE_WORDS = ("qzxone", "qzxtwo")  # invented words no real document holds: the attacker's rulers
MAX_CHUNKS = 100_000  # the largest index infer_document_frequency() considers


class TenantIndexes:
    """One page-3 Library per tenant. users: tenant -> user ids (ids repeat across tenants freely).

    Example: TenantIndexes(documents, {"quillmere": ("sam",)}).search(ctx, "refund")
    """

    def __init__(self, documents: Iterable[Document], users: Mapping[str, Iterable[str]]) -> None:
        self.users = {tenant: tuple(ids) for tenant, ids in users.items()}
        docs = tuple(documents)
        self.libraries = {tenant: Library(tuple(d for d in docs if d.tenant == tenant),
                                          {user: tenant for user in ids})
                          for tenant, ids in self.users.items()}

    def add(self, doc: Document) -> None:
        """Add (or replace) doc in its own tenant's library only. Raises KeyError for an unknown tenant."""
        self.libraries[doc.tenant] = self.libraries[doc.tenant].with_document(doc)

    def search(self, ctx: TenantContext, query: str, k: int = TOP_K) -> list[Hit]:
        """Page 3's retrieve() inside ctx's tenant's library; [] for a tenant or user it does not know."""
        library = self.libraries.get(ctx.tenant)
        if library is None or ctx.user not in self.users[ctx.tenant]:
            return []
        return retrieve(Session(ctx.user), library, query, k)

    def chunks(self) -> tuple[Chunk, ...]:
        """Every tenant's chunks, tenant by tenant: what one shared index would hold."""
        return tuple(c for lib in self.libraries.values() for c in lib.chunks)


def _allowed(ctx: TenantContext, chunk: Chunk) -> bool:
    return chunk.tenant == ctx.tenant and chunk.owner in ("", ctx.user)


def shared_search(ctx: TenantContext, chunks: Iterable[Chunk], query: str, k: int = TOP_K,
                  order: str = "filter") -> list[Hit]:
    """A WRONG DESIGN, kept to show it: one index over every tenant's chunks, filtered for ctx.

    order "filter": rank only ctx's chunks, with the statistics of the whole index (a filter clause);
    "rank_first": top k over everyone, then drop what ctx may not read. Raises ValueError naming order.
    Example: shared_search(ctx, indexes.chunks(), "recall")
    """
    chunks = tuple(chunks)
    index = BM25Index(chunks)
    if order == "filter":
        return index.search(query, k, among=frozenset(c.id for c in chunks if _allowed(ctx, c)))
    if order == "rank_first":
        return [h for h in index.search(query, k) if _allowed(ctx, h.chunk)]
    raise ValueError(f"order must be 'filter' or 'rank_first', got {order!r}")


def probe_documents(tenant: str, term: str) -> tuple[Document, Document]:
    """The attacker's two documents: one holding both probe words and term once each, one holding the second.

    Example: probe_documents("brassfern", "recall")[0].text -> "qzxone qzxtwo recall"
    """
    one, two = PROBE_WORDS
    return (Document(id=f"{tenant}-probe-a", tenant=tenant, owner="", title="probe", text=f"{one} {two} {term}"),
            Document(id=f"{tenant}-probe-b", tenant=tenant, owner="", title="probe", text=f"{two} filler"))


def _idf(n: int, count: int) -> float:
    return math.log(1 + (count - n + 0.5) / (n + 0.5))


def infer_document_frequency(one: float, two: float, term: float) -> tuple[int, int]:
    """(N, n): the chunks of the index, and how many hold a term, from three scores of one chunk.

    The scores are those the attacker's probe chunk gets for three one-word searches: one for
    PROBE_WORDS[0] (a word in 1 chunk), two for PROBE_WORDS[1] (in 2 chunks), term for the word asked
    about. In one chunk holding each word once, BM25's length factor is the same for all three, so the
    ratios of the scores are ratios of idf, which depend only on N and on each word's n.
    Returns: (N, n), n counting the probe chunk itself. Raises ValueError when a score is not > 0.
    Example: infer_document_frequency(2.1, 1.7, 0.9)
    """
    if min(one, two, term) <= 0:
        raise ValueError(f"every probe score must be > 0, got {one}, {two}, {term}")
    count = min(range(2, MAX_CHUNKS), key=lambda c: abs(_idf(2, c) / _idf(1, c) - two / one))
    target = term / one * _idf(1, count)
    holding = min(range(1, count + 1), key=lambda n: abs(_idf(n, count) - target))
    return count, holding
