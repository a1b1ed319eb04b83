"""Least privilege per server: every MCP tool goes through the Beginner course's ToolGate, by task.

McpDesk connects the client's servers (by the client's own ids) to one gate. Each tool the kit may use is a
Contract we wrote when we approved it: its argument schema (an ArgsModel, checked by the gate before any
request leaves) and whether it writes, which we decide ourselves: a server's annotations (readOnlyHint and
the like) are hints from the server, untrusted unless the server is. The gate's Policy says which
namespaced tools each task may use, so a task reaches only the servers it needs. A call that passes the gate
opens a session, lists the server's tools, checks the listing against the pinned manifest and calls the tool
only if its definition is still the approved one; a changed tool is refused (not_allowed) until a person
approves it again. offered() gives a model only approved tools the task allows. Every result, even from an
honest server, is untrusted: as_context() wraps it as an untrusted ContextPart tagged with its server and
tool. Left out: per-user authorization at the server (MCP's OAuth; the kit passes no caller to a server),
rate limits at the server, and results other than text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from mcp.server.mcpserver import MCPServer
from pydantic import Field

from evidencedesk.context import ContextPart
from evidencedesk.gate import NOT_ALLOWED, TOOL_ERROR, Policy, ToolGate
from evidencedesk.supplychain.client import CallOutcome, ToolDef, list_and_call, listing
from evidencedesk.supplychain.manifest import APPROVED, Manifest
from evidencedesk.supplychain.shadowing import namespaced
from evidencedesk.tools import ArgsModel, Tool, ToolRegistry, ToolResult

TICKET_ID = r"^T-[0-9]{3,6}$"
REFUSED_CHANGED = "changed since it was approved; refused until a person approves it again"


class TicketArgs(ArgsModel):
    """desk get_ticket. Example: TicketArgs(ticket_id="T-1401")"""

    ticket_id: str = Field(pattern=TICKET_ID, max_length=8)


class ReplyArgs(ArgsModel):
    """desk send_reply. Example: ReplyArgs(ticket_id="T-1401", body="Sorry, a copy is on its way.")"""

    ticket_id: str = Field(pattern=TICKET_ID, max_length=8)
    body: str = Field(min_length=1, max_length=1000)


class TrackArgs(ArgsModel):
    """shipping track_parcel, as approved: one argument, no note. Example: TrackArgs(tracking_id="PX-88")"""

    tracking_id: str = Field(pattern=r"^[A-Z]{2}-[0-9]{2,10}$", max_length=13)


class QueryArgs(ArgsModel):
    """books search and crm search. Example: QueryArgs(query="rumi")"""

    query: str = Field(min_length=1, max_length=40)


@dataclass(frozen=True)
class Contract:
    """What we allow of one server's tool: server (our id), tool (its name), args (ArgsModel class), writes."""

    server: str
    tool: str
    args: type[ArgsModel]
    writes: bool = False

    @property
    def name(self) -> str:
        """The namespaced name the model and the gate use. Example: CONTRACTS[0].name -> "desk__get_ticket" """
        return namespaced(self.server, self.tool)


CONTRACTS: tuple[Contract, ...] = (
    Contract("desk", "get_ticket", TicketArgs),
    Contract("desk", "send_reply", ReplyArgs, writes=True),
    Contract("shipping", "track_parcel", TrackArgs),
    Contract("books", "search", QueryArgs),
    Contract("crm", "search", QueryArgs),
)  # no contract for fx: nobody approved convert_currency


def desk_policy(grant_reply: bool = False) -> Policy:
    """Per-task allowlists over namespaced tools: "orders" (tickets, parcels, books), "reply" (orders plus
    send_reply), "accounts" (customer records). Each task reaches only the servers it needs.

    Args: grant_reply (bool) -- give "reply" the write grant. Example: desk_policy().tools_for("accounts")
    """
    orders = {"desk__get_ticket", "shipping__track_parcel", "books__search"}
    return Policy(allow={"orders": orders, "reply": orders | {"desk__send_reply"}, "accounts": {"crm__search"}},
                  write_tasks={"reply"} if grant_reply else set(), max_calls_per_run=10)


