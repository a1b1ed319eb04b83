"""Tests for evidencedesk.strictjson: the one strict JSON reader every loader and the proposal parser share."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidencedesk.strictjson import MAX_DEPTH, parse_json, read_json


def test_plain_json_parses() -> None:
    assert parse_json('{"a": [1, 2.5, "x", true, null]}') == {"a": [1, 2.5, "x", True, None]}


@pytest.mark.parametrize("text, reason", [
    ("[" * 100_000 + "]" * 100_000, "nested more than"),  # json.loads alone raises RecursionError here
    ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "nested more than"),
    ('{"a": 1, "a": 2}', "repeated key 'a'"),
    ('{"x": {"b": 1, "b": 1}}', "repeated key 'b'"),
    ('{"a": NaN}', "NaN is not a JSON number"),
    ("[Infinity]", "Infinity is not a JSON number"),
    ("[-Infinity]", "Infinity is not a JSON number"),
    ("[1e999]", "too large"),
    ("{not json", "Expecting property name"),
])
def test_what_python_json_would_accept_or_crash_on_is_a_value_error(text: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        parse_json(text)


def test_the_depth_limit_itself_is_allowed() -> None:
    assert parse_json("[" * (MAX_DEPTH - 1) + "1" + "]" * (MAX_DEPTH - 1)) is not None


@pytest.mark.parametrize("value", [b'{"a": 1}', None, 7])
def test_non_text_is_a_type_error(value: object) -> None:
    with pytest.raises(TypeError, match="must be a str"):
        parse_json(value)  # type: ignore[arg-type]


def test_read_json_refuses_files_that_are_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes('{"name": "Jürgen"}'.encode("latin-1"))
    with pytest.raises(UnicodeDecodeError):
        read_json(path)
    path.write_text('{"name": "Jürgen"}', encoding="utf-8")
    assert read_json(path) == {"name": "Jürgen"}


def test_read_jsonl_names_file_line_and_field_and_refuses_repeated_ids(tmp_path: Path) -> None:
    from pydantic import BaseModel, ConfigDict

    from evidencedesk.strictjson import read_jsonl

    class Row(BaseModel):
        model_config = ConfigDict(extra="forbid", strict=True)
        id: str
        n: int

    table = tmp_path / "rows.jsonl"
    table.write_text('{"id": "a", "n": 1}\n\n{"id": "b", "n": 2}\n', encoding="utf-8")
    assert [(line, row["id"], checked.n) for line, row, checked in read_jsonl(table, Row.model_validate, KeyError, "t")] \
        == [(1, "a", 1), (3, "b", 2)]
    for text, message in [('{"id": "a", "n": "1"}', "rows.jsonl line 1: field n:"), ("{not json", "line 1: not JSON"),
                          ('{"id": "a", "n": 1}\n{"id": "a", "n": 2}', "line 2: field id: repeated id 'a'")]:
        table.write_text(text, encoding="utf-8")
        with pytest.raises(KeyError, match=message):
            read_jsonl(table, Row.model_validate, KeyError, "t")
    table.write_bytes(b"\xff")
    with pytest.raises(KeyError, match=r"rows.jsonl: cannot read the t \(UnicodeDecodeError\)"):
        read_jsonl(table, Row.model_validate, KeyError, "t")
