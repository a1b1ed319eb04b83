"""The flows drawn two ways: a Mermaid diagram of trust boundaries, and a text table of the same flows.

mermaid() groups the elements at the far end of each flow by trust boundary (one subgraph each, the
agent inside the help desk's) and draws one edge per flow, labelled with the legs it carries (P, U,
X; "parked" when a person approves it first). An arrow points the way the legs travel: private and
untrusted data come in to the agent, a way out goes from it. table() prints the same flows as text,
so the diagram is never the only place the information is (a screen reader reads the table).
Left out: layout hints; Mermaid places the nodes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from evidencedesk.threats.flows import DESK, EXFIL, Flow
from evidencedesk.threats.trifecta import short

AGENT = "agent"
COLUMNS = (26, 28, 6, 6, 9)  # characters: flow, far end, legs, parked, width (79 with the spaces)


def node_id(name: str) -> str:
    """A Mermaid node id for an element name: letters, digits and underscores. Example: node_id("any address")"""
    return re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_") or "x"


def edge(flow: Flow) -> str:
    """One Mermaid edge for a flow, labelled with its legs. Example: edge(f) -> 'tickets -->|"P U"| agent'"""
    label = short(flow.legs) if flow.legs else "no leg"
    if flow.gated:
        label += ", parked"
    far = node_id(flow.element)
    if EXFIL not in flow.legs:
        return f'{far} -->|"{label}"| {AGENT}' if flow.legs else f'{AGENT} ---|"{label}"| {far}'
    arrow = "<-->" if flow.legs - {EXFIL} else "-->"
    return f'{AGENT} {arrow}|"{label}"| {far}'


def mermaid(flows: Iterable[Flow]) -> str:
    """Mermaid flowchart text: a subgraph per trust boundary holding its elements, an edge per flow.

    Args: flows (Flow). Returns the text of a ```mermaid block. Example: print(mermaid(agent_flows()))
    """
    flows = tuple(flows)
    boundaries: dict[str, list[str]] = {DESK: [AGENT]}
    for flow in flows:
        members = boundaries.setdefault(flow.boundary, [])
        if flow.element not in members:
            members.append(flow.element)
    lines = ["flowchart LR"]
    for boundary, elements in boundaries.items():
        lines.append(f'    subgraph {node_id("b " + boundary)}["{boundary}"]')
        lines += [f'        {node_id(e)}["{e}"]' for e in elements]
        lines.append("    end")
    lines += [f"    {edge(flow)}" for flow in flows]
    return "\n".join(lines)


def table(flows: Iterable[Flow]) -> list[str]:
    """The flows as text lines of at most 80 characters: flow, far end (boundary), legs, parked, width."""
    def row(*cells: str) -> str:
        return " ".join(c[:w].ljust(w) for c, w in zip(cells, COLUMNS)).rstrip()
    lines = [row("flow", "far end (boundary)", "legs", "parked", "width")]
    for f in flows:
        lines.append(row(f.id, f"{f.element} ({f.boundary})", short(f.legs), "yes" if f.gated else "no",
                         f.width or "-"))
    return lines
