"""The drill's scenario table: kit/data/capstone/scenarios.jsonl, one set of controls per row.

Each row gives the controls (drill.Controls; missing fields take their defaults, every control on and
the reviewer approving) and what the drill must end with: reached (a poisoned note was in memory when
the next run started), detected (the traces led to the poisoned run), contained (no email left),
purged (purge_run removed the run's notes) and clean (nothing of the poisoned run was live for the
verification run, which proposed no email). run_row() plays the drill in a temporary folder;
check_row() returns the mismatches, [] when the row holds. Left out: rows for controls the drill does
not model (an output filter on the email body, a rate limit on writes).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from evidencedesk.capstone.drill import CAPSTONE_DATA, Controls, Drill, run_drill
from evidencedesk.strictjson import read_jsonl


class ScenarioError(ValueError):
    """A row of the table is malformed; the message names the line and the field."""


class Expect(BaseModel):
    """What a drill must end with: five booleans (see the module docstring). Strict."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    reached: bool
    detected: bool
    contained: bool
    purged: bool
    clean: bool


class Row(BaseModel):
    """One row: id ("c" and two digits), controls, expect, why (one line). Strict.

    Example: Row.model_validate({"id": "c01", "controls": {}, "expect": {...}, "why": "all on"})
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    id: str = Field(pattern=r"^c[0-9]{2}$")
    controls: Controls
    expect: Expect
    why: str = Field(min_length=1)


def load_rows(path: str | Path | None = None) -> list[Row]:
    """The rows of the table (default kit/data/capstone/scenarios.jsonl), in order.

    Raises ScenarioError naming the file, the line and the field of a bad row, or a repeated id.
    Example: load_rows()[0].id -> "c01"
    """
    path = Path(path) if path is not None else CAPSTONE_DATA / "scenarios.jsonl"
    return [row for _, _, row in read_jsonl(path, Row.model_validate, ScenarioError, "capstone scenario table")]


def outcome(drill: Drill) -> dict[str, bool]:
    """The five booleans of a Drill, by the names of Expect. Example: outcome(drill)["contained"] -> True"""
    return {"reached": drill.reached, "detected": drill.detected, "contained": drill.contained,
            "purged": bool(drill.purged), "clean": drill.clean}


def run_row(row: Row) -> Drill:
    """Play the drill with the row's controls in a temporary folder. Example: run_row(load_rows()[0]).detected"""
    with tempfile.TemporaryDirectory() as folder:
        return run_drill(row.controls, Path(folder))[0]


def check_row(row: Row) -> list[str]:
    """The row's mismatches as "field: expected X, got Y"; [] when it holds.

    Example: check_row(load_rows()[0]) -> []
    """
    got = outcome(run_row(row))
    return [f"{k}: expected {v}, got {got[k]}" for k, v in row.expect.model_dump().items() if got[k] != v]
