"""Tests of evidencedesk.sinks.sql: parameters, the read-only connection, the authorizer, the step limit."""

from __future__ import annotations

import sqlite3

import pytest

from evidencedesk.sinks.sql import (
    QueryRefused,
    build_desk,
    open_read_only,
    run_model_sql,
    tickets_with_status,
    tickets_with_status_unsafe,
)


@pytest.fixture
def db(tmp_path):
    return build_desk(tmp_path)


def test_formatting_leaks_every_row_and_the_keys(db) -> None:
    with open_read_only(db) as conn:
        assert len(tickets_with_status_unsafe(conn, "farida", "x' OR '1'='1")) == 4
        leaked = tickets_with_status_unsafe(conn, "farida", "x' UNION SELECT user, api_key FROM accounts --")
    assert ("jonas", "sk-sim-JONAS-0002") in leaked


def test_a_parameter_is_only_ever_a_value(db) -> None:
    with open_read_only(db) as conn:
        assert tickets_with_status(conn, "farida", "x' OR '1'='1") == []
        assert tickets_with_status(conn, "farida", "open") == [("T-1101", "Dripping tap in the kitchen")]


def test_the_read_only_connection_refuses_writes_on_its_own(db) -> None:
    conn = open_read_only(db)
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        conn.execute("DELETE FROM tickets")
    conn.close()
    with pytest.raises(sqlite3.OperationalError):
        open_read_only(db.parent / "missing.db")


def test_a_folder_name_with_a_question_mark_stays_a_path(tmp_path) -> None:
    folder = tmp_path / "odd?mode=rwc#x"
    folder.mkdir()
    with open_read_only(build_desk(folder)) as conn:
        assert conn.execute("SELECT count(*) FROM tickets").fetchone() == (4,)


@pytest.mark.parametrize(("sql", "layer"), [
    ("SELECT user, api_key FROM accounts", "authorizer"), ("SELECT owner FROM tickets", "authorizer"),
    ("DELETE FROM tickets", "authorizer"), ("ATTACH DATABASE 'x.db' AS x", "authorizer"),
    ("SELECT load_extension('x')", "authorizer"), ("PRAGMA table_info(tickets)", "authorizer"),
    ("SELECT id FROM tickets; DROP TABLE tickets", "sqlite3"), ("SELEC id", "sqlite3"),
    ("SELECT count(*) FROM tickets a, tickets b, tickets c, tickets d, tickets e, tickets f, tickets g, tickets h",
     "step limit")])
def test_model_sql_is_refused_by_the_named_layer(db, sql: str, layer: str) -> None:
    with pytest.raises(QueryRefused, match=f"^{layer}: "):
        run_model_sql(db, sql)


def test_allowed_queries_run_and_see_every_row(db) -> None:
    assert len(run_model_sql(db, "SELECT id, subject FROM tickets")) == 4  # rows are not the authorizer's business
    assert run_model_sql(db, "SELECT count(*) FROM tickets WHERE lower(status) = 'open'") == [(3,)]
    with pytest.raises(TypeError):
        run_model_sql(db, None)  # type: ignore[arg-type]


def test_build_desk_refuses_to_overwrite(db) -> None:
    with pytest.raises(FileExistsError):
        build_desk(db.parent)
    with pytest.raises(FileNotFoundError):
        build_desk(db.parent / "nowhere")
