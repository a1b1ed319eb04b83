"""Chunking with overlap, and chunk ids that stay stable: documents cut into pieces a retriever can rank.

chunk_document() cuts a document's text between words into chunks of at most `size` tokens, each
starting up to `overlap` tokens before the previous one ended, so that a passage cut at a boundary is
still whole in the next chunk when it is no longer than the overlap and the overlap is less than half
the size (the defaults: 15 and 60). Sizes are the kit's token
estimate (llm.estimate_tokens: four characters a token), not a real tokenizer's count. A chunk's id is
made from its document's id, its position in the document and a hash of its text,
"<document id>#<position>-<first 6 hex digits of the text's SHA-256>". It depends on nothing else: the
same document chunked again gets the same ids, an edit to another document changes none of them, and an
edit to this one gives a new id to every chunk whose text changed, so an old id never names new text.
load_documents() reads kit/data/retrieval/documents.json: invented documents of three invented shops
(tenants), each with an owner ("" for the whole tenant). Left out: splitting on sentences or headings, a
real tokenizer, and keeping chunks anywhere but in memory.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evidencedesk import DATA_DIR
from evidencedesk.llm import estimate_tokens
from evidencedesk.strictjson import read_json

RETRIEVAL_DATA = DATA_DIR / "retrieval"
CHUNK_TOKENS = 60  # the most tokens (the kit's estimate) in one chunk
OVERLAP_TOKENS = 15  # the most tokens a chunk repeats from the end of the one before it
WORD = re.compile(r"\S+")  # chunks are cut between these: a word never splits
HASH_DIGITS = 6  # hex digits of the text's SHA-256 in a chunk id


class DocumentError(ValueError):
    """A document file is malformed; the message names the file, the document's index and the field."""


class Document(BaseModel):
    """One document of the library: whose it is, and its text.

    Args: id (str, lower-case letters, digits and "-", 1-40 characters); tenant (str, the shop it belongs
    to); owner (str, a user id, or "" when every user of the tenant may read it); title (str);
    text (str, at most 20,000 characters, at least one word).
    Raises: pydantic.ValidationError naming the field.
    Example: Document(id="kw-delivery", tenant="kettlewise", owner="", title="Delivery", text="Free over 40 euros.")
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    id: Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]{0,39}$")]
    tenant: Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]{0,29}$")]
    owner: Annotated[str, Field(pattern=r"^([a-z][a-z0-9_-]{0,39})?$")]
    title: Annotated[str, Field(min_length=1, max_length=120)]
    text: Annotated[str, Field(max_length=20_000, pattern=r"\S")]


@dataclass(frozen=True)
class Chunk:
    """One piece of a document, with the document's tenant and owner, so access is checked per chunk.

    Fields: id (str, see chunk_id); doc_id, tenant, owner (str, the document's); position (int, 0 for the
    first chunk); text (str, exactly as in the document); tokens (int, llm.estimate_tokens of text).
    Example: chunk_document(doc)[0].id -> "kw-delivery#0-1b2c3d"
    """

    id: str
    doc_id: str
    tenant: str
    owner: str
    position: int
    text: str
    tokens: int


def chunk_id(doc_id: str, position: int, text: str) -> str:
    """The stable id of a chunk: doc_id, position and the first 6 hex digits of SHA-256 of text (UTF-8).

    Args: doc_id (str); position (int, from 0); text (str). Returns: str.
    Example: chunk_id("kw-delivery", 0, "Free over 40 euros.") -> "kw-delivery#0-" + 6 hex digits
    """
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:HASH_DIGITS]
    return f"{doc_id}#{position}-{digest}"


def _int(value: object, name: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
    return value


def chunk_document(doc: Document, size: int = CHUNK_TOKENS, overlap: int = OVERLAP_TOKENS) -> tuple[Chunk, ...]:
    """Cut doc's text between words into chunks of at most size tokens, each repeating up to overlap tokens.

    Each chunk takes as many whole words as fit in size tokens (a single word longer than that is a chunk
    of its own). The next chunk starts at the earliest word whose text up to the end of the previous chunk
    fits in overlap tokens, and always after the previous chunk's first word, so chunking ends.
    Args: doc (Document); size (int, tokens, >= 1); overlap (int, tokens, >= 0 and less than size).
    Returns: the chunks in document order, with ids from chunk_id.
    Raises: TypeError when doc is not a Document; ValueError naming size or overlap when out of range.
    Example: [c.id for c in chunk_document(doc, size=60, overlap=15)]
    """
    if not isinstance(doc, Document):
        raise TypeError(f"doc must be a Document, got {type(doc).__name__}")
    size, overlap = _int(size, "size", 1), _int(overlap, "overlap", 0)
    if overlap >= size:
        raise ValueError(f"overlap must be less than size ({size}), got {overlap}")
    words = [(m.start(), m.end()) for m in WORD.finditer(doc.text)]

    def tokens(first: int, last: int) -> int:  # the estimate of the text from word first to word last
        return estimate_tokens(doc.text[words[first][0]:words[last][1]])

    chunks: list[Chunk] = []
    first = 0
    while True:
        last = first
        while last + 1 < len(words) and tokens(first, last + 1) <= size:
            last += 1
        text = doc.text[words[first][0]:words[last][1]]
        position = len(chunks)
        chunks.append(Chunk(chunk_id(doc.id, position, text), doc.id, doc.tenant, doc.owner, position, text,
                            estimate_tokens(text)))
        if last + 1 == len(words):
            return tuple(chunks)
        start = last + 1  # no overlap yet; step back while the repeated words fit in overlap tokens
        while start - 1 > first and tokens(start - 1, last) <= overlap:
            start -= 1
        first = start


def load_documents(path: str | Path | None = None) -> tuple[Document, ...]:
    """The documents of a JSON file: a list of Document objects, ids unique.

    Args: path (str or Path; default kit/data/retrieval/documents.json). Returns: tuple of Document, in order.
    Raises: DocumentError naming the file, and the index and field of the first bad document or repeated id.
    Example: [d.id for d in load_documents()][:2] -> ["kw-returns", "kw-warranty"]
    """
    path = Path(path) if path is not None else RETRIEVAL_DATA / "documents.json"
    try:
        data = read_json(path)
    except (OSError, ValueError) as exc:
        raise DocumentError(f"{path.name}: cannot read the documents ({exc})") from exc
    if not isinstance(data, list):
        raise DocumentError(f"{path.name}: expected a list of documents, got {type(data).__name__}")
    documents: list[Document] = []
    for index, item in enumerate(data):
        try:
            doc = Document.model_validate(item)
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(p) for p in first["loc"]) or "document"
            raise DocumentError(f"{path.name}: document {index}: field {field}: {first['msg']}") from exc
        if any(d.id == doc.id for d in documents):
            raise DocumentError(f"{path.name}: document {index}: field id: repeated id {doc.id!r}")
        documents.append(doc)
    return tuple(documents)
