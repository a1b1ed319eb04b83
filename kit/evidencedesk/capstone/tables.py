"""Every scenario and attack table of the course, found in the kit and played in course order.

A table module is a module of the kit that defines a loader and a checker at its top level: one of
LOADERS (load_rows, load_scenarios, load_attacks) and one of CHECKERS (check_row, check_scenario,
check_attack), where the checker returns the list of ways a row does not hold ([] when it holds). The
modules are found by reading the source (ast), not by a list: the Beginner modules first, then each
Advanced subpackage present in the kit, in the order of course.PAGES, so a page's subpackage joins the
run as soon as it is in the kit. A subpackage that no page of PAGES names stops the run (CourseError),
because its place in the course is unknown. play() loads a table and checks each row; a table that
cannot be loaded, or a row whose check raises, counts as not held, with the error as its problem.
Left out: running the rows in parallel, and tables whose rows need arguments beyond the row itself.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from evidencedesk.capstone.course import ADVANCED_PACKAGES, BEGINNER_MODULES, PAGES, CourseError, Page, page_of

PACKAGE_DIR = Path(__file__).resolve().parents[1]  # kit/evidencedesk/capstone/ -> kit/evidencedesk/
LOADERS = ("load_rows", "load_scenarios", "load_attacks")
CHECKERS = ("check_row", "check_scenario", "check_attack")


class Table(BaseModel):
    """A table module: module (dotted name, e.g. "evidencedesk.tenancy.scenarios") and the page that added it.

    Example: Table(module="evidencedesk.attacks", page=page_of("", "attacks")).label -> "attacks"
    """

    model_config = ConfigDict(frozen=True)
    module: str
    page: Page

    @property
    def label(self) -> str:
        """The module's name without "evidencedesk.": "attacks", "tenancy.scenarios"."""
        return self.module.removeprefix("evidencedesk.")


class Played(BaseModel):
    """One table played: the table, rows (int, how many it holds), held (int, rows whose check is []) and
    problems (the first few problems, each "row id: problem"; a load error as "load: ...").

    Example: play(tables()[0]).green -> True
    """

    model_config = ConfigDict(frozen=True)
    table: Table
    rows: int
    held: int
    problems: tuple[str, ...] = ()

    @property
    def green(self) -> bool:
        """True when the table loaded, has rows, and every row held."""
        return self.rows > 0 and self.held == self.rows and not self.problems


def _defines_a_table(path: Path) -> bool:
    """True when the file exists and defines one of LOADERS and one of CHECKERS at its top level."""
    if not path.is_file():
        return False
    names = {node.name for node in ast.parse(path.read_text(encoding="utf-8"), filename=str(path)).body
             if isinstance(node, ast.FunctionDef)}
    return bool(names & set(LOADERS)) and bool(names & set(CHECKERS))


def tables(root: Path = PACKAGE_DIR) -> list[Table]:
    """The table modules under root (Path: the evidencedesk package folder,
    the kit's by default), in course order: the Beginner modules, then each
    subpackage present in the order of course.PAGES, a page's own modules in
    the page's order.

    Raises CourseError naming a subpackage that no page of PAGES adds, or a
    table module that belongs to no page.
    Example: tables()[0].module -> "evidencedesk.attacks"
    """
    present = sorted(p.name for p in root.iterdir()
                     if (p / "__init__.py").is_file())
    if unknown := [n for n in present if n not in ADVANCED_PACKAGES]:
        raise CourseError(f"kit subpackage {unknown[0]!r} belongs to no page "
                          "of capstone.course.PAGES: add its page")
    found = [Table(module=f"evidencedesk.{m}", page=page_of("", m))
             for m in BEGINNER_MODULES if _defines_a_table(root / f"{m}.py")]
    for package in (n for n in ADVANCED_PACKAGES if n in present):
        files = sorted(p for p in (root / package).glob("*.py")
                       if p.stem != "__init__" and _defines_a_table(p))
        mine = [Table(module=f"evidencedesk.{package}.{p.stem}",
                      page=page_of(package, p.stem)) for p in files]
        found += sorted(mine, key=_course_place)  # stable sort
    return found


def _course_place(table: Table) -> tuple[int, int]:
    """Where a table sits in the course: its page's place in PAGES, then its module's place in the page."""
    module = table.module.rpartition(".")[2]
    modules = table.page.modules
    return PAGES.index(table.page), modules.index(module) if module in modules else 0


def adapter(module: Any) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The loader and checker of an imported table module: the first name of
    LOADERS and the first of CHECKERS that it defines.

    Raises CourseError naming the module when it has no loader or no checker.
    Example: load, check = adapter(import_module("evidencedesk.attacks"))
    """
    def first(names: tuple[str, ...]) -> Any:
        found = (getattr(module, n, None) for n in names)
        return next((f for f in found if callable(f)), None)

    load, check = first(LOADERS), first(CHECKERS)
    if load is None or check is None:
        raise CourseError(f"{module.__name__} has no loader "
                          f"({', '.join(LOADERS)}) or no checker "
                          f"({', '.join(CHECKERS)})")
    return load, check


def _row_id(row: Any, number: int) -> str:
    """A row's id (a dict's "id", a model's .id), else its 1-based number in the table."""
    value = row.get("id") if isinstance(row, dict) else getattr(row, "id", None)
    return str(value) if value is not None else f"row {number}"


MAX_PROBLEMS = 3  # problems kept per table: enough to start on, short enough to print


def play(table: Table) -> Played:
    """Import the table's module, load its rows and check each one on fresh objects (the checker's own).

    Never raises for a broken table: an import or load error is a Played with 0 rows and the error as its
    problem; a row whose check raises is not held, with the exception as its problem.
    Example: play(tables()[0]).held == play(tables()[0]).rows
    """
    try:
        load, check = adapter(importlib.import_module(table.module))
        rows = list(load())
    except Exception as error:  # noqa: BLE001 - a broken table is reported, not raised
        return Played(table=table, rows=0, held=0, problems=(f"load: {type(error).__name__}: {error}",))
    held, problems = 0, []
    for number, row in enumerate(rows, start=1):
        try:
            found = check(row)
        except Exception as error:  # noqa: BLE001
            found = [f"{type(error).__name__}: {error}"]
        held += not found
        problems += [f"{_row_id(row, number)}: {problem}" for problem in found]
    return Played(table=table, rows=len(rows), held=held, problems=tuple(problems[:MAX_PROBLEMS]))
