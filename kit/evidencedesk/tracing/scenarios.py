"""The scenario table of this page: kit/data/tracing/scenarios.jsonl, one traced question per row.

Each row names a user, a feature, a kind of question (lab.KINDS), whether content capture is on, and an
optional question text; it expects the spans' names in tree order, the error types the spans record, the
cost of the trace (credits, as text), whether any span holds content, whether the text's personal data
(the row's "secret") appears in any attribute, and what the lab's head sampler and tail policy decide.
run_row() traces the row alone, on a setup seeded with the row's id; check_row() returns the mismatches
("field: expected X, got Y"); [] means the row holds.
Left out: rows of several questions (the page's workload does that) and rows that need a real Collector.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evidencedesk import DATA_DIR
from evidencedesk.tracing.genai import CONTENT_KEYS, ERROR_TYPE
from evidencedesk.tracing.lab import Question, ask_traced
from evidencedesk.tracing.sampling import EXPENSIVE, RATIO, ratio_keeps, summarise, tail_keep
from evidencedesk.tracing.setup import make_tracing, tree
from evidencedesk.usage import ManualClock

TRACING_DATA = DATA_DIR / "tracing"
FIELDS = {"id", "user", "feature", "kind", "capture", "text", "secret", "expect", "why"}


def load_rows(path: str | Path | None = None) -> list[dict[str, Any]]:
    """The rows of the table (default kit/data/tracing/scenarios.jsonl). Raises ValueError naming a bad line."""
    path = Path(path) if path is not None else TRACING_DATA / "scenarios.jsonl"
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            row = json.loads(line)
            assert isinstance(row, dict) and set(row) == FIELDS
        except (ValueError, AssertionError):
            raise ValueError(f"{path.name}: line {number}: expected a row with exactly {sorted(FIELDS)}") from None
        rows.append(row)
    return rows


def run_row(row: dict[str, Any]) -> dict[str, Any]:
    """What the row's question does when traced alone: spans, errors, cost, content, leaks, head, tail."""
    tracing = make_tracing(ManualClock(), seed=row["id"])
    outcome = ask_traced(tracing, Question(row["user"], row["feature"], row["kind"]), row["text"], row["capture"])
    spans = tracing.spans()
    values = [str(v) for s in spans for v in (s.attributes or {}).values()]
    (trace,) = summarise(spans)
    return {"spans": [" ".join(line.split()[:2]) for line in tree(spans)],  # each span's name, in tree order
            "errors": sorted({str(s.attributes[ERROR_TYPE]) for s in spans if ERROR_TYPE in (s.attributes or {})}),
            "cost": str(trace.cost),
            "content": any(k in (s.attributes or {}) for s in spans for k in CONTENT_KEYS),
            "leaks": bool(row["secret"]) and any(row["secret"] in v for v in values),
            "head_keeps": ratio_keeps(outcome.trace_id, RATIO),
            "tail_keeps": tail_keep(trace, RATIO, EXPENSIVE)}


def check_row(row: dict[str, Any]) -> list[str]:
    """The row's mismatches as "field: expected X, got Y"; [] when it holds."""
    got = run_row(row)
    return [f"{k}: expected {v}, got {got.get(k)}" for k, v in row["expect"].items() if got.get(k) != v]
