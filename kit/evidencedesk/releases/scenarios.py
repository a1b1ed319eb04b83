"""The scenario table of this page: kit/data/releases/scenarios.jsonl, one release per row.

Each row describes a change to the served prompt version V1 (changes: any of template, model,
temperature, max_tokens), the scripted behaviour that stands in for it (a configuration name of
candidates.RELEASE_CONFIGS), and what the release must come to: outcome (a pipeline outcome), gate
(PASS, FAIL, UNDECIDED or null when not reached), paths (paths changed in shadow, or null) and pin
(the codes the pin check found). run_row() releases it in a fresh registry on a fresh ManualClock;
check_row() returns the mismatches, [] when the row holds. Left out: rows for a change of code alone,
which has no prompt version of its own (it needs its own version number, as page 10's configurations have).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evidencedesk.releases.candidates import RELEASE_CONFIGS, RELEASES_DATA, SERVED, V1, Candidate, catalogue
from evidencedesk.releases.pipeline import ReleaseReport, release
from evidencedesk.releases.prompts import PromptRegistry
from evidencedesk.releases.snapshots import check_pin, today
from evidencedesk.usage import ManualClock

FIELDS = {"id", "change", "behaviour", "expect", "why"}
CHANGEABLE = {"template", "model", "temperature", "max_tokens"}


def load_rows(path: str | Path | None = None) -> list[dict[str, Any]]:
    """The rows of the table (default kit/data/releases/scenarios.jsonl). Raises ValueError naming a bad line."""
    path = Path(path) if path is not None else RELEASES_DATA / "scenarios.jsonl"
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            row = json.loads(line)
            assert FIELDS <= set(row) and set(row["change"]) <= CHANGEABLE and row["behaviour"] in RELEASE_CONFIGS
        except (ValueError, AssertionError, TypeError):
            raise ValueError(f"{path.name}: line {number}: expected a row with {sorted(FIELDS)}, "
                             f"changes among {sorted(CHANGEABLE)} and a known behaviour") from None
        rows.append(row)
    return rows


def candidate_of(row: dict[str, Any]) -> Candidate:
    """The row's candidate: V1 with the row's changes, behaving as its configuration."""
    return Candidate(row["id"], V1.model_copy(update=row["change"]), RELEASE_CONFIGS[row["behaviour"]])


def run_row(row: dict[str, Any]) -> ReleaseReport:
    """Release the row's candidate against SERVED, in a fresh registry on a fresh clock."""
    return release(candidate_of(row), SERVED, PromptRegistry(), ManualClock())


def got_of(report: ReleaseReport, row: dict[str, Any]) -> dict[str, Any]:
    """What the release came to, in the fields a row expects."""
    version = candidate_of(row).version
    return {"outcome": report.outcome,
            "gate": report.gate.outcome if report.gate else None,
            "paths": sum(p.path_changed for p in report.shadow.pairs) if report.shadow else None,
            "pin": [f.code for f in check_pin(version.model, None, catalogue(), today(ManualClock()))]}


def check_row(row: dict[str, Any], report: ReleaseReport | None = None) -> list[str]:
    """The row's mismatches as "field: expected X, got Y"; [] when it holds. report: run_row(row) if None."""
    got = got_of(report if report is not None else run_row(row), row)
    return [f"{k}: expected {v!r}, got {got[k]!r}" for k, v in row["expect"].items() if got[k] != v]
