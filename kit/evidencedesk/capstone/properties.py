"""The course's properties: the Hypothesis tests of kit/tests, found by reading the tests and run by pytest.

A property test here is a test that Hypothesis runs on generated examples, a function decorated with
@given; hypothesis.is_hypothesis_test() is Hypothesis's public way to tell one (Hypothesis documentation,
"Detect Hypothesis tests", read 2026-12-03), which is how the plugin below keeps them apart from the
example tests in the same files. The files searched are the test files that import hypothesis (read
with ast). run() calls pytest in this process with PropertyCollector as a plugin, which keeps only the
property tests (and, with a -k expression, pytest's own selection among them), and counts what passed
and failed, by file. pytest loads kit/tests/conftest.py with the files, and with it the kit's Hypothesis
profile (derandomize=True, deadline=None, database=None): every run tries the same examples, so a green
run repeats on any machine, and a property can only find what those examples reach. Left out: tests
that call hypothesis.find() inside an example test (they search for a counterexample the page wants
found, rather than state a property), a run with fresh examples (another profile), and pytest's
terminal report, which the command replaces with one line per file. pytest and hypothesis are imported
only when properties run: they come with the kit's test extras.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

TESTS_DIR = Path(__file__).resolve().parents[2] / "tests"  # kit/evidencedesk/capstone/ -> kit/tests/


def _imports_hypothesis(path: Path) -> bool:
    """True when the file imports hypothesis (import hypothesis..., from hypothesis... import ...)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "hypothesis" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "hypothesis" and not node.level:
            return True
    return False


def property_files(folder: Path = TESTS_DIR) -> list[Path]:
    """The test files (test_*.py) in folder (Path; kit/tests by default) that import hypothesis, by name.

    Example: [p.name for p in property_files()][:1] -> ["test_agent_attacks.py"]
    """
    return [p for p in sorted(folder.glob("test_*.py")) if _imports_hypothesis(p)]


class FileResult(BaseModel):
    """The property tests of one file: name (file name), passed and failed (ints), failures (node ids).

    Example: FileResult(name="test_invariants.py", passed=9, failed=0).green -> True
    """

    model_config = ConfigDict(frozen=True)
    name: str
    passed: int
    failed: int
    failures: tuple[str, ...] = ()

    @property
    def green(self) -> bool:
        """True when every selected property of the file passed and at least one ran."""
        return self.failed == 0 and self.passed > 0


class PropertyCollector:
    """A pytest plugin: keeps only @given tests at collection (unless only_properties is False), then counts
    outcomes by file and by test.

    Attributes after a run: outcomes (Counter of (file name, "passed" or "failed")), failures (node ids of
    failed tests, setup and teardown errors included), by_test (test function name -> True while every one of
    its runs passed), deselected (int, example tests left out).
    Example: pytest.main([...files], plugins=[collector := PropertyCollector()])
    """

    def __init__(self, only_properties: bool = True) -> None:
        self.only_properties = only_properties
        self.outcomes: Counter[tuple[str, str]] = Counter()
        self.failures: list[str] = []
        self.by_test: dict[str, bool] = {}
        self.deselected = 0

    def pytest_collection_modifyitems(self, config: Any,
                                      items: list[Any]) -> None:
        """Keep the items whose test function is a Hypothesis test."""
        if not self.only_properties:
            return
        from hypothesis import is_hypothesis_test  # a test extra of the kit

        keep = [i for i in items
                if is_hypothesis_test(getattr(i, "obj", None))]
        drop = [i for i in items if i not in keep]
        self.deselected += len(drop)
        if drop:
            config.hook.pytest_deselected(items=drop)
        items[:] = keep

    def pytest_runtest_logreport(self, report: Any) -> None:
        """Count a test's call outcome; a failed setup or teardown counts as a failure."""
        name = Path(report.nodeid.split("::")[0]).name
        test = report.nodeid.split("::")[-1].split("[")[0]
        if report.failed or report.when == "call":
            self.by_test[test] = self.by_test.get(test, True) and not report.failed
        if report.failed:
            self.outcomes[(name, "failed")] += 1
            self.failures.append(report.nodeid)
        elif report.when == "call" and report.passed:
            self.outcomes[(name, "passed")] += 1


def run(files: list[Path] | None = None, select: str | None = None) -> tuple[list[FileResult], int]:
    """Run the property tests of files (default property_files()) with pytest, quietly, in this process.

    select (str or None): a pytest -k expression among the property tests ("not agent_attacks").
    Returns (one FileResult per file with at least one selected property, in file order; pytest's exit code:
    0 all passed, 1 some failed, 5 nothing selected, anything else an error of the run itself).
    Raises ModuleNotFoundError when pytest is not installed (it comes with the kit's test extras).
    Example: results, code = run(select="invariants")
    """
    import pytest  # the kit's test extras, not its runtime dependencies

    files = property_files() if files is None else files
    collector = PropertyCollector()
    args = [*(str(p) for p in files), "-o", "addopts=", "-p", "no:terminal", "-p", "no:cacheprovider"]
    if select:
        args += ["-k", select]
    code = int(pytest.main(args, plugins=[collector]))
    results = []
    for path in files:
        passed, failed = collector.outcomes[(path.name, "passed")], collector.outcomes[(path.name, "failed")]
        if passed or failed:
            mine = tuple(n for n in collector.failures if Path(n.split("::")[0]).name == path.name)
            results.append(FileResult(name=path.name, passed=passed, failed=failed, failures=mine))
    return results, code
