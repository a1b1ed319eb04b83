"""A page builds only on earlier pages: the Beginner course never uses an Advanced subpackage, and an
Advanced subpackage never uses a later one.

The Beginner course (kit/evidencedesk/*.py, one package level) comes before the Advanced one, whose
subpackages follow its pages: ADVANCED, in course order (calling/, then agent/). So no Beginner module
imports an Advanced subpackage, directly, by a relative import or by name through importlib, and neither
do the Beginner test files the Beginner pages count; and no module or test file of an Advanced subpackage
imports a later one. Read from the source (ast), and checked at run time too: importing every Beginner
module, or playing every row of the Beginner attack table, loads no Advanced module, and importing every
module of calling/ loads no agent module. Left out: the pages themselves, which are not in the kit download.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

KIT = Path(__file__).resolve().parents[1]  # kit/tests/ -> kit/
PACKAGE = KIT / "evidencedesk"
AGENT = "evidencedesk.agent"
# the Advanced course's subpackages, in course order: each page's subpackage may use the ones before it only
ADVANCED = ("calling", "agent")
# the Beginner course's modules, in course order (see evidencedesk/__init__.py)
BEGINNER_MODULES = ("llm", "providers", "usage", "budget", "cache", "limits", "retry", "tools", "helpdesk", "gate",
                    "context", "security", "failsafe", "attacks", "strictjson")
# kit/tests files that are not Advanced tests: the Beginner modules' tests, the properties and their helpers
BEGINNER_TESTS = sorted(p for p in (KIT / "tests").glob("*.py")
                        if not p.name.startswith(tuple(f"test_{sub}_" for sub in ADVANCED))
                        and p.name != Path(__file__).name)


def agent_imports(path: Path, package: str = "agent") -> list[str]:
    """The imports of an Advanced subpackage (default the agent) in one source file, as "line N: text" (an empty
    list means none).

    Counts `import evidencedesk.<package>...`, `from evidencedesk.<package>... import`, `from evidencedesk import
    <package>`, a relative `from .<package> import` or `from . import <package>` inside the package, an import
    of one of its test files (test_<package>_*), and any string constant naming it (as importlib takes it).
    Example: agent_imports(PACKAGE / "llm.py") -> []; agent_imports(PACKAGE / "llm.py", "calling") -> []
    """
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source, filename=str(path))
    in_package = path.parent == PACKAGE
    target = f"evidencedesk.{package}"
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level and in_package:
                base = "evidencedesk" + ("." + base if base else "")
            names = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names = [node.value]
        if any(n == target or n.startswith(target + ".") or n.startswith(f"test_{package}_") for n in names):
            found.append((node.lineno, f"line {node.lineno}: {ast.get_source_segment(source, node)}"))
    return [text for _, text in sorted(found)]


def test_every_top_level_module_is_a_beginner_module() -> None:
    modules = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__"}
    assert modules == set(BEGINNER_MODULES), "a new module of evidencedesk/ belongs to the Beginner course: list it"


@pytest.mark.parametrize("package", ADVANCED)
@pytest.mark.parametrize("module", BEGINNER_MODULES)
def test_no_beginner_module_imports_an_advanced_subpackage(module: str, package: str) -> None:
    assert agent_imports(PACKAGE / f"{module}.py", package) == []


@pytest.mark.parametrize("package", ADVANCED)
@pytest.mark.parametrize("path", BEGINNER_TESTS, ids=[p.name for p in BEGINNER_TESTS])
def test_no_beginner_test_file_imports_an_advanced_subpackage(path: Path, package: str) -> None:
    assert agent_imports(path, package) == []


def test_every_advanced_subpackage_is_listed_in_course_order() -> None:
    found = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert found == set(ADVANCED), "a new subpackage of evidencedesk/ is an Advanced page's: list it in ADVANCED"


EARLIER_AND_LATER = [(ADVANCED[i], later) for i in range(len(ADVANCED)) for later in ADVANCED[i + 1:]]


@pytest.mark.parametrize(("package", "later"), EARLIER_AND_LATER)
def test_no_advanced_subpackage_imports_a_later_one(package: str, later: str) -> None:
    files = sorted((PACKAGE / package).glob("*.py")) + sorted((KIT / "tests").glob(f"test_{package}_*.py"))
    assert files and [f"{p.name}: {line}" for p in files for line in agent_imports(p, later)] == []


def loaded_agent_modules(code: str, packages: tuple[str, ...] = ADVANCED) -> list[str]:
    """Run code (str) in a fresh interpreter and return the modules of packages (Advanced subpackage names,
    default all) it left in sys.modules, sorted."""
    names = tuple(f"evidencedesk.{p}" for p in packages)
    probe = (f"{code}\nimport sys\nprint(*sorted(m for m in sys.modules if m in {names!r} "
             f"or m.startswith(tuple(n + '.' for n in {names!r}))))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120)
    return done.stdout.split()


def test_importing_the_beginner_modules_loads_no_advanced_module() -> None:
    imports = "\n".join(f"import evidencedesk.{module}" for module in BEGINNER_MODULES)
    assert loaded_agent_modules(imports) == []


def test_playing_the_beginner_attack_table_loads_no_advanced_module() -> None:
    play = ("from evidencedesk.attacks import check_attack, load_attacks\n"
            "assert all(check_attack(row) == [] for row in load_attacks())")
    assert loaded_agent_modules(play) == []


def test_importing_and_playing_the_calling_subpackage_loads_no_agent_module() -> None:
    modules = sorted(p.stem for p in (PACKAGE / "calling").glob("*.py") if p.stem != "__init__")
    play = "\n".join(f"import evidencedesk.calling.{m}" for m in modules) + (
        "\nfrom evidencedesk.calling.scenarios import check_scenario, load_scenarios"
        "\nassert all(check_scenario(row) == [] for row in load_scenarios())")
    assert loaded_agent_modules(play, ADVANCED[ADVANCED.index("calling") + 1:]) == []


def test_the_check_finds_each_form_of_agent_import(tmp_path: Path) -> None:
    source = tmp_path / "sample.py"
    source.write_text('import evidencedesk.agent.loop\nfrom evidencedesk.agent.memory import SessionMemory\n'
                      'from evidencedesk import agent\nimport importlib\nimportlib.import_module("evidencedesk.agent")\n'
                      'from test_agent_attacks import replies\nimport evidencedesk.agents_of_change\n', encoding="utf-8")
    assert [line.split(":")[0] for line in agent_imports(source)] == ["line 1", "line 2", "line 3", "line 5", "line 6"]


def test_the_check_finds_the_calling_subpackage_by_name_too(tmp_path: Path) -> None:
    source = tmp_path / "sample.py"
    source.write_text('from evidencedesk.calling.rounds import run_rounds\nimport evidencedesk.callings\n'
                      'from test_calling_rounds import lab\n', encoding="utf-8")
    assert [line.split(":")[0] for line in agent_imports(source, "calling")] == ["line 1", "line 3"]
    assert agent_imports(source) == []
