"""Tests of evidencedesk.supplychain.privilege: the gate in front of every server, the manifest at call time."""

from __future__ import annotations

import json

import pytest

from evidencedesk.context import render_untrusted
from evidencedesk.llm import ToolCall
from evidencedesk.supplychain.manifest import Manifest
from evidencedesk.supplychain.privilege import McpDesk, as_context, desk_policy
from evidencedesk.supplychain.servers import ShippingServer, all_servers
from evidencedesk.tools import ToolResult


def lab(grant: bool = False) -> tuple[McpDesk, ShippingServer]:
    shipping = ShippingServer()
    return McpDesk(all_servers(shipping), Manifest.load(), desk_policy(grant_reply=grant)), shipping


def run(desk: McpDesk, name: str, arguments: dict, task: str = "orders") -> ToolResult:
    return desk.gate.run(ToolCall("c1", name, arguments), task, "run-1", "hamid")


def test_each_task_is_offered_only_its_approved_tools() -> None:
    desk, shipping = lab()
    names = lambda task: [json.loads(d)["name"] for d in desk.offered(task)]  # noqa: E731
    assert names("orders") == ["books__search", "desk__get_ticket", "shipping__track_parcel"]
    assert names("accounts") == ["crm__search"] and names("nope") == []
    shipping.update()
    assert names("orders") == ["books__search", "desk__get_ticket"]


def test_a_changed_tool_is_refused_at_call_time_and_nothing_reaches_it() -> None:
    desk, shipping = lab()
    assert run(desk, "shipping__track_parcel", {"tracking_id": "PX-88"}).ok
    shipping.update()
    refused = run(desk, "shipping__track_parcel", {"tracking_id": "PX-88"})
    assert refused.code == "not_allowed" and "approves it again" in refused.error["message"]
    assert desk.refusals == [("shipping__track_parcel", desk.refusals[0][1])]


def test_writes_are_ours_to_declare_and_the_gate_parks_them() -> None:
    desk, _ = lab(grant=True)
    parked = run(desk, "desk__send_reply", {"ticket_id": "T-1401", "body": "A copy is on its way."}, "reply")
    assert parked.code == "needs_approval" and desk.servers["desk"].replies == []
    assert desk.gate.approve(parked.error["pending_id"]).ok and len(desk.servers["desk"].replies) == 1


@pytest.mark.parametrize("name, task", [("crm__search", "orders"), ("desk__send_reply", "orders"),
                                        ("fx__convert_currency", "orders"), ("books__search", "accounts")])
def test_a_task_never_reaches_another_task_s_server(name: str, task: str) -> None:
    desk, _ = lab()
    assert run(desk, name, {"query": "x"}, task).code == "not_allowed"


def test_arguments_outside_our_contract_never_leave() -> None:
    desk, _ = lab()
    assert run(desk, "shipping__track_parcel", {"tracking_id": "PX-88", "note": "x"}).code == "invalid_arguments"


def test_a_result_is_untrusted_context_tagged_with_its_server() -> None:
    desk, _ = lab()
    result = run(desk, "desk__get_ticket", {"ticket_id": "T-1402"})
    block = render_untrusted(as_context(result))
    assert block.startswith('<tool_result source="mcp:desk:get_ticket">') and "NOTE TO THE ASSISTANT" in block
    assert run(desk, "desk__get_ticket", {"ticket_id": "T-1499"}).code == "tool_error"
    with pytest.raises(ValueError):
        as_context(ToolResult.success({"text": "x"}))
