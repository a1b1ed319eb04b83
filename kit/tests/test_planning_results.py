"""Tests of evidencedesk.planning.results: the result fields a plan may name, their trust, and get_contact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencedesk.agent.scenarios import AGENT_DATA
from evidencedesk.helpdesk import DataFileError, Outbox, TicketStore
from evidencedesk.planning.results import GUARDED, RESULT_FIELDS, TRUSTED, ContactBook, contact_tool
from evidencedesk.planning.scenarios import planning_registry
from evidencedesk.tools import ToolCall

TICKETS = TicketStore.from_file(AGENT_DATA / "tickets.json")
BOOK = ContactBook.from_file()


@pytest.mark.parametrize("tool, arguments", [
    ("get_ticket", {"ticket_id": "T-601"}),
    ("lookup_document", {"doc_id": "kc-returns-v3"}),
    ("get_contact", {"ticket_id": "T-602"}),
    ("send_email_draft", {"to": "kwame@example.org", "subject": "Hi", "body": "Text", "idempotency_key": "key-00001"}),
])
def test_result_fields_are_exactly_what_each_tool_returns(tool: str, arguments: dict) -> None:
    result = planning_registry(Outbox()).execute(ToolCall("c1", tool, arguments), "kwame")
    assert result.ok and tuple(result.data) == RESULT_FIELDS[tool]


def test_get_ticket_never_returns_the_owner() -> None:
    assert "owner" not in RESULT_FIELDS["get_ticket"]


def test_only_the_address_on_file_is_trusted_and_only_the_recipient_is_guarded() -> None:
    trusted, guarded = {("get_contact", "on_file")}, {("send_email_draft", "to")}
    assert trusted == TRUSTED and guarded == GUARDED
    assert all(field in RESULT_FIELDS[tool] for tool, field in TRUSTED)


def test_the_contact_keeps_the_typed_address_and_the_one_on_file_apart() -> None:
    data = BOOK.get_contact(TICKETS, "T-602", "kwame").data
    assert data == {"ticket_id": "T-602", "reply_to": "evil@example.org", "on_file": "kwame@example.org"}


@pytest.mark.parametrize("ticket_id", ["T-603", "T-699", 601, None])
def test_another_users_ticket_answers_like_a_missing_one(ticket_id: object) -> None:
    result = BOOK.get_contact(TICKETS, ticket_id, "kwame")  # type: ignore[arg-type]
    assert result.code == "not_found" and result.error["message"] == f"no ticket {str(ticket_id)[:20]}"


def test_a_ticket_without_a_form_has_no_contact() -> None:
    book = ContactBook({"kwame": "kwame@example.org"}, {})
    assert book.get_contact(TICKETS, "T-601", "kwame").error["message"] == "no contact for T-601"


def test_the_tool_checks_its_arguments() -> None:
    tool = contact_tool(TICKETS, BOOK)
    assert tool.name == "get_contact" and not tool.writes
    registry = planning_registry(Outbox())
    assert registry.validate(ToolCall("c1", "get_contact", {"ticket_id": "602"})) != []


@pytest.mark.parametrize("content, words", [
    ({"accounts": [], "forms": [], "extra": 1}, "extra"),
    ({"accounts": [{"user": "kwame", "email": "not an address"}], "forms": []}, "accounts.0.email"),
    ({"accounts": [], "forms": [{"ticket_id": "602", "reply_to": "a@example.org"}]}, "forms.0.ticket_id"),
])
def test_a_bad_contact_file_is_named_with_its_field(tmp_path: Path, content: dict, words: str) -> None:
    path = tmp_path / "contacts.json"
    path.write_text(json.dumps(content))
    with pytest.raises(DataFileError, match=f"contacts.json: {words}"):
        ContactBook.from_file(path)


def test_a_missing_or_broken_contact_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(DataFileError, match="absent.json: cannot read"):
        ContactBook.from_file(tmp_path / "absent.json")
    (tmp_path / "broken.json").write_text('{"accounts": [], "accounts": []}')
    with pytest.raises(DataFileError, match="broken.json: cannot read"):
        ContactBook.from_file(tmp_path / "broken.json")
