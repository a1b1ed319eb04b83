"""The one command: every table and property of the course, one line each, a verdict and an exit code.

    python -m evidencedesk.capstone                  # every table, then every property
    python -m evidencedesk.capstone --no-properties  # the tables only
    python -m evidencedesk.capstone -k "not invariants"   # a pytest -k selection of the properties

main() plays each table that tables.tables() finds, in course order, and prints one line per table: the
module, its rows, the rows that held, and the page that added it; then, unless told not to, it runs the
properties (properties.run) and prints one line per test file. The last line is the verdict. Exit codes:
0 when everything ran is green (GREEN), 1 when a row or a property failed or a table would not load
(RED), 2 for a bad command line (argparse's own), 4 when the properties could not run at all (pytest
missing, or pytest's own error), which a CI job must not read as green. Left out: a machine-readable
report (JUnit XML, JSON), and a time limit per table.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from evidencedesk.capstone import properties
from evidencedesk.capstone.course import page_of_test
from evidencedesk.capstone.tables import Played, play, tables

GREEN, RED = "GREEN", "RED"
EXIT_GREEN, EXIT_RED, EXIT_NOT_RUN = 0, 1, 4  # 2 is argparse's code for a bad command line
PYTEST_OK, PYTEST_FAILED = 0, 1  # pytest's exit codes for all passed, some failed
WIDTH = 78  # characters a printed line may take
TITLE = WIDTH - 36  # characters of a page title after the module, rows and held columns


def _line(name: str, count: int, held: int, title: str) -> str:
    """name, count and held in columns, then title cut to fit WIDTH."""
    title = title if len(title) <= TITLE else title[:TITLE - 3] + "..."
    return f"{name:<24}{count:>5}{held:>5}  {title}"


def table_line(played: Played) -> str:
    """One table as a line: module, rows, rows held and the page's title (cut to fit WIDTH).

    Example: table_line(play(tables()[0])) -> "attacks                  32   32  Safe Failure and ..."
    """
    return _line(played.table.label, played.rows, played.held, played.table.page.title)


def property_line(result: properties.FileResult) -> str:
    """One property file as a line: its name without test_, the properties run and held, and its page.

    Example: property_line(FileResult(name="test_invariants.py", passed=9, failed=0))
    """
    page = page_of_test(result.name)
    name = result.name.removeprefix("test_").removesuffix(".py")
    return _line(name, result.passed + result.failed, result.passed, page.title if page else "(no page)")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the course's tables and properties, print one line each and the verdict, return the exit code.

    argv (list of str, the command line without the program; sys.argv[1:] by default). Returns EXIT_GREEN,
    EXIT_RED or EXIT_NOT_RUN (see the module docstring); argparse exits with 2 on a bad command line.
    Example: main(["--no-properties"]) -> 0
    """
    parser = argparse.ArgumentParser(
        prog="python -m evidencedesk.capstone",
        description="Play every scenario and attack table of the course, in course order, then run its "
                    "Hypothesis properties; one line each, then the verdict. Exit 0 when all is green, 1 when "
                    "anything failed, 4 when the properties could not run.")
    parser.add_argument("--no-properties", action="store_true", help="play the tables only")
    parser.add_argument("-k", dest="select", metavar="EXPR", help="a pytest -k expression among the properties")
    args = parser.parse_args(argv)
    if args.no_properties and args.select:
        parser.error("-k selects properties: it cannot go with --no-properties")
    print(f"{'table':<24}{'rows':>5}{'held':>5}  page")
    played = [play(table) for table in tables()]
    for one in played:
        print(table_line(one))
        for problem in one.problems:
            print(f"  {problem}"[:WIDTH])
    rows, held = sum(p.rows for p in played), sum(p.held for p in played)
    red = [p for p in played if not p.green]
    summary = f"{len(played)} tables, {held} of {rows} rows held"
    if not args.no_properties:
        try:
            results, code = properties.run(select=args.select)
        except ModuleNotFoundError as error:  # pytest is a test extra
            print(f"NOT RUN: {summary}; properties need pytest ({error.name} is missing)")
            return EXIT_NOT_RUN
        print(f"{'property file':<24}{'ran':>5}{'held':>5}  page")
        for result in results:
            print(property_line(result))
            for node in result.failures:
                print(f"  failed: {node.split('::')[-1]}"[:WIDTH])
        ran, passed = sum(r.passed + r.failed for r in results), sum(r.passed for r in results)
        if code not in (PYTEST_OK, PYTEST_FAILED) or not results:
            print(f"NOT RUN: {summary}; pytest could not run the properties (exit code {code})")
            return EXIT_NOT_RUN
        summary += f"; {passed} of {ran} properties held"
        red += [r for r in results if not r.green]
    print(f"{RED if red else GREEN}: {summary}")
    return EXIT_RED if red else EXIT_GREEN


if __name__ == "__main__":
    sys.exit(main())
