"""The three help-desk tools: get_ticket and lookup_document (reads) and send_email_draft (a write).

Each tool is a contract from tools.py: a strict argument schema, a function, a writes flag. The
functions read two synthetic data files (kit/data/tickets.json and documents.json), checked entry
by entry when loaded, and the e-mail tool only records drafts in an Outbox. default_registry puts
the three tools in a ToolRegistry; kit_tools builds that registry over the kit's data.
Left out: who may call which tool, call limits and approval (gate.py), and real e-mail.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError

from evidencedesk import DATA_DIR
from evidencedesk.strictjson import read_json
from evidencedesk.tools import DUPLICATE, NOT_FOUND, ArgsModel, Tool, ToolRegistry, ToolResult, clip, problems_of

TICKET_ID = r"^T-[0-9]{3,6}$"  # ASCII digits only: \d would also take "T-٦٠١"
# a one-line header value: no control character (C0, DEL, C1) and no Unicode line or paragraph separator
ONE_LINE = r"^[^\x00-\x1f\x7f-\x9f\u2028\u2029]+$"


class DataFileError(ValueError):
    """A data file is missing or malformed; the message names the file and the entry."""


# Argument schemas: one per tool, built on ArgsModel (unknown fields refused, strict types, max lengths).
class GetTicketArgs(ArgsModel):
    """Arguments of get_ticket. Example: GetTicketArgs(ticket_id="T-501")"""

    ticket_id: str = Field(pattern=TICKET_ID, max_length=8)


class LookupDocumentArgs(ArgsModel):
    """Arguments of lookup_document. Example: LookupDocumentArgs(doc_id="kc-returns-v3")"""

    doc_id: str = Field(pattern=r"^[a-z0-9-]{1,40}$", max_length=40)


class SendEmailDraftArgs(ArgsModel):
    """Arguments of send_email_draft; the subject is one line (no line break of any kind), so no header
    can be smuggled in.

    Example: SendEmailDraftArgs(to="kwame@example.org", subject="Re: T-501", body="...", idempotency_key="t-501-reply")
    """

    to: str = Field(pattern=r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$", max_length=120)
    subject: str = Field(min_length=1, max_length=120, pattern=ONE_LINE)
    body: str = Field(min_length=1, max_length=2000)
    idempotency_key: str = Field(pattern=r"^[a-z0-9-]{8,64}$", max_length=64)


# Data files: a JSON list of records, each checked as strictly as tool arguments.
class _Record(ArgsModel):
    """A stored record with an id: unknown fields refused, strict types, immutable once loaded."""

    id: str


class Ticket(_Record):
    """One help-desk ticket as stored.

    Example: Ticket(id="T-501", owner="kwame", status="open", subject="Kettle", body="It leaks.")
    """

    id: str = Field(pattern=TICKET_ID)
    owner: str = Field(min_length=1, max_length=40)
    status: str = Field(pattern=r"^(open|pending|closed)$")
    subject: str = Field(max_length=120)
    body: str = Field(max_length=2000)


class Document(_Record):
    """One knowledge-base document. Example: Document(id="kc-returns-v3", title="Returns", text="...")"""

    id: str = Field(pattern=r"^[a-z0-9-]{1,40}$")
    title: str = Field(min_length=1, max_length=120)
    text: str = Field(min_length=1, max_length=4000)


def _load_records(path: Path | str, model: type[_Record]) -> dict[str, Any]:
    """Read a JSON list of records into {id: record}. Raises DataFileError naming file and entry."""
    path = Path(path)
    try:
        raw = read_json(path)
    except (OSError, ValueError) as exc:
        raise DataFileError(f"{path.name}: cannot read a JSON list ({type(exc).__name__}: {exc})") from exc
    if not isinstance(raw, list):
        raise DataFileError(f"{path.name}: expected a JSON list of records")
    records: dict[str, Any] = {}
    for index, item in enumerate(raw):
        try:
            record = model.model_validate(item)
        except ValidationError as exc:
            raise DataFileError(f"{path.name}: entry {index}: {'; '.join(problems_of(exc))}") from exc
        if record.id in records:
            raise DataFileError(f"{path.name}: entry {index}: duplicate id {record.id!r}")
        records[record.id] = record
    return records


class TicketStore:
    """Tickets by id, each owned by one user.

    Example: TicketStore.from_file(DATA_DIR / "tickets.json").get_ticket("T-501", "kwame").ok -> True
    """

    def __init__(self, tickets: dict[str, Ticket]) -> None:
        self.tickets = dict(tickets)

    @classmethod
    def from_file(cls, path: Path | str) -> TicketStore:
        """Load tickets from a JSON list. Raises DataFileError naming the file and the bad entry."""
        return cls(_load_records(path, Ticket))

    def get_ticket(self, ticket_id: str, caller: str) -> ToolResult:
        """The ticket, for its owner only: data {"id", "status", "subject", "body"} (no owner).

        Another user's ticket answers exactly like a missing one (NOT_FOUND, "no ticket T-xxx"), so
        a caller cannot learn which ids exist. Args: ticket_id (str); caller (str, user id).
        Example: store.get_ticket("T-503", "kwame").error -> {"code": "not_found", "message": "no ticket T-503"}
        """
        ticket = self.tickets.get(ticket_id) if isinstance(ticket_id, str) else None
        if ticket is None or ticket.owner != caller:
            return ToolResult.failure(NOT_FOUND, f"no ticket {clip(ticket_id, 20)}")
        return ToolResult.success(ticket.model_dump(exclude={"owner"}))


class DocumentStore:
    """Knowledge-base documents by id, readable by everyone.

    Example: DocumentStore.from_file(DATA_DIR / "documents.json").lookup_document("kc-returns-v3").ok -> True
    """

    def __init__(self, documents: dict[str, Document]) -> None:
        self.documents = dict(documents)

    @classmethod
    def from_file(cls, path: Path | str) -> DocumentStore:
        """Load documents from a JSON list. Raises DataFileError naming the file and the bad entry."""
        return cls(_load_records(path, Document))

    def lookup_document(self, doc_id: str) -> ToolResult:
        """The document: data {"id", "title", "text"}; a missing id -> NOT_FOUND "no document <id>".

        Args: doc_id (str). Example: store.lookup_document("kc-returns-v3").data["id"] -> "kc-returns-v3"
        """
        document = self.documents.get(doc_id) if isinstance(doc_id, str) else None
        if document is None:
            return ToolResult.failure(NOT_FOUND, f"no document {clip(doc_id)}")
        return ToolResult.success(document.model_dump())


# Stripe's idempotent requests, the usual reference (https://docs.stripe.com/api/idempotent_requests, read
# 2026-12-01): the first result of a key is saved; a retry with the same key and the same parameters gets that
# result back; the same key with different parameters is an error.
@dataclass
class Outbox:
    """Where e-mail drafts go instead of the internet: `sent` lists every draft really sent, in order.

    Each idempotency key keeps the draft it was first used with and the result it got (`first`).
    Example: outbox = Outbox(); outbox.send_email_draft("kwame@example.org", "Hi", "...", "t-501-reply-1")
    """

    sent: list[dict[str, str]] = field(default_factory=list)
    first: dict[str, tuple[dict[str, str], ToolResult]] = field(default_factory=dict)  # key -> (draft, result)

    def send_email_draft(self, to: str, subject: str, body: str, idempotency_key: str) -> ToolResult:
        """Queue one draft, once per idempotency key.

        A repeat of a key with the same draft (to, subject, body) sends nothing and returns the first
        result again; the same key with a different draft sends nothing and returns DUPLICATE.
        Args: to, subject, body, idempotency_key (str; the gate validates them first).
        Returns: data {"queued": True, "idempotency_key": key} (the first result, on a repeat), or failure DUPLICATE.
        Example: Outbox().send_email_draft("a@example.org", "Hi", "Text", "key-0001").data["queued"] -> True
        """
        draft = {"to": to, "subject": subject, "body": body}
        if idempotency_key in self.first:
            earlier, result = self.first[idempotency_key]
            if earlier == draft:
                return result  # a retry of the same request: the first answer, and nothing sent again
            return ToolResult.failure(DUPLICATE, f"idempotency key {clip(idempotency_key, 64)} was first used for "
                                                 "a different draft; nothing sent")
        result = ToolResult.success({"queued": True, "idempotency_key": idempotency_key})
        self.sent.append({**draft, "idempotency_key": idempotency_key})
        self.first[idempotency_key] = (draft, result)
        return result


def default_registry(
    tickets: TicketStore, documents: DocumentStore | None = None, outbox: Outbox | None = None
) -> ToolRegistry:
    """The three help-desk tools: get_ticket, lookup_document (reads) and send_email_draft (a write).

    Args: tickets (TicketStore); documents (DocumentStore, default kit/data/documents.json);
    outbox (Outbox, default a new one; pass your own to inspect what was sent).
    Raises: DataFileError if the default documents file is malformed.
    Example: default_registry(TicketStore.from_file(DATA_DIR / "tickets.json")).names()
    """
    documents = documents if documents is not None else DocumentStore.from_file(DATA_DIR / "documents.json")
    outbox = outbox if outbox is not None else Outbox()

    def get_ticket(arguments: dict[str, Any], caller: str) -> ToolResult:
        return tickets.get_ticket(arguments["ticket_id"], caller)

    def lookup_document(arguments: dict[str, Any], caller: str) -> ToolResult:
        return documents.lookup_document(arguments["doc_id"])

    def send_email_draft(arguments: dict[str, Any], caller: str) -> ToolResult:
        return outbox.send_email_draft(**arguments)

    registry = ToolRegistry()
    registry.register(Tool("get_ticket", GetTicketArgs, get_ticket, description="Read one of the caller's tickets."))
    registry.register(Tool("lookup_document", LookupDocumentArgs, lookup_document, description="Read a document."))
    registry.register(Tool("send_email_draft", SendEmailDraftArgs, send_email_draft, writes=True,
                           description="Send an e-mail draft (a consequential write)."))
    return registry


def kit_tools(data_dir: Path | str | None = None) -> tuple[ToolRegistry, Outbox]:
    """The default registry over the kit's data files, and its outbox.

    Args: data_dir (Path, str or None) -- a folder with tickets.json and documents.json; default kit/data.
    Raises: DataFileError naming a missing or malformed file.
    Example: registry, outbox = kit_tools()
    """
    folder = Path(data_dir) if data_dir is not None else DATA_DIR
    outbox = Outbox()
    tickets = TicketStore.from_file(folder / "tickets.json")
    return default_registry(tickets, DocumentStore.from_file(folder / "documents.json"), outbox), outbox
