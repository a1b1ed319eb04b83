"""An MCP client session over the official SDK's in-memory transport: list a server's tools, call one.

mcp.Client connects to an MCPServer in this process. With mode="legacy" it uses the SDK's InMemoryTransport:
JSON-RPC messages over in-memory streams, after the initialize handshake (protocol 2025-11-25, the newest
that handshake reaches in mcp 2.3.0); the SDK's default for an in-process server ("auto") would instead
dispatch requests directly, without JSON-RPC framing, at protocol 2026-07-28. The tools calls below are the
same in both. The client's response cache is off (cache=None), so every listing is the server's answer of
that moment. Each function runs one session from connect to close with anyio.run, so the kit's other code
stays synchronous; where an event loop already runs in the calling thread (a Jupyter kernel's), the session
runs in a thread of its own, since anyio.run refuses to start inside a running loop.
Left out: stdio and Streamable HTTP transports, authorization, notifications (a
long-lived client re-lists on notifications/tools/list_changed; the kit lists before every call instead),
pagination of tools/list, sampling and elicitation.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import anyio
from mcp import Client
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, ConfigDict

MODE = "legacy"  # the initialize handshake over InMemoryTransport (see the module docstring)
T = TypeVar("T")


def _run(function: Callable[..., Awaitable[T]], *args: Any) -> T:
    """anyio.run(function, *args), also where this thread's event loop runs (Jupyter): then in a thread of its own.

    Example: _run(_handshake, desk_server()) -> ("2025-11-25", "helpdesk")
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:  # no loop runs here: the usual case in a script or a test
        return anyio.run(function, *args)
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(anyio.run, function, *args).result()


class ToolDef(BaseModel):
    """One tool as a tools/list answer defines it: the fields a model or a person reads.

    name (str), title (str or None), description (str or None), input_schema (dict, JSON Schema),
    output_schema (dict or None), annotations (dict or None: hints such as readOnlyHint, untrusted unless the
    server is). Example: listing(desk_server())[0].name -> "get_ticket"
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    name: str
    title: str | None = None
    description: str | None = None
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None = None
    annotations: dict[str, Any] | None = None


class CallOutcome(BaseModel):
    """What a tools/call answered: is_error (bool) and text (str, the text content blocks joined by newlines).

    Example: call(desk_server(), "get_ticket", {"ticket_id": "T-1401"}).is_error -> False
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    is_error: bool
    text: str


def _tool_def(tool: Any) -> ToolDef:
    data = tool.model_dump(by_alias=True, exclude_none=True, mode="json")
    return ToolDef(name=data["name"], title=data.get("title"), description=data.get("description"),
                   input_schema=data["inputSchema"], output_schema=data.get("outputSchema"),
                   annotations=data.get("annotations"))


def _check_server(server: object) -> MCPServer:
    if not isinstance(server, MCPServer):
        raise TypeError(f"server must be an mcp MCPServer, got {type(server).__name__}")
    return server


async def _listing(server: MCPServer) -> tuple[ToolDef, ...]:
    async with Client(server, mode=MODE, cache=None) as client:
        return tuple(_tool_def(tool) for tool in (await client.list_tools()).tools)


def listing(server: MCPServer) -> tuple[ToolDef, ...]:
    """One session's tools/list: the server's tools in the order it sends them.

    Args: server (MCPServer). Returns: tuple of ToolDef. Raises: TypeError for anything but an MCPServer.
    Example: [t.name for t in listing(desk_server())] -> ["get_ticket", "send_reply"]
    """
    return _run(_listing, _check_server(server))


async def _handshake(server: MCPServer) -> tuple[str, str]:
    async with Client(server, mode=MODE, cache=None) as client:
        info = client.server_info
        return client.protocol_version, info.name if info is not None else ""


def handshake(server: MCPServer) -> tuple[str, str]:
    """Connect, and return (the negotiated protocol version, the name the server gives itself).

    Example: handshake(desk_server()) -> ("2025-11-25", "helpdesk")
    """
    return _run(_handshake, _check_server(server))


async def _list_and_call(server: MCPServer, name: str, arguments: dict[str, Any],
                         before: Any) -> tuple[tuple[ToolDef, ...], CallOutcome | None]:
    async with Client(server, mode=MODE, cache=None) as client:
        tools = tuple(_tool_def(tool) for tool in (await client.list_tools()).tools)
        if before is not None and (refusal := before(tools)) is not None:
            return tools, None
        result = await client.call_tool(name, arguments)
        text = "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")
        return tools, CallOutcome(is_error=bool(result.is_error), text=text)


def list_and_call(server: MCPServer, name: str, arguments: dict[str, Any],
                  before: Any = None) -> tuple[tuple[ToolDef, ...], CallOutcome | None]:
    """In one session: list the tools, ask before(tools) whether to go on, then call name with arguments.

    Args: server (MCPServer); name (str, the server's own tool name); arguments (dict, JSON values);
    before (callable taking the listing and returning None to go on, or anything else to stop; None: go on).
    Returns: (the listing, the CallOutcome), or (the listing, None) when before stopped the call: nothing
    was sent to the tool. A tool that raises, or an unknown tool, comes back as is_error=True.
    Raises: TypeError for a server that is not an MCPServer, or arguments that are not a dict.
    Example: list_and_call(desk_server(), "get_ticket", {"ticket_id": "T-1401"})[1].text
    """
    if not isinstance(arguments, dict):
        raise TypeError(f"arguments must be a dict, got {type(arguments).__name__}")
    return _run(_list_and_call, _check_server(server), name, arguments, before)


def call(server: MCPServer, name: str, arguments: dict[str, Any]) -> CallOutcome:
    """One session's tools/call of name with arguments, no checks of our own (see list_and_call for those).

    Example: call(desk_server(), "get_ticket", {"ticket_id": "T-1401"}).text[:10] -> "Order 5512"
    """
    outcome = list_and_call(server, name, arguments)[1]
    assert outcome is not None  # no before: the call always happens
    return outcome


def schema_text(tool: ToolDef) -> str:
    """The input schema's properties as short text: "name: type, ..." (required ones first, as listed).

    Example: schema_text(listing(desk_server())[0]) -> "ticket_id: string"
    """
    properties = tool.input_schema.get("properties", {})
    return ", ".join(f"{key}: {json.dumps(value.get('type', '?'))[1:-1]}" for key, value in properties.items())
