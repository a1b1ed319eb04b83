"""Tests of evidencedesk.calling.definitions: one schema for what the model is told and what the registry checks."""

from __future__ import annotations

import json

import pytest
from pydantic import Field

from evidencedesk.calling.definitions import offered, tool_definition
from evidencedesk.gate import Policy, default_policy
from evidencedesk.helpdesk import GetTicketArgs, kit_tools
from evidencedesk.llm import LLMRequest, Message
from evidencedesk.providers import encode_alpha, encode_beta, tool_definitions
from evidencedesk.tools import ArgsModel, Tool, ToolCall, ToolRegistry, ToolResult

REGISTRY, _ = kit_tools()


def test_a_definition_is_name_description_and_the_pydantic_schema() -> None:
    definition = json.loads(tool_definition(REGISTRY.get("get_ticket")))
    assert set(definition) == {"name", "description", "parameters"}
    assert definition["name"] == "get_ticket" and definition["description"] == "Read one of the caller's tickets."
    assert definition["parameters"] == GetTicketArgs.model_json_schema()
    assert definition["parameters"]["additionalProperties"] is False  # ArgsModel refuses unknown fields


def test_what_the_model_is_told_is_what_the_registry_checks() -> None:
    class QuoteArgs(ArgsModel):
        price_cents: int = Field(ge=0, le=100_000)

    registry = ToolRegistry()
    registry.register(Tool("refund_quote", QuoteArgs, lambda a, caller: ToolResult.success(a), description="Quote."))
    schema = json.loads(tool_definition(registry.get("refund_quote")))["parameters"]
    assert schema["properties"]["price_cents"] == {"maximum": 100000, "minimum": 0, "title": "Price Cents",
                                                   "type": "integer"}
    assert registry.validate(ToolCall("c", "refund_quote", {"price_cents": 100_001})) != []


def test_a_task_is_offered_only_the_tools_its_policy_allows() -> None:
    names = {task: [json.loads(d)["name"] for d in offered(REGISTRY, default_policy(), task)]
             for task in ("triage", "reply", "nobody")}
    assert names == {"triage": ["get_ticket", "lookup_document"],
                     "reply": ["get_ticket", "lookup_document", "send_email_draft"], "nobody": []}
    unknown = Policy({"triage": {"get_ticket", "not_registered"}})
    assert [json.loads(d)["name"] for d in offered(REGISTRY, unknown, "triage")] == ["get_ticket"]


@pytest.mark.parametrize("encode", [encode_alpha, encode_beta])
def test_every_definition_is_one_both_adapters_take(encode) -> None:
    request = LLMRequest("small-model-1", [Message("user", "?")], 50, tools=offered(REGISTRY, default_policy(), "reply"))
    assert [d["name"] for d in tool_definitions(request)] == ["get_ticket", "lookup_document", "send_email_draft"]
    assert len(json.loads(encode(request))["tools"]) == 3


def test_a_definition_is_made_only_from_a_tool() -> None:
    with pytest.raises(TypeError, match="tool must be a Tool, got str"):
        tool_definition("get_ticket")  # type: ignore[arg-type]
