"""Tests of evidencedesk.supplychain.client: sessions over the SDK's in-memory transport."""

from __future__ import annotations

import asyncio

import pytest

from evidencedesk.supplychain.client import ToolDef, call, handshake, list_and_call, listing, schema_text
from evidencedesk.supplychain.servers import desk_server


def test_a_listing_holds_the_generated_schema() -> None:
    tools = listing(desk_server())
    assert [t.name for t in tools] == ["get_ticket", "send_reply"]
    assert tools[0].input_schema["required"] == ["ticket_id"] and schema_text(tools[0]) == "ticket_id: string"


def test_a_call_returns_the_text_and_a_failure_is_a_result_not_an_exception() -> None:
    server = desk_server()
    assert call(server, "get_ticket", {"ticket_id": "T-1401"}).is_error is False
    missing = call(server, "get_ticket", {"ticket_id": "T-1499"})
    assert missing.is_error and "no ticket T-1499" in missing.text
    assert call(server, "nope", {}).is_error
    assert call(server, "get_ticket", {"ticket_id": 5}).is_error  # the server validates its own schema too


def test_before_can_stop_the_call_after_the_listing() -> None:
    server = desk_server()
    seen: list[tuple[ToolDef, ...]] = []
    tools, outcome = list_and_call(server, "send_reply", {"ticket_id": "T-1401", "body": "x"},
                                   before=lambda listed: seen.append(listed) or "stop")
    assert outcome is None and seen == [tools] and server.replies == []


def test_bad_inputs_are_named() -> None:
    with pytest.raises(TypeError, match="MCPServer"):
        listing("desk")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="arguments must be a dict"):
        list_and_call(desk_server(), "get_ticket", ["T-1401"])  # type: ignore[arg-type]


def test_the_handshake_negotiates_the_newest_handshake_era_version() -> None:
    from mcp_types.version import LATEST_HANDSHAKE_VERSION

    assert handshake(desk_server()) == (LATEST_HANDSHAKE_VERSION, "helpdesk") == ("2025-11-25", "helpdesk")


def test_a_session_runs_where_an_event_loop_already_runs_as_in_a_jupyter_kernel() -> None:
    async def inside_a_running_loop() -> tuple[str, str]:
        return handshake(desk_server())  # synchronous call from a coroutine: anyio.run alone would refuse

    assert asyncio.run(inside_a_running_loop()) == handshake(desk_server()) == ("2025-11-25", "helpdesk")
