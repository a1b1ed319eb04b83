"""The one command finds every table of the kit, in course order, and reports a broken one."""

import ast
import types
from pathlib import Path

import pytest
from test_course_order import PACKAGE

from evidencedesk.capstone.course import CourseError, page_of
from evidencedesk.capstone.tables import CHECKERS, LOADERS, Table, adapter, play, tables


def defines_a_table(path: Path) -> bool:
    names = {n.name for n in ast.parse(path.read_text(encoding="utf-8")).body if isinstance(n, ast.FunctionDef)}
    return bool(names & set(LOADERS)) and bool(names & set(CHECKERS))


def test_every_module_with_a_loader_and_a_checker_is_covered():
    on_disk = {".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts)
               for p in PACKAGE.rglob("*.py") if defines_a_table(p)}
    assert {t.module for t in tables()} == on_disk
    scenarios = {f"evidencedesk.{p.parent.name}.scenarios"
                 for p in PACKAGE.glob("*/scenarios.py")}
    assert scenarios <= on_disk


def test_tables_come_in_course_order():
    labels = [t.label for t in tables()]
    assert labels[0] == "attacks" and labels.index("agent.scenarios") < labels.index("agent.poisoning")
    assert labels.index("calling.scenarios") < labels.index("tenancy.scenarios") < labels.index("capstone.scenarios")


def write(root: Path, relative: str, text: str) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_a_subpackage_no_page_names_stops_the_run(tmp_path):
    write(tmp_path, "mystery/__init__.py", "")
    with pytest.raises(CourseError, match="'mystery'"):
        tables(tmp_path)


def test_a_subpackage_joins_the_run_when_it_is_in_the_kit(tmp_path):
    write(tmp_path, "tenancy/__init__.py", "")
    write(tmp_path, "tenancy/scenarios.py", "def load_rows(): ...\ndef check_row(row): ...\n")
    write(tmp_path, "tenancy/platform.py", "def load_rows(): ...\n")  # a loader without a checker: no table
    assert [t.module for t in tables(tmp_path)] == ["evidencedesk.tenancy.scenarios"]


def module(**functions):
    fake = types.ModuleType("fake.table")
    for name, function in functions.items():
        setattr(fake, name, function)
    return fake


def test_play_counts_rows_held_and_keeps_problems(monkeypatch):
    def check(row):
        if row.get("id") == "b":
            raise RuntimeError("boom")
        return [] if row.get("id") == "a" else ["expected x"]

    rows = [{"id": "a"}, {"id": "b"}, {}]
    monkeypatch.setattr("importlib.import_module", lambda name: module(load_scenarios=lambda: rows,
                                                                       check_scenario=check))
    played = play(Table(module="evidencedesk.attacks", page=page_of("", "attacks")))
    assert (played.rows, played.held, played.green) == (3, 1, False)
    assert played.problems == ("b: RuntimeError: boom", "row 3: expected x")


def test_a_table_that_does_not_load_is_red_with_the_error(monkeypatch):
    def broken():
        raise ValueError("line 3: bad")

    monkeypatch.setattr("importlib.import_module", lambda name: module(load_rows=broken, check_row=lambda r: []))
    played = play(Table(module="evidencedesk.attacks", page=page_of("", "attacks")))
    assert played.rows == 0 and not played.green and played.problems == ("load: ValueError: line 3: bad",)


def test_a_module_without_a_checker_is_named():
    with pytest.raises(CourseError, match="fake.table has no loader"):
        adapter(module(load_rows=list))
