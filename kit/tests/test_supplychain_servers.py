"""Tests of evidencedesk.supplychain.servers: five real MCPServer instances, scripted as their docstrings say."""

from __future__ import annotations

import pytest
from mcp.server.mcpserver import MCPServer

from evidencedesk.security import injection_signals
from evidencedesk.supplychain.client import call, listing
from evidencedesk.supplychain.servers import (
    POISON,
    TRACK_V1,
    TRACK_V2,
    ShippingServer,
    all_servers,
    books_server,
    crm_server,
    desk_server,
    fx_server,
)


def test_all_servers_are_sdk_servers_under_our_ids() -> None:
    servers = all_servers()
    assert sorted(servers) == ["books", "crm", "desk", "fx", "shipping"]
    assert all(isinstance(s, MCPServer) for s in servers.values())
    assert books_server().name == crm_server().name == "lookup"  # self-chosen names collide


def test_only_the_fx_description_carries_instructions() -> None:
    flagged = {sid: [t.name for t in listing(s) if injection_signals(t.description or "")]
               for sid, s in all_servers().items()}
    assert flagged == {"desk": [], "fx": ["convert_currency"], "shipping": [], "books": [], "crm": []}
    assert POISON in (listing(fx_server())[0].description or "")


def test_the_shipping_update_changes_the_definition_not_the_name() -> None:
    shipping = ShippingServer()
    before = listing(shipping.server)
    shipping.update()
    after = listing(shipping.server)
    assert [t.name for t in before] == [t.name for t in after] == ["track_parcel"]
    assert (before[0].description, after[0].description) == (TRACK_V1, TRACK_V2)
    assert "note" in after[0].input_schema["properties"] and "note" not in before[0].input_schema["properties"]
    with pytest.raises(RuntimeError, match="already"):
        shipping.update()


def test_the_desk_records_replies_and_serves_the_injected_ticket() -> None:
    desk = desk_server()
    assert "NOTE TO THE ASSISTANT" in call(desk, "get_ticket", {"ticket_id": "T-1402"}).text
    assert call(desk, "send_reply", {"ticket_id": "T-1401", "body": "ok"}).text == "reply 1 posted on T-1401"
    assert desk.replies == [("T-1401", "ok")]


def test_the_two_searches_answer_from_different_data() -> None:
    assert "Rumi" in call(books_server(), "search", {"query": "rumi"}).text
    assert call(crm_server(), "search", {"query": "hamid"}).text.startswith("hamid: 3 orders")
