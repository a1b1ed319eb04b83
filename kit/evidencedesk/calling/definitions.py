"""Tool definitions: what a model is told about a tool, made from the same schema the registry checks with.

A request offers tools as definitions, JSON text {"name", "description", "parameters"}, where parameters
is the JSON schema pydantic makes from the tool's argument model (model_json_schema). So what the model
is told and what tools.ToolRegistry checks are one schema. offered() gives a task only the definitions of
the tools its policy allows, so a model is not told of the others; it can still name one (a guess, or
text injected into its context asks for it), and the gate refuses that call. Each adapter (providers.py) turns a definition into its
provider's format. Left out: descriptions tuned for a model, tool choice settings ("must call"), and a provider's strict flag
(OpenAI's and Anthropic's strict: true constrain arguments to the schema; the gate checks them anyway).
"""

from __future__ import annotations

import json

from evidencedesk.gate import Policy
from evidencedesk.tools import Tool, ToolRegistry


def tool_definition(tool: Tool) -> str:
    """The definition of tool as JSON text: {"name", "description", "parameters"} (keys sorted).

    parameters is tool.args.model_json_schema(): the fields, their types and limits, and
    "additionalProperties": false for an ArgsModel, which refuses unknown fields.
    Args: tool (tools.Tool). Returns: str. Raises: TypeError naming tool when it is not a Tool.
    Example: json.loads(tool_definition(registry.get("get_ticket")))["name"] -> "get_ticket"
    """
    if not isinstance(tool, Tool):
        raise TypeError(f"tool must be a Tool, got {type(tool).__name__}")
    schema = tool.args.model_json_schema()
    return json.dumps({"name": tool.name, "description": tool.description, "parameters": schema}, sort_keys=True)


def offered(registry: ToolRegistry, policy: Policy, task: str) -> tuple[str, ...]:
    """The definitions of the tools task may use (policy.tools_for), sorted by name; none for an unknown task.

    Args: registry (ToolRegistry); policy (gate.Policy); task (str). Returns: tuple of str, for LLMRequest.tools.
    Example: [json.loads(d)["name"] for d in offered(registry, default_policy(), "triage")]
    """
    names = sorted(policy.tools_for(task) & registry.names())
    return tuple(tool_definition(registry.get(name)) for name in names)
