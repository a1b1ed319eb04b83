"""The scenario table of this page: kit/data/tenancy/scenarios.jsonl, one run of requests per row.

Each row names a bug from platform.BUGS ("" for none), a list of requests ["tenant/user", op, arg], and
what the two checks must say: foreign (a response named another tenant) and interferes (a tenant's
responses differ from its responses alone). check_row() returns the mismatches; [] means the row holds.
Left out: rows that need concurrency or time, which this platform does not model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evidencedesk.tenancy.context import TenantContext
from evidencedesk.tenancy.platform import TENANCY_DATA, Request, foreign_data, interference


def load_rows(path: str | Path | None = None) -> list[dict[str, Any]]:
    """The rows of the table (default kit/data/tenancy/scenarios.jsonl). Raises ValueError naming a bad line."""
    path = Path(path) if path is not None else TENANCY_DATA / "scenarios.jsonl"
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            row = json.loads(line)
            assert {"id", "bug", "requests", "expect", "why"} <= set(row)
        except (ValueError, AssertionError):
            raise ValueError(f"{path.name}: line {number}: expected a row with id, bug, requests, expect, why") from None
        rows.append(row)
    return rows


def requests_of(row: dict[str, Any]) -> list[Request]:
    """The row's requests as (TenantContext, op, arg). Example: requests_of(load_rows()[0])[0][1] -> "ask\""""
    out = []
    for who, op, arg in row["requests"]:
        tenant, user = who.split("/")
        out.append((TenantContext(tenant=tenant, user=user), op, arg))
    return out


def run_row(row: dict[str, Any]) -> dict[str, bool]:
    """{"foreign": bool, "interferes": bool} for the row's requests under its bug."""
    bugs = [row["bug"]] if row["bug"] else []
    requests = requests_of(row)
    return {"foreign": foreign_data(requests, bugs) is not None,
            "interferes": interference(requests, bugs) is not None}


def check_row(row: dict[str, Any]) -> list[str]:
    """The row's mismatches as "field: expected X, got Y"; [] when it holds."""
    got = run_row(row)
    return [f"{k}: expected {v}, got {got[k]}" for k, v in row["expect"].items() if got[k] != v]
