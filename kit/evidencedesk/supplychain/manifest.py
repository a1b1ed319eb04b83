"""A pinned manifest: a digest of each approved tool's definition, checked on every tools/list.

A person approves a tool once, after reading its definition; the manifest keeps a SHA-256 digest of what
they read: PINNED_FIELDS of the definition (name, title, description, input and output schemas,
annotations) as canonical JSON (sorted keys, no spaces). check() compares every listing with the pins and
gives each listed tool one status: approved (its digest is pinned for this server), changed (the name is
pinned with another digest: the "rug pull"), new (never approved); a pinned tool the server no longer lists
is gone. Only an approved tool may be offered to a model or called; approve() pins a definition again, by a
named person. Left out: the code behind a definition (a server can change what a tool does and keep its
definition: no digest sees that), a definition's icons and _meta (a host may show icons to the user; the
kit does not read them), servers that answer different clients differently, and signing the manifest itself.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from evidencedesk import DATA_DIR
from evidencedesk.strictjson import read_json
from evidencedesk.supplychain.client import ToolDef

SUPPLYCHAIN_DATA = DATA_DIR / "supplychain"
PINNED_FIELDS = ("name", "title", "description", "input_schema", "output_schema", "annotations")
APPROVED, CHANGED, NEW, GONE = "approved", "changed", "new", "gone"
SERVER_ID = r"^[a-z][a-z0-9]{0,19}$"  # the client's own id for a server: no "_" (see shadowing.SEPARATOR)


class ManifestError(ValueError):
    """The manifest file is malformed; the message names the field."""


def digest(tool: ToolDef) -> str:
    """The SHA-256 of a tool's PINNED_FIELDS as canonical JSON, as "sha256:" and 64 hex digits.

    Args: tool (client.ToolDef). Raises: TypeError for anything else.
    Example: digest(listing(desk_server())[0])[:7] -> "sha256:"
    """
    if not isinstance(tool, ToolDef):
        raise TypeError(f"tool must be a ToolDef, got {type(tool).__name__}")
    pinned = {field: getattr(tool, field) for field in PINNED_FIELDS}
    text = json.dumps(pinned, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return "sha256:" + hashlib.sha256(text.encode("ascii")).hexdigest()


class Pin(BaseModel):
    """One approved tool: server (the client's id), tool (its name), digest, approved_by (a user id).

    Example: Pin(server="desk", tool="get_ticket", digest="sha256:...", approved_by="hamid")
    """

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)
    server: str = Field(pattern=SERVER_ID)
    tool: str = Field(min_length=1, max_length=128)
    digest: str = Field(pattern=r"^sha256:[0-9a-f]{64}$")
    approved_by: str = Field(min_length=1, max_length=40)


class Status(BaseModel):
    """One line of a check: server, tool, status (approved, changed, new or gone), digest (as listed, or "")."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    server: str
    tool: str
    status: Literal["approved", "changed", "new", "gone"]
    digest: str


class Manifest(BaseModel):
    """The pins, in order; at most one per (server, tool). Frozen: approve() returns a new manifest.

    Raises pydantic.ValidationError for a bad pin, ValueError for two pins of one (server, tool).
    Example: Manifest(pins=()).check("desk", listing(desk_server()))[0].status -> "new"
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    pins: tuple[Pin, ...] = ()

    def model_post_init(self, _context: object) -> None:
        keys = [(p.server, p.tool) for p in self.pins]
        if len(keys) != len(set(keys)):
            raise ValueError("the manifest pins one (server, tool) twice")

    def pinned(self, server: str, tool: str) -> Pin | None:
        """The pin of tool on server, or None. Example: manifest.pinned("desk", "get_ticket").approved_by"""
        return next((p for p in self.pins if (p.server, p.tool) == (server, tool)), None)

    def check(self, server: str, tools: tuple[ToolDef, ...] | list[ToolDef]) -> tuple[Status, ...]:
        """Each listed tool's status against the pins of server, in listed order, then each pin not listed (gone).

        Args: server (str, the client's id); tools (the listing, client.ToolDef each).
        Returns: tuple of Status. Example: manifest.check("shipping", listing(s.server))[0].status -> "changed"
        """
        out = []
        for tool in tools:
            pin, seen = self.pinned(server, tool.name), digest(tool)
            status = NEW if pin is None else APPROVED if pin.digest == seen else CHANGED
            out.append(Status(server=server, tool=tool.name, status=status, digest=seen))
        listed = {t.name for t in tools}
        out += [Status(server=server, tool=p.tool, status=GONE, digest="")
                for p in self.pins if p.server == server and p.tool not in listed]
        return tuple(out)

    def approve(self, server: str, tool: ToolDef, by: str) -> Manifest:
        """A new manifest with tool pinned for server as approved by (a user id), replacing any earlier pin.

        Call it only after a person has read the definition (its description above all). Raises
        pydantic.ValidationError for a bad server id or an empty by. Example: manifest.approve("fx", t, "hamid")
        """
        pin = Pin(server=server, tool=tool.name, digest=digest(tool), approved_by=by)
        kept = tuple(p for p in self.pins if (p.server, p.tool) != (server, tool.name))
        return Manifest(pins=(*kept, pin))

    def save(self, path: Path | str) -> None:
        """Write the manifest as JSON (one pin per line). Example: manifest.save(tmp_path / "m.json")"""
        lines = ",\n".join("  " + p.model_dump_json() for p in self.pins)
        Path(path).write_text("{\"pins\": [\n" + lines + "\n]}\n", encoding="utf-8")

    @classmethod
    def load(cls, path: Path | str | None = None) -> Manifest:
        """Read a manifest (default kit/data/supplychain/manifest.json). Raises ManifestError naming the problem.

        Example: Manifest.load().pinned("desk", "get_ticket").approved_by -> "hamid"
        """
        path = Path(path) if path is not None else SUPPLYCHAIN_DATA / "manifest.json"
        try:
            return cls.model_validate(read_json(path))
        except ValueError as exc:
            raise ManifestError(f"{path.name}: {exc}") from exc
