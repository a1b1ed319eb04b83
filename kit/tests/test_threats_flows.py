"""The flows are read from the wiring, and each declared effect matches what the tool really does."""

from __future__ import annotations

import pytest

from evidencedesk.agent.scenarios import lab_registry
from evidencedesk.helpdesk import Outbox
from evidencedesk.llm import ToolCall
from evidencedesk.sinks.markdown import IMAGE_HOSTS
from evidencedesk.supplychain.manifest import Manifest
from evidencedesk.supplychain.privilege import CONTRACTS, McpDesk, TrackArgs
from evidencedesk.supplychain.servers import all_servers
from evidencedesk.tenancy.platform import BUGS
from evidencedesk.threats.flows import (EFFECTS, EXFIL, PRIVATE, UNTRUSTED, Effect, agent_flows, all_flows,
                                        context_labels, image_leaves, mcp_flows, width)


def test_every_tool_of_the_registry_and_every_contract_has_a_declared_effect() -> None:
    assert lab_registry(Outbox()).names() | {c.name for c in CONTRACTS} <= set(EFFECTS)


def test_private_means_the_tool_answers_its_owner_only() -> None:
    registry = lab_registry(Outbox())
    for name in ("get_ticket", "lookup_document"):
        arguments = {"ticket_id": "T-601"} if name == "get_ticket" else {"doc_id": "kc-returns-v3"}
        own = registry.execute(ToolCall("c1", name, arguments), "kwame").ok
        other = registry.execute(ToolCall("c2", name, arguments), "lena").ok
        assert EFFECTS[name].private == (own and not other), name


def test_the_mcp_desk_serves_a_ticket_to_any_caller_so_its_private_leg_is_declared() -> None:
    # The kit passes no caller to an MCP server: nothing to probe for ownership, so EFFECTS declares it.
    desk = McpDesk(all_servers(), Manifest.load())
    call = ToolCall("c1", "desk__get_ticket", {"ticket_id": "T-1401"})
    assert all(desk.gate.run(call, "orders", "run-1", user).ok for user in ("hamid", "u2"))
    assert EFFECTS["desk__get_ticket"].private and EFFECTS["crm__search"].private


def test_every_result_is_untrusted_in_the_agents_prompt() -> None:
    labels = context_labels()
    assert set(labels) == {"goal", "memory", "get_ticket", "lookup_document", "send_email_draft"}
    assert set(labels.values()) == {"untrusted"}


def test_a_way_out_is_a_write_or_a_suppliers_server() -> None:
    for contract in CONTRACTS:
        assert EFFECTS[contract.name].leaves == (contract.writes or contract.server == "shipping"), contract.name
    assert EFFECTS["send_email_draft"].leaves and not EFFECTS["get_ticket"].leaves


def test_a_task_reaches_only_its_tools_and_a_write_needs_the_grant() -> None:
    triage = [f.id for f in agent_flows("triage")]
    assert "agent:send_email_draft" not in triage and "agent:get_ticket" in triage
    assert "agent:send_email_draft" not in [f.id for f in agent_flows("reply", grant=False)]
    mail = next(f for f in agent_flows("reply", grant=True) if f.id == "agent:send_email_draft")
    assert mail.gated and mail.legs == {UNTRUSTED, EXFIL} and mail.width == "text 2000"


def test_the_reply_is_a_way_out_only_without_the_allowlist() -> None:
    assert image_leaves(None) and not image_leaves(IMAGE_HOSTS)
    assert not image_leaves(frozenset({"attacker.example"}))  # a listed host still may not take a query
    reply = {str(h): next(f for f in agent_flows("triage", image_hosts=h) if f.id == "agent:reply").legs
             for h in (None, IMAGE_HOSTS)}
    assert list(reply.values()) == [{EXFIL}, frozenset()]


def test_mcp_flows_come_from_the_contracts_and_fx_never_appears() -> None:
    assert [f.id for f in mcp_flows("accounts")] == ["mcp:crm__search"]
    every = {f.id for task in ("orders", "reply", "accounts") for f in mcp_flows(task, grant=True)}
    assert every == {f"mcp:{c.name}" for c in CONTRACTS} and not any("fx" in i for i in every)
    tracker = next(f for f in mcp_flows("orders") if f.id == "mcp:shipping__track_parcel")
    assert tracker.legs == {UNTRUSTED, EXFIL} and not tracker.gated and tracker.width == width(TrackArgs) == "pattern"


def test_all_flows_hold_each_id_once_with_every_sink_and_tenant_boundary() -> None:
    ids = [f.id for f in all_flows()]
    assert len(ids) == len(set(ids))
    assert {f"tenancy:{b}" for b in BUGS} <= set(ids) and "sinks:sql_model" in ids
    assert {f.id for f in all_flows() if PRIVATE in f.legs} == {
        "agent:get_ticket", "agent:memory", "mcp:desk__get_ticket", "mcp:crm__search"}


def test_an_effect_is_strict() -> None:
    with pytest.raises(ValueError):
        Effect(element="x", boundary="y", private="yes")  # type: ignore[arg-type]
