"""Strict JSON reading, shared by every loader of the kit and by the agent's proposal parser.

Python's json module accepts more than JSON: NaN and Infinity, numbers too large for a float
(1e999 becomes inf), repeated keys (the last one silently wins), and nesting so deep that it
raises RecursionError instead of ValueError. parse_json refuses all of these with a ValueError
that says why, so each caller can turn it into its own named error. Left out: streaming, and
schemas (each caller validates the shape with pydantic).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

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