@dataclass
class McpDesk:
    """The client's servers, the pinned manifest and the gate in front of them.

    Args: servers (dict server id -> MCPServer); manifest (Manifest); policy (gate.Policy, default
    desk_policy()); contracts (tuple of Contract, default CONTRACTS).
    Attributes: gate (ToolGate over a registry of one proxy Tool per contract); refusals (list of
    (namespaced name, reason) the manifest check refused).
    Example: McpDesk(all_servers(), Manifest.load()).gate.run(call, "orders", "r1", "hamid").code -> "ok"
    """

    servers: dict[str, MCPServer]
    manifest: Manifest
    policy: Policy = field(default_factory=desk_policy)
    contracts: tuple[Contract, ...] = CONTRACTS
    refusals: list[tuple[str, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        registry = ToolRegistry()
        for contract in self.contracts:
            registry.register(Tool(contract.name, contract.args, self._proxy(contract), writes=contract.writes))
        self.gate = ToolGate(registry, self.policy)

    def _proxy(self, contract: Contract) -> Any:
        def run(arguments: dict[str, Any], caller: str) -> ToolResult:
            return self._call(contract, arguments)
        return run

    def _call(self, contract: Contract, arguments: dict[str, Any]) -> ToolResult:
        """List, check the listing against the manifest, then call; refuse a tool that is not approved."""
        def before(tools: tuple[ToolDef, ...]) -> str | None:
            status = {s.tool: s.status for s in self.manifest.check(contract.server, tools)}
            if status.get(contract.tool) == APPROVED:
                return None
            reason = REFUSED_CHANGED if contract.tool in status else "not listed by its server"
            self.refusals.append((contract.name, reason))
            return reason
        _, outcome = list_and_call(self.servers[contract.server], contract.tool, arguments, before)
        if outcome is None:
            return ToolResult.failure(NOT_ALLOWED, f"{contract.name} {self.refusals[-1][1]}")
        return _result(contract, outcome)

    def offered(self, task: str) -> tuple[str, ...]:
        """Definitions for a model (JSON text, sorted by name): tools the task allows whose listing is approved.

        Each is {"name": namespaced, "description", "parameters": the listed input schema}. A tool whose
        definition changed, or that nobody approved, is not offered. Example: desk.offered("accounts")
        """
        allowed = self.policy.tools_for(task)
        out = []
        for server in sorted({c.server for c in self.contracts if c.name in allowed}):
            for status, tool in zip(self.manifest.check(server, tools := listing(self.servers[server])), tools):
                name = namespaced(server, tool.name)
                if name in allowed and status.status == APPROVED:
                    out.append(json.dumps({"name": name, "description": tool.description or "",
                                           "parameters": tool.input_schema}, sort_keys=True))
        return tuple(sorted(out, key=lambda d: json.loads(d)["name"]))


def _result(contract: Contract, outcome: CallOutcome) -> ToolResult:
    if outcome.is_error:
        return ToolResult.failure(TOOL_ERROR, f"{contract.name} failed: {outcome.text[:120]}")
    return ToolResult.success({"text": outcome.text, "source": f"mcp:{contract.server}:{contract.tool}"})


def as_context(result: ToolResult) -> ContextPart:
    """A successful MCP result as an untrusted ContextPart ("tool_result", source "mcp:<server>:<tool>").

    Raises ValueError for a failed result or one that did not come from McpDesk.
    Example: render_untrusted(as_context(result)) -> '<tool_result source="mcp:desk:get_ticket">...'
    """
    if not result.ok or not isinstance(result.data, dict) or "source" not in result.data:
        raise ValueError("expected a successful McpDesk result with data {'text', 'source'}")
    return ContextPart("tool_result", result.data["text"], "untrusted", result.data["source"])
