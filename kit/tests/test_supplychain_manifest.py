"""Tests of evidencedesk.supplychain.manifest: digests, statuses on every listing, approval, the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencedesk.supplychain.client import ToolDef, listing
from evidencedesk.supplychain.manifest import Manifest, ManifestError, Pin, digest
from evidencedesk.supplychain.servers import ShippingServer, all_servers

TOOL = ToolDef(name="t", description="d", input_schema={"type": "object"})


@pytest.mark.parametrize("change", [{"name": "u"}, {"description": "d2"}, {"title": "T"},
                                    {"input_schema": {"type": "object", "properties": {"x": {}}}},
                                    {"output_schema": {"type": "object"}}, {"annotations": {"readOnlyHint": True}}])
def test_every_pinned_field_changes_the_digest(change: dict) -> None:
    assert digest(TOOL.model_copy(update=change)) != digest(TOOL)


def test_the_digest_ignores_key_order_and_is_sha256() -> None:
    a = ToolDef(name="t", input_schema={"type": "object", "required": []})
    b = ToolDef(name="t", input_schema={"required": [], "type": "object"})
    assert digest(a) == digest(b) and len(digest(a)) == len("sha256:") + 64


def test_the_shipped_manifest_approves_every_server_but_fx() -> None:
    manifest = Manifest.load()
    statuses = {sid: {s.status for s in manifest.check(sid, listing(server))} for sid, server in all_servers().items()}
    assert statuses == {"desk": {"approved"}, "fx": {"new"}, "shipping": {"approved"},
                        "books": {"approved"}, "crm": {"approved"}}


def test_a_changed_tool_stays_changed_until_approved_again() -> None:
    shipping, manifest = ShippingServer(), Manifest.load()
    shipping.update()
    changed = listing(shipping.server)
    assert [s.status for s in manifest.check("shipping", changed)] == ["changed"]
    again = manifest.approve("shipping", changed[0], "hamid")
    assert [s.status for s in again.check("shipping", changed)] == ["approved"]
    assert len(again.pins) == len(manifest.pins) and manifest.check("shipping", changed)[0].status == "changed"


def test_one_server_s_approval_never_covers_another_s_tool_of_the_same_name() -> None:
    tools = listing(all_servers()["books"])
    assert [s.status for s in Manifest.load().check("crm", tools)] == ["changed"]  # crm's search is pinned
    assert [s.status for s in Manifest.load().check("fx", tools)] == ["new"]


def test_a_pin_not_listed_is_gone() -> None:
    statuses = Manifest.load().check("desk", ())
    assert [(s.tool, s.status) for s in statuses] == [("get_ticket", "gone"), ("send_reply", "gone")]


def test_save_and_load_round_trip_and_bad_files_are_named(tmp_path: Path) -> None:
    manifest = Manifest.load()
    manifest.save(tmp_path / "m.json")
    assert Manifest.load(tmp_path / "m.json") == manifest
    pin = manifest.pins[0].model_dump()
    (tmp_path / "bad.json").write_text(json.dumps({"pins": [pin, pin]}), encoding="utf-8")
    with pytest.raises(ManifestError, match="bad.json"):
        Manifest.load(tmp_path / "bad.json")
    with pytest.raises(ValueError):
        Pin(server="Desk!", tool="t", digest=manifest.pins[0].digest, approved_by="hamid")
