"""Shadowed tool names: two servers offer the same name, and the client must never guess which one is meant.

MCP scopes a tool name to its server; a client that merges several servers' tools into one table by bare
name lets the last server added take the name over (shadowing), so a call meant for one server reaches
another. The kit names every tool the model sees as "<server id>__<tool>", where the server id is the
client's own (the key under which it was added, never the server's self-chosen name, which two servers may
share), and resolve() maps a name back to one (server, tool) or refuses it: an unknown name, and a bare name
that more than one server offers (ambiguous). The names keep to the characters OpenAI's function names
allow (letters, digits, "_" and "-", at most 64). Left out: descriptions that talk about another server's
tools (cross-server shadowing in Invariant Labs' 2025 write-up): a name cannot stop that; the pinned
manifest and the gate limit it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from evidencedesk.supplychain.client import ToolDef

SEPARATOR = "__"  # server ids never hold "_", so the first "__" always ends the server id
MAX_NAME = 64  # characters of a function name OpenAI accepts (^[a-zA-Z0-9_-]{1,64}$)
NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
UNKNOWN, AMBIGUOUS = "unknown", "ambiguous"


class NameRefused(LookupError):
    """A name the model used maps to no single (server, tool); reason is "unknown" or "ambiguous"."""

    def __init__(self, name: str, reason: str, servers: tuple[str, ...] = ()) -> None:
        shown = name[:70]
        detail = f" (offered by {', '.join(servers)})" if servers else ""
        super().__init__(f"{reason} tool name {shown!r}{detail}")
        self.name, self.reason, self.servers = shown, reason, servers


def namespaced(server: str, tool: str) -> str:
    """The name a model sees: server + "__" + tool.

    Raises ValueError naming the problem when server holds "_" or the result is not 1-64 of [A-Za-z0-9_-].
    Example: namespaced("books", "search") -> "books__search"
    """
    if not isinstance(server, str) or not re.fullmatch(r"[a-z][a-z0-9]{0,19}", server):
        raise ValueError(f"server id {str(server)[:30]!r}: expected 1-20 of a-z and 0-9, starting with a letter")
    name = f"{server}{SEPARATOR}{tool}"
    if not isinstance(tool, str) or not NAME.fullmatch(name):
        raise ValueError(f"tool name {str(tool)[:30]!r}: {name[:70]!r} is not 1-{MAX_NAME} of A-Za-z0-9_-")
    return name


def naive_table(listings: Mapping[str, Sequence[ToolDef]]) -> dict[str, str]:
    """The bug, for comparison: bare tool name -> server id, servers added in order, the last one winning.

    Example: naive_table({"books": books_tools, "crm": crm_tools})["search"] -> "crm"
    """
    table: dict[str, str] = {}
    for server, tools in listings.items():
        for tool in tools:
            table[tool.name] = server
    return table


def collisions(listings: Mapping[str, Sequence[ToolDef]]) -> dict[str, tuple[str, ...]]:
    """Each bare tool name offered by more than one server, with those servers in order.

    Example: collisions({"books": b, "crm": c}) -> {"search": ("books", "crm")}
    """
    owners: dict[str, list[str]] = {}
    for server, tools in listings.items():
        for tool in tools:
            owners.setdefault(tool.name, []).append(server)
    return {name: tuple(servers) for name, servers in owners.items() if len(servers) > 1}


def resolve(name: str, listings: Mapping[str, Sequence[ToolDef]]) -> tuple[str, str]:
    """The (server id, tool) a name means: "server__tool" for a listed tool, or a bare name one server offers.

    Args: name (str, as the model wrote it); listings (server id -> its tools).
    Returns: (server id, tool name). Raises: NameRefused "unknown" for a name no server offers, "ambiguous"
    for a bare name that several offer. Example: resolve("books__search", listings) -> ("books", "search")
    """
    if not isinstance(name, str):
        raise NameRefused(str(name), UNKNOWN)
    server, sep, tool = name.partition(SEPARATOR)
    if sep and server in listings and any(t.name == tool for t in listings[server]):
        return server, tool
    owners = tuple(s for s, tools in listings.items() if any(t.name == name for t in tools))
    if len(owners) == 1:
        return owners[0], name
    raise NameRefused(name, AMBIGUOUS if owners else UNKNOWN, owners)
