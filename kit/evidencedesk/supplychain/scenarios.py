"""The supplychain scenario table: one listing, one call or one name at a time, against fresh servers.

kit/data/supplychain/scenarios.jsonl holds one row per line, of three kinds. A "listing" row names a server
(and whether the shipping server has changed its tool first) and expects each listed tool's status against
the pinned manifest. A "call" row names a namespaced tool, a task, arguments, the write grant and the
shipping change, and expects the gate's code. A "name" row holds a name as a model might write it and
expects the (server, tool) it resolves to, or the reason it is refused. Every row runs on new servers and
the manifest in kit/data/supplychain/manifest.json. run_scenario() says what a row produced;
check_scenario() lists how that differs from its expect. Left out: rows with a real model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from evidencedesk.llm import ToolCall
from evidencedesk.strictjson import read_jsonl
from evidencedesk.supplychain.client import listing
from evidencedesk.supplychain.manifest import SUPPLYCHAIN_DATA, Manifest
from evidencedesk.supplychain.privilege import McpDesk, desk_policy
from evidencedesk.supplychain.servers import ShippingServer, all_servers
from evidencedesk.supplychain.shadowing import NameRefused, resolve


class ScenarioError(ValueError):
    """A row of the scenario table is malformed; the message names the line and the field."""


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    id: str = Field(pattern=r"^s[0-9]{2}$")
    why: str = Field(min_length=1, max_length=200)


class ListingRow(_Row):
    """A server's listing checked against the manifest; expect: [[tool, status], ...] in listed order."""

    kind: Literal["listing"]
    server: Literal["desk", "fx", "shipping", "books", "crm"]
    changed_first: bool = False
    expect: list[Annotated[list[str], Field(min_length=2, max_length=2)]]


class CallRow(_Row):
    """A namespaced call through the gate in a task; expect: the result code."""

    kind: Literal["call"]
    name: str = Field(min_length=1, max_length=80)
    task: str = Field(min_length=1, max_length=20)
    arguments: dict[str, Any]
    grant: bool = False
    changed_first: bool = False
    expect: str


class NameRow(_Row):
    """A name as a model wrote it; expect: [server, tool], or "unknown" or "ambiguous"."""

    kind: Literal["name"]
    name: str = Field(min_length=1, max_length=80)
    expect: Union[Annotated[list[str], Field(min_length=2, max_length=2)],  # noqa: UP007
                  Literal["unknown", "ambiguous"]]


ROW = TypeAdapter(Annotated[Union[ListingRow, CallRow, NameRow], Field(discriminator="kind")])  # noqa: UP007


def load_scenarios(path: str | Path | None = None) -> list[dict[str, Any]]:
    """Read and validate the table (default kit/data/supplychain/scenarios.jsonl); the rows as dicts.

    Raises ScenarioError naming the file, line and field of a bad row, or a repeated id.
    Example: load_scenarios()[0]["id"] -> "s01"
    """
    path = Path(path) if path is not None else SUPPLYCHAIN_DATA / "scenarios.jsonl"
    return [row for _, row, _ in read_jsonl(path, ROW.validate_python, ScenarioError, "scenario table")]


def run_scenario(row: dict[str, Any]) -> Any:
    """Run one row on fresh servers and return what it produced, in the shape of its expect.

    Raises pydantic.ValidationError for a malformed row. Example: run_scenario(load_scenarios()[0])
    """
    checked = ROW.validate_python(row)
    shipping = ShippingServer()
    servers = all_servers(shipping)
    if isinstance(checked, NameRow):
        listings = {server_id: listing(server) for server_id, server in servers.items()}
        try:
            return list(resolve(checked.name, listings))
        except NameRefused as refused:
            return refused.reason
    if checked.changed_first:
        shipping.update()
    if isinstance(checked, ListingRow):
        statuses = Manifest.load().check(checked.server, listing(servers[checked.server]))
        return [[s.tool, s.status] for s in statuses]
    desk = McpDesk(servers, Manifest.load(), desk_policy(grant_reply=checked.grant))
    return desk.gate.run(ToolCall("c1", checked.name, checked.arguments), checked.task, "run-1", "hamid").code


def check_scenario(row: dict[str, Any]) -> list[str]:
    """How a row's result differs from its expect: [] when it matches. Example: check_scenario(row) -> []"""
    got, expect = run_scenario(row), row["expect"]
    return [] if got == expect else [f"{row['id']}: expected {expect!r}, got {got!r}"]
