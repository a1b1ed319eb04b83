"""Strict JSON reading, shared by every loader of the kit and by the agent's proposal parser.

Python's json module accepts more than JSON: NaN and Infinity, numbers too large for a float
(1e999 becomes inf), repeated keys (the last one silently wins), and nesting so deep that it
raises RecursionError instead of ValueError. parse_json refuses all of these with a ValueError
that says why, so each caller can turn it into its own named error. read_jsonl reads a table of
such values, one per line, for the kit's scenario and attack tables. Left out: streaming, and
schemas (each caller validates the shape with pydantic).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

MAX_DEPTH = 20  # levels of nested lists and objects; the kit's files and proposals need fewer than 6


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:20]} is too large")
    return value


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for key, value in pairs:
        if key in data:
            raise ValueError(f"repeated key {key[:40]!r}")
        data[key] = value
    return data


def _depth(value: Any) -> int:
    """Levels of nesting, counted without recursion (a scalar is 1)."""
    depth, level = 0, [value]
    while level:
        depth += 1
        level = [child for v in level if isinstance(v, dict | list)
                 for child in (v.values() if isinstance(v, dict) else v)]
    return depth


def parse_json(text: str) -> Any:
    """The value of a JSON text, parsed strictly.

    Args: text (str). Returns: the parsed value (dict, list, str, int, float, bool or None).
    Raises: TypeError for a non-str (bytes too); ValueError naming the problem for text that is not
    JSON, NaN or Infinity, a number too large for a float, a repeated key, or nesting deeper than MAX_DEPTH.
    Example: parse_json('{"a": 1, "a": 2}')  # ValueError: repeated key 'a'
    """
    if not isinstance(text, str):
        raise TypeError(f"JSON text must be a str, got {type(text).__name__}")
    try:
        value = json.loads(text, parse_constant=_no_constant, parse_float=_finite, object_pairs_hook=_unique)
    except RecursionError:
        raise ValueError(f"nested more than {MAX_DEPTH} levels deep") from None
    if _depth(value) > MAX_DEPTH:
        raise ValueError(f"nested more than {MAX_DEPTH} levels deep")
    return value


def read_json(path: Path | str) -> Any:
    """The JSON value in a UTF-8 file, parsed with parse_json.

    Raises: OSError when the file cannot be read; ValueError (UnicodeDecodeError included) when it is
    not UTF-8 or not strict JSON. Example: read_json(DATA_DIR / "prices.json")["fake-agent-1"]
    """
    return parse_json(Path(path).read_text(encoding="utf-8"))


def read_jsonl(path: Path, check: Callable[[Any], T], error: type[Exception], what: str) -> list[tuple[int, Any, T]]:
    """Read a JSON Lines table: one strict JSON value per line (blank lines skipped), each checked, ids unique.

    Args:
        path: the UTF-8 file (split on "\\n" only: a row may hold U+2028).
        check: validates one parsed row and returns it typed, e.g. a pydantic model's model_validate; it
            raises ValueError for a bad row (pydantic's ValidationError is one, and names the field).
        error: the exception class to raise, e.g. ScenarioError.
        what: the table's name for messages, e.g. "scenario table".

    Returns:
        (line number, the row as parsed, the checked row) per row, in file order.

    Raises:
        error naming the file when it cannot be read, and the line (and field) of the first row that is not
        strict JSON, fails check, or repeats the "id" of an earlier row.

    Example: read_jsonl(Path("t.jsonl"), dict, ValueError, "table")  # [(1, {"id": "a"}, {"id": "a"})]
    """
    try:
        lines = path.read_text(encoding="utf-8").split("\n")
    except (OSError, ValueError) as exc:  # UnicodeDecodeError is a ValueError
        raise error(f"{path.name}: cannot read the {what} ({type(exc).__name__})") from exc
    rows: list[tuple[int, Any, T]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = parse_json(line)
        except ValueError as exc:
            raise error(f"{path.name} line {number}: not JSON ({exc})") from exc
        try:
            checked = check(row)
        except ValueError as exc:
            first = exc.errors()[0] if hasattr(exc, "errors") else {"loc": (), "msg": str(exc)}
            field = ".".join(str(part) for part in first["loc"]) or "row"
            raise error(f"{path.name} line {number}: field {field}: {first['msg']}") from exc
        if isinstance(row, dict) and any(earlier.get("id") == row.get("id") for _, earlier, _ in rows):
            raise error(f"{path.name} line {number}: field id: repeated id {row.get('id')!r}")
        rows.append((number, row, checked))
    return rows
