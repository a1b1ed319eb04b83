"""Retrieval with access control: filter by tenant and owner first, then rank what is left, and only that.

A Library holds the documents of several tenants (shops), their chunks, and which tenant each user
belongs to (kit/data/retrieval/users.json). may_read() is the rule: a signed-in user reads a chunk of
their own tenant whose document belongs to the whole tenant (owner "") or to them (security.can_read).
retrieve() is the right order: the candidates are the chunks the session may read, the BM25 statistics
are computed over those candidates alone, and then the top k are taken. Two wrong orders are kept here,
named for what they do, so the page and the tests can show their leaks; never serve either.
rank_then_filter() ranks every tenant's chunks and drops the unreadable ones afterwards: fewer than k
come back, and the gap says that someone else's documents match (an Elasticsearch kNN search whose filter
sits outside the knn clause filters after ranking the same way). filter_with_global_stats() ranks only
readable chunks but with statistics of every tenant: the scores a user sees move when another tenant's
private documents change. The kit builds the index for each question over the allowed chunks, which is
quick for a few dozen chunks; a search engine does not: in Lucene, Elasticsearch and OpenSearch a filter
clause leaves the statistics to the shard, over every document it holds, and custom routing only picks
which shared shard a tenant lands on, so there the fix is an index per tenant. Left out: authentication (a
Session says who is asking), groups and roles, and indexes kept per tenant.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from evidencedesk.retrieval.bm25 import TOP_K, BM25Index, Hit
from evidencedesk.retrieval.chunking import (
    CHUNK_TOKENS,
    OVERLAP_TOKENS,
    RETRIEVAL_DATA,
    Chunk,
    Document,
    DocumentError,
    chunk_document,
    load_documents,
)
from evidencedesk.security import Session, can_read
from evidencedesk.strictjson import read_json


def load_tenants(path: str | Path | None = None) -> Mapping[str, str]:
    """Which tenant each user belongs to: a JSON object {user id: tenant}.

    Args: path (str or Path; default kit/data/retrieval/users.json). Returns: a read-only mapping.
    Raises: DocumentError naming the file when it cannot be read or is not an object of non-empty strings.
    Example: load_tenants()["ana"] -> "kettlewise"
    """
    path = Path(path) if path is not None else RETRIEVAL_DATA / "users.json"
    try:
        data = read_json(path)
    except (OSError, ValueError) as exc:
        raise DocumentError(f"{path.name}: cannot read the users ({exc})") from exc
    if not isinstance(data, dict) or not all(isinstance(v, str) and v and k for k, v in data.items()):
        raise DocumentError(f"{path.name}: expected an object of user id -> tenant, both non-empty strings")
    return MappingProxyType(dict(data))


def may_read(session: Session, item: Document | Chunk, tenants: Mapping[str, str]) -> bool:
    """True when session may read item: signed in, in item's tenant, and item's owner is "" or session's user.

    Args: session (security.Session); item (Document or Chunk: both carry tenant and owner);
    tenants (mapping user id -> tenant). Returns: bool; nobody signed in reads nothing.
    Example: may_read(Session("ana"), chunk_of_ravis_draft, tenants) -> False
    """
    if not session.user_id or tenants.get(session.user_id) != item.tenant:
        return False
    return item.owner == "" or can_read(session, item.owner)


@dataclass(frozen=True)
class Library:
    """Every tenant's documents, their chunks (of size and overlap tokens) and the users' tenants.

    Build one with Library.load() (the kit's data) or Library.of(documents, tenants). Fields: documents
    (tuple of Document), tenants (mapping user id -> tenant), size and overlap (int, tokens), chunks
    (tuple of Chunk, in document order). Example: Library.load().readable(Session("ana"))
    """

    documents: tuple[Document, ...]
    tenants: Mapping[str, str]
    size: int = CHUNK_TOKENS
    overlap: int = OVERLAP_TOKENS
    chunks: tuple[Chunk, ...] = field(init=False)

    def __post_init__(self) -> None:
        ids = [d.id for d in self.documents]
        if len(set(ids)) < len(ids):
            raise ValueError("documents: two documents share an id")
        chunks = tuple(c for d in self.documents for c in chunk_document(d, self.size, self.overlap))
        object.__setattr__(self, "chunks", chunks)

    @classmethod
    def load(cls, size: int = CHUNK_TOKENS, overlap: int = OVERLAP_TOKENS) -> Library:
        """The kit's library: kit/data/retrieval/documents.json and users.json, chunked with size and overlap
        (int, tokens). Raises: DocumentError naming a malformed file. Example: Library.load(size=40)"""
        return cls(load_documents(), load_tenants(), size, overlap)

    def with_document(self, doc: Document) -> Library:
        """A new library with doc (Document) added, or put in place of the document with the same id.

        The other documents, and so their chunks and chunk ids, stay as they were.
        Raises: TypeError when doc is not a Document.
        Example: library.with_document(doc.model_copy(update={"text": "..."}))
        """
        if not isinstance(doc, Document):
            raise TypeError(f"doc must be a Document, got {type(doc).__name__}")
        if any(d.id == doc.id for d in self.documents):
            documents = tuple(doc if d.id == doc.id else d for d in self.documents)
        else:
            documents = (*self.documents, doc)
        return Library(documents, self.tenants, self.size, self.overlap)

    def readable(self, session: Session) -> tuple[Chunk, ...]:
        """The chunks session (security.Session) may read (may_read), in library order. Example: len(lib.readable(s))"""
        return tuple(c for c in self.chunks if may_read(session, c, self.tenants))

    def chunk(self, chunk_id: str) -> Chunk | None:
        """The chunk with this id (str), or None. Example: library.chunk("kw-delivery#0-...")"""
        return next((c for c in self.chunks if c.id == chunk_id), None)


def retrieve(session: Session, library: Library, query: str, k: int = TOP_K) -> list[Hit]:
    """The right order: keep the chunks session may read, build BM25 over those alone, take the top k.

    Nothing the session may not read is ranked, counted or used for a statistic, so neither the hits, nor
    their number, nor their scores depend on another tenant's or another owner's documents.
    Args: session (Session); library (Library); query (str); k (int >= 1).
    Returns: list of Hit, at most k, best first (bm25.BM25Index.search); [] when nothing matches.
    Example: [h.chunk.doc_id for h in retrieve(Session("ana"), Library.load(), "return a kettle")]
    """
    return BM25Index(library.readable(session)).search(query, k)


def rank_then_filter(session: Session, library: Library, query: str, k: int = TOP_K) -> tuple[list[Hit], int]:
    """THE WRONG ORDER, kept to show its leak: rank every tenant's chunks, take the top k, then drop the
    unreadable ones.

    Returns: (the hits session may read, how many of the top k were dropped). A non-zero count, or any
    answer shorter than k, tells the user that other people's documents match the query.
    Example: rank_then_filter(Session("ana"), Library.load(), "battery recall")  # ([], 3)
    """
    top = BM25Index(library.chunks).search(query, k)
    shown = [h for h in top if may_read(session, h.chunk, library.tenants)]
    return shown, len(top) - len(shown)


def filter_with_global_stats(session: Session, library: Library, query: str, k: int = TOP_K) -> list[Hit]:
    """A WRONG ORDER, kept to show its side channel: rank only the chunks session may read, but with BM25
    statistics (N, n, average length) of every tenant's chunks.

    The hits are all readable, yet their scores change when another tenant adds, edits or removes a
    document that shares a term with the query. Returns: list of Hit, at most k.
    Example: filter_with_global_stats(Session("ana"), Library.load(), "warranty")[0].score
    """
    allowed = frozenset(c.id for c in library.readable(session))
    return BM25Index(library.chunks).search(query, k, among=allowed)
