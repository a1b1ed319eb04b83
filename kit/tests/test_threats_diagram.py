"""The diagram and the table carry the same flows."""

from __future__ import annotations

from evidencedesk.threats.diagram import edge, mermaid, node_id, table
from evidencedesk.threats.flows import EXFIL, PRIVATE, UNTRUSTED, Flow, agent_flows, mcp_flows


def flow(legs: set[str], gated: bool = False) -> Flow:
    return Flow(id="a:x", group="agent", element="far end", boundary="outside", carries="c",
                legs=frozenset(legs), gated=gated)


def test_arrows_point_the_way_the_legs_travel() -> None:
    assert edge(flow({PRIVATE, UNTRUSTED})) == 'far_end -->|"P U"| agent'
    assert edge(flow({EXFIL}, gated=True)) == 'agent -->|"X, parked"| far_end'
    assert edge(flow({UNTRUSTED, EXFIL})) == 'agent <-->|"U X"| far_end'
    assert edge(flow(set())) == 'agent ---|"no leg"| far_end'


def test_every_flow_is_an_edge_and_every_boundary_a_subgraph() -> None:
    flows = agent_flows()
    text = mermaid(flows)
    assert text.startswith("flowchart LR") and text.count("subgraph") == len({f.boundary for f in flows} | {"help desk"})
    assert all(edge(f) in text for f in flows) and text.count("\n    end") == text.count("subgraph")


def test_the_table_has_a_row_per_flow_within_80_characters() -> None:
    flows = agent_flows() + mcp_flows("reply", grant=True)
    lines = table(flows)
    assert len(lines) == len(flows) + 1 and max(map(len, lines)) <= 80
    assert all(line.startswith(f.id) for line, f in zip(lines[1:], flows))


def test_node_ids_are_plain() -> None:
    assert node_id("ticket reader") == "ticket_reader" and node_id("!!") == "x"
