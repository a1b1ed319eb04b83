"""The scenario table of this page: kit/data/threats/scenarios.jsonl, one tool set or configuration per row.

Each row names a group ("agent": the agent lab of the agent-loop page; "mcp": the MCP desk of the
supply-chain page), a task, the write grant, whether the chat window renders images through the
allowlist, tools to leave out, and what it must give: the legs its flows carry (as letters, "P U X")
and the Rule of Two's verdict. check_row() returns the mismatches; [] means the row holds.
Left out: rows for the sinks and tenant flows, which carry no leg of the trifecta.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evidencedesk.sinks.markdown import IMAGE_HOSTS
from evidencedesk.threats.flows import Flow, agent_flows, mcp_flows
from evidencedesk.threats.register import THREATS_DATA
from evidencedesk.threats.trifecta import legs_of, short, verdict

FIELDS = {"id", "group", "task", "grant", "image_allowlist", "without", "expect", "why"}


def load_rows(path: str | Path | None = None) -> list[dict[str, Any]]:
    """The rows of the table (default kit/data/threats/scenarios.jsonl). Raises ValueError naming a bad line."""
    path = Path(path) if path is not None else THREATS_DATA / "scenarios.jsonl"
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            row = json.loads(line)
            assert isinstance(row, dict) and set(row) == FIELDS and row["group"] in ("agent", "mcp")
        except (ValueError, AssertionError):
            raise ValueError(f"{path.name}: line {number}: expected a row with {', '.join(sorted(FIELDS))}") from None
        rows.append(row)
    return rows


def flows_of(row: dict[str, Any]) -> tuple[Flow, ...]:
    """The flows of the row's configuration. Example: [f.id for f in flows_of(load_rows()[0])]"""
    without = tuple(row["without"])
    if row["group"] == "agent":
        hosts = IMAGE_HOSTS if row["image_allowlist"] else None
        return agent_flows(row["task"], row["grant"], hosts, without)
    return mcp_flows(row["task"], row["grant"], without)


def run_row(row: dict[str, Any]) -> dict[str, str]:
    """{"legs": "P U X", "verdict": ...} for the row's configuration."""
    flows = flows_of(row)
    return {"legs": short(legs_of(flows)), "verdict": verdict(flows)}


def check_row(row: dict[str, Any]) -> list[str]:
    """The row's mismatches as "field: expected X, got Y"; [] when it holds."""
    got = run_row(row)
    return [f"{k}: expected {v}, got {got[k]}" for k, v in row["expect"].items() if got[k] != v]
