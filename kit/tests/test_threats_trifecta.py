"""The trifecta and the Rule of Two, on flows built by hand and on the kit's own."""

from __future__ import annotations

from evidencedesk.threats.flows import EXFIL, PRIVATE, UNTRUSTED, Flow, agent_flows, mcp_flows
from evidencedesk.threats.trifecta import (ALLOWED, SUPERVISED, VIOLATES, legs_of, lethal_sets, open_ways_out,
                                           short, verdict)


def flow(name: str, *legs: str, gated: bool = False) -> Flow:
    return Flow(id=name, group="agent", element=name, boundary="b", carries="c", legs=frozenset(legs), gated=gated)


def test_two_legs_are_allowed_three_need_every_way_out_parked() -> None:
    read, out = flow("read", PRIVATE, UNTRUSTED), flow("out", EXFIL)
    assert verdict([read]) == ALLOWED and verdict([read, out]) == VIOLATES
    assert verdict([read, flow("out", EXFIL, gated=True)]) == SUPERVISED
    assert verdict([read, flow("a", EXFIL, gated=True), flow("b", EXFIL)]) == VIOLATES


def test_lethal_sets_are_the_smallest_ones() -> None:
    flows = [flow("p", PRIVATE), flow("u", UNTRUSTED), flow("x", EXFIL), flow("all", PRIVATE, UNTRUSTED, EXFIL)]
    assert lethal_sets(flows) == [("all",), ("p", "u", "x")]
    assert lethal_sets([flow("p", PRIVATE), flow("x", EXFIL)]) == []


def test_short_names_legs_in_order() -> None:
    assert short({EXFIL, PRIVATE}) == "P X" and short(set()) == "-"


def test_the_kits_tasks() -> None:
    assert verdict(agent_flows("triage")) == ALLOWED
    assert verdict(agent_flows("triage", image_hosts=None)) == VIOLATES
    assert verdict(agent_flows("reply", grant=True)) == SUPERVISED
    assert lethal_sets(mcp_flows("orders")) == [("mcp:desk__get_ticket", "mcp:shipping__track_parcel")]
    assert open_ways_out(mcp_flows("reply", grant=True)) == ["mcp:shipping__track_parcel"]
    assert legs_of(mcp_flows("accounts")) == {PRIVATE, UNTRUSTED}
