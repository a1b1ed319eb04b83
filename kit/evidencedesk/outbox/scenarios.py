"""The scenario table of this page: kit/data/outbox/scenarios.jsonl, one staged crash per row.

Each row names the path (outbox, or direct: commit then send), the boundary the first process dies at,
the receiver's kind, whether the death is hard (a child process ending with os._exit), and what the
receiver must have counted once the restart is done: deliveries, duplicates (deliveries of an id it had
seen) and effects (emails the customer got). check_row() returns the mismatches; [] means the row holds.
Left out: rows with two relays at once, which process.py does not stage (the page's Hard exercise does).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from evidencedesk.outbox.crash import Boundary
from evidencedesk.outbox.process import PATHS, Outcome, crash_and_resume
from evidencedesk.outbox.receiver import KINDS
from evidencedesk.strictjson import read_jsonl

OUTBOX_DATA = Path(__file__).resolve().parents[2] / "data" / "outbox"  # kit/data/outbox/


class ScenarioError(ValueError):
    """The scenario table cannot be read: the message names the file, the line and the field."""


class Expect(BaseModel):
    """What the receiver counts after the restart."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    deliveries: int
    duplicates: int
    effects: int


class Row(BaseModel):
    """One row of the table; path and receiver must be known names."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    id: str
    path: str
    crash: Boundary
    receiver: str
    hard: bool = False
    expect: Expect
    why: str

    def model_post_init(self, _context: object) -> None:
        if self.path not in PATHS or self.receiver not in KINDS:
            raise ValueError(f"path must be one of {PATHS} and receiver one of {KINDS}")


def load_rows(path: str | Path | None = None) -> list[Row]:
    """The rows (default kit/data/outbox/scenarios.jsonl). Raises ScenarioError naming a bad line.

    Example: load_rows()[0].crash -> Boundary.NONE
    """
    path = Path(path) if path is not None else OUTBOX_DATA / "scenarios.jsonl"
    return [row for _, _, row in read_jsonl(path, Row.model_validate, ScenarioError, "scenario table")]


def run_row(row: Row) -> Outcome:
    """Stage the row's crash in a fresh temporary folder (removed after) and return the Outcome.

    Args: row (Row). Returns: process.Outcome. Example: run_row(load_rows()[0]).seen.effects -> 1
    """
    with tempfile.TemporaryDirectory() as folder:
        return crash_and_resume(folder, row.crash, row.receiver, row.path, hard=row.hard)


def check_row(row: Row) -> list[str]:
    """The row's mismatches as "field: expected X, got Y"; [] when it holds.

    Args: row (Row). Returns: list[str]. Example: check_row(load_rows()[0]) -> []
    """
    seen = run_row(row).seen
    return [f"{name}: expected {want}, got {getattr(seen, name)}"
            for name, want in row.expect.model_dump().items() if getattr(seen, name) != want]
