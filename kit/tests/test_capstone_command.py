"""The one command prints a line per table and per property file, a verdict, and an exit code CI can read."""

import subprocess
import sys

import pytest

from evidencedesk.capstone import command
from evidencedesk.capstone.course import page_of
from evidencedesk.capstone.properties import FileResult
from evidencedesk.capstone.tables import Played, Table

ATTACKS = Table(module="evidencedesk.attacks", page=page_of("", "attacks"))
TENANCY = Table(module="evidencedesk.tenancy.scenarios", page=page_of("tenancy", "scenarios"))


@pytest.fixture
def two_tables(monkeypatch):
    monkeypatch.setattr(command, "tables", lambda: [ATTACKS, TENANCY])
    results = {ATTACKS.module: Played(table=ATTACKS, rows=3, held=3),
               TENANCY.module: Played(table=TENANCY, rows=2, held=2)}
    monkeypatch.setattr(command, "play", lambda table: results[table.module])
    return results


def test_green_tables_exit_0_with_one_line_each(two_tables, capsys):
    assert command.main(["--no-properties"]) == command.EXIT_GREEN
    out = capsys.readouterr().out.splitlines()
    assert out == ["table                    rows held  page",
                   "attacks                     3    3  Safe Failure and Security Regression Tests",
                   "tenancy.scenarios           2    2  Multi-Tenant Isolation",
                   "GREEN: 2 tables, 5 of 5 rows held"]
    assert max(map(len, out)) <= command.WIDTH


def test_a_row_that_fails_makes_it_red_and_exit_1(two_tables, capsys):
    two_tables[TENANCY.module] = Played(table=TENANCY, rows=2, held=1, problems=("m02: foreign: expected True",))
    assert command.main(["--no-properties"]) == command.EXIT_RED
    out = capsys.readouterr().out
    assert "  m02: foreign: expected True" in out and out.splitlines()[-1] == "RED: 2 tables, 4 of 5 rows held"


def test_a_failed_property_makes_it_red(two_tables, monkeypatch, capsys):
    result = FileResult(name="test_invariants.py", passed=8, failed=1, failures=("kit/tests/x.py::test_y",))
    monkeypatch.setattr(command.properties, "run", lambda select=None: ([result], 1))
    assert command.main([]) == command.EXIT_RED
    out = capsys.readouterr().out.splitlines()
    assert "invariants                  9    8  Safe Failure and Security Regression Tests" in out
    assert "  failed: test_y" in out and out[-1] == "RED: 2 tables, 5 of 5 rows held; 8 of 9 properties held"


def test_the_selection_reaches_pytest_and_green_properties_keep_it_green(two_tables, monkeypatch, capsys):
    asked = []
    monkeypatch.setattr(command.properties, "run",
                        lambda select=None: asked.append(select) or ([FileResult(name="test_x.py", passed=2,
                                                                                 failed=0)], 0))
    assert command.main(["-k", "not slow"]) == command.EXIT_GREEN and asked == ["not slow"]
    assert capsys.readouterr().out.splitlines()[-1] == "GREEN: 2 tables, 5 of 5 rows held; 2 of 2 properties held"


@pytest.mark.parametrize("outcome", [([], 5), ([], 2)])
def test_properties_that_did_not_run_are_not_green(two_tables, monkeypatch, capsys, outcome):
    monkeypatch.setattr(command.properties, "run", lambda select=None: outcome)
    assert command.main([]) == command.EXIT_NOT_RUN
    assert capsys.readouterr().out.splitlines()[-1].startswith("NOT RUN: 2 tables")


def test_without_pytest_the_properties_are_not_run(two_tables, monkeypatch, capsys):
    def missing(select=None):
        raise ModuleNotFoundError("No module named 'pytest'", name="pytest")

    monkeypatch.setattr(command.properties, "run", missing)
    assert command.main([]) == command.EXIT_NOT_RUN
    assert "pytest is missing" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["--no-properties", "-k", "x"], ["--nope"]])
def test_a_bad_command_line_exits_2(argv, two_tables):
    with pytest.raises(SystemExit) as exit_:
        command.main(argv)
    assert exit_.value.code == 2


def test_the_module_runs_as_a_program_with_help():
    done = subprocess.run([sys.executable, "-m", "evidencedesk.capstone", "--help"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0 and "--no-properties" in done.stdout and "Exit 0" in done.stdout


def test_a_long_title_is_cut_to_fit():
    line = command.table_line(Played(table=Table(module="evidencedesk.resilience.scenarios",
                                                 page=page_of("resilience", "x")), rows=23, held=23))
    assert len(line) <= command.WIDTH and line.endswith("...")
