"""Tool contracts and execution: typed argument schemas, a registry, and the three help-desk tools.

A tool is a name, a pydantic schema for its arguments, a function and a flag saying whether it
changes the world (`writes`). The registry validates every call against the schema before it runs
anything. The result codes of the kit are defined here, once; gate.py re-exports them.
Left out: permissions, limits and approval (gate.py), and real e-mail (the Outbox only records).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evidencedesk import DATA_DIR
from evidencedesk.strictjson import read_json

# Result codes: the only values error["code"] takes. One definition, used by tools.py and gate.py.
OK = "ok"
NOT_ALLOWED = "not_allowed"
INVALID_ARGUMENTS = "invalid_arguments"
CALL_LIMIT = "call_limit"
NEEDS_APPROVAL = "needs_approval"
NOT_FOUND = "not_found"
DUPLICATE = "duplicate"
TOOL_ERROR = "tool_error"
TOO_LARGE = "too_large"


TICKET_ID = r"^T-[0-9]{3,6}$"  # ASCII digits only: \d would also take "T-٦٠١"
# a one-line header value: no control character (C0, DEL, C1) and no Unicode line or paragraph separator
ONE_LINE = r"^[^\x00-\x1f\x7f-\x9f\u2028\u2029]+$"


def clip(value: object, limit: int | None = 40) -> str:
    """str(value), cut to limit characters (None: no limit). Never raises: a value that cannot be
    turned into text (its __str__ raises, it is nested too deep, an int too long) gives "<TypeName>".

    Example: clip("x" * 50, 3) -> "xxx"
    """
    try:
        text = str(value)
    except Exception:  # RecursionError and ValueError included
        return f"<{type(value).__name__}>"
    return text if limit is None else text[:limit]


class DataFileError(ValueError):
    """A data file is missing or malformed; the message names the file and the entry."""


class UnknownTool(LookupError):
    """The registry has no tool of that name; the message names it."""


@dataclass(frozen=True)
class ToolCall:
    """A request to run one tool. Nothing is checked here: the registry and the gate check.

    Args: id (str) -- unique per call; name (str) -- the tool; arguments (dict) -- keyword arguments.
    Example: ToolCall("run-1-c1", "get_ticket", {"ticket_id": "T-601"})
    """

    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class ToolResult:
    """The outcome of a call: ok with data, or not ok with error {"code", "message", ...extra}.

    Example: ToolResult.failure(NOT_FOUND, "no ticket T-999").code -> "not_found"
    """

    ok: bool
    data: dict[str, Any] | None = None
    error: dict[str, Any] | None = None

    @classmethod
    def success(cls, data: dict[str, Any]) -> ToolResult:
        """A successful result carrying data (dict). Example: ToolResult.success({"id": "T-601"}).ok -> True"""
        return cls(True, data=data)

    @classmethod
    def failure(cls, code: str, message: str, **extra: Any) -> ToolResult:
        """A failed result: code (one of the constants), message (str), extra keys such as pending_id.

        Example: ToolResult.failure(NEEDS_APPROVAL, "parked", pending_id="pa-1").error["pending_id"] -> "pa-1"
        """
        return cls(False, error={"code": code, "message": message, **extra})

    @property
    def code(self) -> str:
        """OK for a success, else the error code."""
        return OK if self.ok else str((self.error or {}).get("code", TOOL_ERROR))


# Argument schemas: unknown fields are rejected, types are strict, every string has a maximum length.
class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class GetTicketArgs(_Args):
    """Arguments of get_ticket. Example: GetTicketArgs(ticket_id="T-601")"""

    ticket_id: str = Field(pattern=TICKET_ID, max_length=8)


class LookupDocumentArgs(_Args):
    """Arguments of lookup_document. Example: LookupDocumentArgs(doc_id="kc-returns-v3")"""

    doc_id: str = Field(pattern=r"^[a-z0-9-]{1,40}$", max_length=40)


class SendEmailDraftArgs(_Args):
    """Arguments of send_email_draft; the subject is one line (no line break of any kind), so no header
    can be smuggled in.

    Example: SendEmailDraftArgs(to="kwame@example.org", subject="Re: T-601", body="...", idempotency_key="t-601-reply")
    """

    to: str = Field(pattern=r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$", max_length=120)
    subject: str = Field(min_length=1, max_length=120, pattern=ONE_LINE)
    body: str = Field(min_length=1, max_length=2000)
    idempotency_key: str = Field(pattern=r"^[a-z0-9-]{8,64}$", max_length=64)


@dataclass(frozen=True)
class Tool:
    """One tool: name (str), args (pydantic model class), function(arguments: dict, caller: str) -> ToolResult,
    writes (bool: a consequential write, parked for approval by the gate), description (str).

    Example: Tool("lookup_document", LookupDocumentArgs, lambda a, caller: docs.lookup_document(a["doc_id"]))
    """

    name: str
    args: type[BaseModel]
    function: Callable[[dict[str, Any], str], ToolResult]
    writes: bool = False
    description: str = ""


def _problems(error: ValidationError) -> list[str]:
    """One line per problem, naming the field; the offending value is never echoed."""
    return [f"{'.'.join(clip(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in error.errors()]


class ToolRegistry:
    """The tools an application offers, by name.

    Example: registry = ToolRegistry(); registry.register(tool); registry.names() -> {"get_ticket"}
    """

    def __init__(self) -> None:
        self._tools: dict[str, Tool] = {}

    def register(self, tool: Tool) -> None:
        """Add a tool. Raises ValueError naming it if the name is taken, TypeError for a non-Tool."""
        if not isinstance(tool, Tool):
            raise TypeError(f"tool must be a Tool, got {type(tool).__name__}")
        if tool.name in self._tools:
            raise ValueError(f"tool {tool.name!r} is already registered")
        self._tools[tool.name] = tool

    def names(self) -> set[str]:
        """The names of all registered tools."""
        return set(self._tools)

    def get(self, name: str) -> Tool:
        """The tool called name. Raises UnknownTool naming it."""
        if not isinstance(name, str) or name not in self._tools:
            raise UnknownTool(f"unknown tool {clip(name)!r}")
        return self._tools[name]

    def validate(self, call: ToolCall) -> list[str]:
        """Problems with a call, each naming the field; an empty list means valid.

        An unknown tool, a non-dict arguments value, a missing field, an extra field, a wrong type,
        a too-long string and arguments too odd to check at all are problems. Never raises.
        Example: registry.validate(ToolCall("c1", "get_ticket", {})) -> ["ticket_id: Field required"]
        """
        if not isinstance(call, ToolCall):
            return [f"call: expected a ToolCall, got {type(call).__name__}"]
        if not isinstance(call.name, str) or call.name not in self._tools:
            return [f"unknown tool {clip(call.name)!r}"]
        if not isinstance(call.arguments, dict):
            return [f"arguments: expected an object, got {type(call.arguments).__name__}"]
        try:
            self._tools[call.name].args.model_validate(call.arguments)
        except ValidationError as exc:
            return _problems(exc)
        except Exception as exc:  # e.g. nesting so deep that checking it overflows the stack
            return [f"arguments: could not be checked ({type(exc).__name__})"]
        return []

    def execute(self, call: ToolCall, caller: str) -> ToolResult:
        """Validate, then run the tool for caller (str, user id). Never raises.

        Returns: the tool's ToolResult; INVALID_ARGUMENTS naming the problems (or the caller); NOT_FOUND
        for an unknown tool; TOOL_ERROR if the tool raised or returned something that is not a ToolResult.
        Example: registry.execute(ToolCall("c1", "get_ticket", {"ticket_id": "T-601"}), "kwame").ok -> True
        """
        try:
            return self._execute(call, caller)
        except Exception as exc:  # last resort: input so odd that checking it raised
            return ToolResult.failure(INVALID_ARGUMENTS, f"call: could not be checked ({type(exc).__name__})")

    def _execute(self, call: ToolCall, caller: str) -> ToolResult:
        if isinstance(call, ToolCall) and (not isinstance(call.name, str) or call.name not in self._tools):
            return ToolResult.failure(NOT_FOUND, f"unknown tool {clip(call.name)!r}")
        if not isinstance(caller, str):
            return ToolResult.failure(INVALID_ARGUMENTS, f"caller: expected a str, got {type(caller).__name__}")
        if problems := self.validate(call):
            return ToolResult.failure(INVALID_ARGUMENTS, "; ".join(problems))
        tool = self._tools[call.name]
        arguments = tool.args.model_validate(call.arguments).model_dump()
        try:
            result = tool.function(arguments, caller)
        except Exception as exc:  # a tool bug must not escape as a crash
            return ToolResult.failure(TOOL_ERROR, f"tool {call.name} failed: {type(exc).__name__}")
        if not isinstance(result, ToolResult):
            return ToolResult.failure(TOOL_ERROR, f"tool {call.name} returned {type(result).__name__}")
        return result


def fingerprint(call: ToolCall) -> str:
    """The tool name plus canonical JSON of the arguments (sorted keys); the call id is ignored.

    Two calls with the same fingerprint would do the same thing. Never raises on odd values: arguments
    that are not JSON data fall back to their text, and arguments with no text at all (too deep, an int
    too long, a __repr__ that raises) to "<dict>"; such arguments never pass validation anyway.
    Example: fingerprint(ToolCall("a", "get_ticket", {"ticket_id": "T-601"})) -> 'get_ticket {"ticket_id":"T-601"}'
    """
    try:
        arguments = json.dumps(call.arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=repr)
    except Exception:  # mixed key types, a cycle, deep nesting, a huge int, a repr that raises
        arguments = clip(call.arguments, limit=None)
    return f"{clip(call.name, limit=None)} {arguments}"


# Data files: a JSON list of records, checked field by field.
class Ticket(_Args):
    """One help-desk ticket as stored.

    Example: Ticket(id="T-601", owner="kwame", status="open", subject="Kettle", body="It leaks.")
    """

    id: str = Field(pattern=TICKET_ID)
    owner: str = Field(min_length=1, max_length=40)
    status: str = Field(pattern=r"^(open|pending|closed)$")
    subject: str = Field(max_length=120)
    body: str = Field(max_length=2000)


class Document(_Args):
    """One knowledge-base document. Example: Document(id="kc-returns-v3", title="Returns", text="...")"""

    id: str = Field(pattern=r"^[a-z0-9-]{1,40}$")
    title: str = Field(min_length=1, max_length=120)
    text: str = Field(min_length=1, max_length=4000)


def _load_records(path: Path | str, model: type[_Args]) -> dict[str, Any]:
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
            raise DataFileError(f"{path.name}: entry {index}: {'; '.join(_problems(exc))}") from exc
        if record.id in records:
            raise DataFileError(f"{path.name}: entry {index}: duplicate id {record.id!r}")
        records[record.id] = record
    return records


class TicketStore:
    """Tickets by id, each owned by one user.

    Example: TicketStore.from_file(DATA_DIR / "tickets.json").get_ticket("T-601", "kwame").ok -> True
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
        Example: store.get_ticket("T-603", "kwame").error -> {"code": "not_found", "message": "no ticket T-603"}
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


@dataclass
class Outbox:
    """Where e-mail drafts go instead of the internet: `sent` lists every draft, in order.

    Example: outbox = Outbox(); outbox.send_email_draft("kwame@example.org", "Hi", "...", "t-601-reply-1")
    """

    sent: list[dict[str, str]] = field(default_factory=list)

    def send_email_draft(self, to: str, subject: str, body: str, idempotency_key: str) -> ToolResult:
        """Queue one draft. A key that was already used sends nothing and returns DUPLICATE.

        Args: to, subject, body, idempotency_key (str; the gate validates them first).
        Returns: data {"queued": True, "idempotency_key": key}, or failure DUPLICATE.
        Example: Outbox().send_email_draft("a@example.org", "Hi", "Text", "key-0001").data["queued"] -> True
        """
        if any(mail["idempotency_key"] == idempotency_key for mail in self.sent):
            return ToolResult.failure(DUPLICATE, f"idempotency key {idempotency_key} was already used; nothing sent")
        self.sent.append({"to": to, "subject": subject, "body": body, "idempotency_key": idempotency_key})
        return ToolResult.success({"queued": True, "idempotency_key": idempotency_key})


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
