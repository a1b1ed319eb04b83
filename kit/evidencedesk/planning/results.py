"""What each tool returns, and which of those values the application itself vouches for.

A plan refers to an earlier step's result by field name, so the planning checks must know each tool's
result fields before anything runs. RESULT_FIELDS lists them, read from the records the tools return
(helpdesk.Ticket without its owner, which get_ticket leaves out; helpdesk.Document) and from the one
read tool this page adds, get_contact. For a ticket of the caller's, get_contact answers two
addresses: `reply_to`, whatever was typed into the ticket form (untrusted, like the ticket's text),
and `on_file`, the ticket owner's address from the application's own account list (TRUSTED).
GUARDED names the arguments that a reference may fill only from a trusted field. The addresses are
synthetic (kit/data/planning/contacts.json). Left out: a type for each result field (the gate checks
a filled argument's type when the step runs) and trust labels finer than one set of trusted fields.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError

from evidencedesk import DATA_DIR
from evidencedesk.helpdesk import TICKET_ID, DataFileError, Document, Ticket, TicketStore
from evidencedesk.strictjson import read_json
from evidencedesk.tools import NOT_FOUND, ArgsModel, Tool, ToolResult, clip, problems_of

PLANNING_DATA = DATA_DIR / "planning"
EMAIL = r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$"  # the same shape send_email_draft takes
CONTACT_FIELDS = ("ticket_id", "reply_to", "on_file")

# tool -> the fields of its result, in the order the tool returns them
RESULT_FIELDS: dict[str, tuple[str, ...]] = {
    "get_ticket": tuple(name for name in Ticket.model_fields if name != "owner"),  # the owner is never returned
    "lookup_document": tuple(Document.model_fields),
    "get_contact": CONTACT_FIELDS,
    "send_email_draft": ("queued", "idempotency_key"),
}
# (tool, field): values that come from the application's own records, not from what a customer typed
TRUSTED: frozenset[tuple[str, str]] = frozenset({("get_contact", "on_file")})
# (tool, argument): arguments a reference may fill only from a TRUSTED field
GUARDED: frozenset[tuple[str, str]] = frozenset({("send_email_draft", "to")})


class GetContactArgs(ArgsModel):
    """Arguments of get_contact. Example: GetContactArgs(ticket_id="T-602")"""

    ticket_id: str = Field(pattern=TICKET_ID, max_length=8)


class _Account(ArgsModel):
    user: str = Field(min_length=1, max_length=40)
    email: str = Field(pattern=EMAIL, max_length=120)


class _Form(ArgsModel):
    ticket_id: str = Field(pattern=TICKET_ID)
    reply_to: str = Field(pattern=EMAIL, max_length=120)


class _ContactFile(ArgsModel):
    accounts: list[_Account]
    forms: list[_Form]


@dataclass(frozen=True)
class ContactBook:
    """Addresses for tickets: accounts (dict user -> address on file), forms (dict ticket id -> reply-to typed).

    Example: ContactBook.from_file().get_contact(tickets, "T-602", "kwame").data["on_file"] -> "kwame@example.org"
    """

    accounts: dict[str, str]
    forms: dict[str, str]

    @classmethod
    def from_file(cls, path: Path | str | None = None) -> ContactBook:
        """Load {"accounts": [{"user", "email"}], "forms": [{"ticket_id", "reply_to"}]}.

        path (Path or str; default kit/data/planning/contacts.json).
        Raises DataFileError naming the file, and the field, when it is missing or malformed.
        Example: ContactBook.from_file().forms["T-602"] -> "evil@example.org"
        """
        path = Path(path) if path is not None else PLANNING_DATA / "contacts.json"
        try:
            checked = _ContactFile.model_validate(read_json(path))
        except ValidationError as exc:
            raise DataFileError(f"{path.name}: {'; '.join(problems_of(exc))}") from exc
        except (OSError, ValueError) as exc:
            raise DataFileError(f"{path.name}: cannot read a JSON object ({type(exc).__name__})") from exc
        return cls({a.user: a.email for a in checked.accounts}, {f.ticket_id: f.reply_to for f in checked.forms})

    def get_contact(self, tickets: TicketStore, ticket_id: str, caller: str) -> ToolResult:
        """The two addresses of a ticket of caller's: data {"ticket_id", "reply_to", "on_file"}.

        Args: tickets (TicketStore: who owns which ticket); ticket_id (str); caller (str, user id).
        Another user's ticket answers like a missing one (NOT_FOUND "no ticket T-xxx"), as get_ticket does;
        a ticket with no form or no account is NOT_FOUND "no contact for T-xxx". Never raises.
        Example: book.get_contact(tickets, "T-603", "kwame").code -> "not_found"
        """
        ticket = tickets.tickets.get(ticket_id) if isinstance(ticket_id, str) else None
        if ticket is None or ticket.owner != caller:
            return ToolResult.failure(NOT_FOUND, f"no ticket {clip(ticket_id, 20)}")
        if ticket_id not in self.forms or ticket.owner not in self.accounts:
            return ToolResult.failure(NOT_FOUND, f"no contact for {ticket_id}")
        return ToolResult.success({"ticket_id": ticket_id, "reply_to": self.forms[ticket_id],
                                   "on_file": self.accounts[ticket.owner]})


def contact_tool(tickets: TicketStore, book: ContactBook | None = None) -> Tool:
    """The get_contact tool (a read) over tickets (TicketStore) and book (ContactBook; default the kit's file).

    Raises DataFileError when the default file is malformed. Example: registry.register(contact_tool(tickets))
    """
    book = book if book is not None else ContactBook.from_file()

    def get_contact(arguments: dict[str, Any], caller: str) -> ToolResult:
        return book.get_contact(tickets, arguments["ticket_id"], caller)

    return Tool("get_contact", GetContactArgs, get_contact,
                description="The reply-to address typed on a ticket's form, and the owner's address on file.")
