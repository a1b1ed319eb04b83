"""The sinks scenario table: each row one piece of model output at one sink, and what the control must do.

kit/data/sinks/scenarios.jsonl holds one row per line: an id, a kind (the sink), the input (what the
model wrote), the expected outcome as a short string, and why. run_row() plays the row through the
control of its sink, in a temporary folder of its own (database, notes and attachments are rebuilt for
every row), and returns the outcome in the same short form; check_row() compares the two.
Outcomes: html -> the sanitised HTML; markdown -> "dropped N"; sql_status, sql_model -> "rows N" or
"refused LAYER"; shell -> "lines N" or "refused"; path -> "ok user/file" or "refused"; json ->
"ok ACTION TICKET" or "refused". Left out: the wrong ways, which each module keeps only to show the attack.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from evidencedesk.sinks.html import reply_as_html
from evidencedesk.sinks.jsonout import ActionRefused, parse_action
from evidencedesk.sinks.markdown import render_reply
from evidencedesk.sinks.paths import PathRefused, attachment_path, make_attachments
from evidencedesk.sinks.replies import SINKS_DATA
from evidencedesk.sinks.shell import ArgumentRefused, make_notes, search_notes
from evidencedesk.sinks.sql import QueryRefused, build_desk, open_read_only, run_model_sql, tickets_with_status
from evidencedesk.strictjson import read_jsonl

KINDS = ("html", "markdown", "sql_status", "sql_model", "shell", "path", "json")
USER = "farida"  # every row runs as her: the session's user, never a value from the model


class ScenarioError(ValueError):
    """A row of the scenario table is malformed; the message names the line and the field."""


class Scenario(BaseModel):
    """One row of scenarios.jsonl. Strict types; no other fields."""

    model_config = ConfigDict(frozen=True, strict=True, extra="forbid")
    id: Annotated[str, Field(pattern=r"^o[0-9]{2}$")]
    kind: Literal["html", "markdown", "sql_status", "sql_model", "shell", "path", "json"]
    input: Annotated[str, Field(min_length=1, max_length=400)]
    expect: Annotated[str, Field(min_length=1)]
    why: Annotated[str, Field(min_length=1)]


def load_rows(path: str | Path | None = None) -> list[dict[str, Any]]:
    """Read and validate the table (one strict JSON object per line). Args: path (default
    kit/data/sinks/scenarios.jsonl). Returns: rows as dicts, in order. Raises: ScenarioError naming the line.
    Example: load_rows()[0]["id"] -> "o01"
    """
    path = Path(path) if path is not None else SINKS_DATA / "scenarios.jsonl"
    return [row for _, row, _ in read_jsonl(path, Scenario.model_validate, ScenarioError, "scenario table")]


def _play(s: Scenario, folder: Path) -> str:
    if s.kind == "html":
        return reply_as_html(s.input)
    if s.kind == "markdown":
        return f"dropped {len(render_reply(s.input).dropped)}"
    if s.kind in ("sql_status", "sql_model"):
        db = build_desk(folder)
        if s.kind == "sql_status":
            conn = open_read_only(db)
            try:
                return f"rows {len(tickets_with_status(conn, USER, s.input))}"
            finally:
                conn.close()
        try:
            return f"rows {len(run_model_sql(db, s.input))}"
        except QueryRefused as exc:
            return f"refused {str(exc).split(':', 1)[0]}"
    if s.kind == "shell":
        try:
            out = search_notes(make_notes(folder), USER, s.input)
        except ArgumentRefused:
            return "refused"
        return f"lines {len(out.splitlines())}"
    if s.kind == "path":
        root = make_attachments(folder)
        try:
            return f"ok {attachment_path(root / USER, s.input).relative_to(root.resolve()).as_posix()}"
        except PathRefused:
            return "refused"
    try:
        action = parse_action(s.input)
    except ActionRefused:
        return "refused"
    return f"ok {action.action} {action.ticket}"


def run_row(row: dict[str, Any]) -> str:
    """Play one row through its sink's control, in a fresh temporary folder, and return the outcome.

    Raises: pydantic.ValidationError for a malformed row. Example: run_row(load_rows()[3]) -> "dropped 1"
    """
    s = Scenario.model_validate(row)
    with tempfile.TemporaryDirectory() as folder:
        return _play(s, Path(folder))


def check_row(row: dict[str, Any]) -> list[str]:
    """[] when the row's outcome is the one it expects, else one line saying how it differs.

    Example: check_row(load_rows()[0]) -> []
    """
    got = run_row(row)
    return [] if got == row["expect"] else [f"{row['id']}: expected {row['expect']!r}, got {got!r}"]

