"""A page builds only on earlier pages: Beginner code never uses Advanced code, nor an Advanced page a later one's.

The Beginner course (kit/evidencedesk/*.py, one package level) comes before the Advanced one, whose
pages add subpackages in course order (ADVANCED: calling/ and resilience/ in chapter 1, retrieval/ and
compaction/ in chapter 2, agent/ and planning/ in chapter 3, then evals/, judging/ and trajectories/ in
chapter 4, then sinks/, privacy/ and redteam/ in chapter 5, then supplychain/ and tenancy/ in chapter 6,
then tracing/, routing/, quotas/ and releases/ in chapter 7, then outbox/, threats/ and capstone/ in chapter 8).
So no Beginner module imports an Advanced subpackage, directly, by a relative import or by name
through importlib, and neither do the Beginner test files the Beginner pages count; and no Advanced
subpackage, nor its test files, imports a subpackage that comes after it. Read from the source (ast),
and checked at run time too: importing every Beginner module, or playing every row of the Beginner
attack table, loads no Advanced module, and importing a subpackage loads none that comes after it.
Left out: the pages themselves, which are not in the kit download.
"""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from pathlib import Path

import pytest

KIT = Path(__file__).resolve().parents[1]  # kit/tests/ -> kit/
PACKAGE = KIT / "evidencedesk"
AGENT = "evidencedesk.agent"
# the Advanced course's subpackages, in course order: each may import the ones before it, never one after
ADVANCED = ("evidencedesk.calling", "evidencedesk.resilience", "evidencedesk.retrieval", "evidencedesk.compaction",
            AGENT, "evidencedesk.planning", "evidencedesk.evals", "evidencedesk.judging",
            "evidencedesk.trajectories", "evidencedesk.sinks", "evidencedesk.privacy", "evidencedesk.redteam",
            "evidencedesk.supplychain", "evidencedesk.tenancy", "evidencedesk.tracing", "evidencedesk.routing",
            "evidencedesk.quotas", "evidencedesk.releases", "evidencedesk.outbox", "evidencedesk.threats",
            "evidencedesk.capstone")
# the Beginner course's modules, in course order (see evidencedesk/__init__.py)
BEGINNER_MODULES = ("llm", "providers", "usage", "budget", "cache", "limits", "retry", "tools", "helpdesk", "gate",
                    "context", "security", "failsafe", "attacks", "strictjson")
ADVANCED_TEST_PREFIXES = tuple(f"test_{name.rsplit('.', 1)[1]}_" for name in ADVANCED)  # test_resilience_, ...
# kit/tests files that are not Advanced tests: the Beginner modules' tests, the properties and their helpers
BEGINNER_TESTS = sorted(p for p in (KIT / "tests").glob("*.py")
                        if not p.name.startswith(ADVANCED_TEST_PREFIXES) and p.name != Path(__file__).name)


def agent_imports(path: Path, package: str = AGENT, root: Path = PACKAGE) -> list[str]:
    """The imports of an Advanced subpackage (package, str; the agent by default) in one source file, as
    "line N: text" (an empty list means none). root (Path): the folder of the evidencedesk package, against
    which a relative import is resolved (kit/evidencedesk/ unless a test says otherwise).

    Counts `import evidencedesk.agent...`, `from evidencedesk.agent... import`, `from evidencedesk import agent`,
    a relative import inside the package (`from .agent import`, `from . import agent`, `from ..agent import`
    in a subpackage), an import of one of its test files (test_agent_*), and any string constant naming the
    subpackage (as importlib.import_module takes it).
    Example: agent_imports(PACKAGE / "llm.py") -> []; agent_imports(path, "evidencedesk.resilience")
    """
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source, filename=str(path))
    home = ["evidencedesk", *path.parent.relative_to(root).parts] if path.is_relative_to(root) else None
    tests_prefix = f"test_{package.rsplit('.', 1)[1]}_"
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level and home is not None:  # level 1 is the file's own package, 2 its parent, ...
                base = ".".join(home[:len(home) - node.level + 1] + ([base] if base else []))
            names = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names = [node.value]
        if any(n == package or n.startswith(package + ".") or n.startswith(tests_prefix) for n in names):
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
    found = {f"evidencedesk.{p.name}" for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert found == set(ADVANCED), "a new subpackage of evidencedesk/ is an Advanced page's: list it in ADVANCED"


LATER = [(earlier, later) for n, earlier in enumerate(ADVANCED) for later in ADVANCED[n + 1:]]


@pytest.mark.parametrize("earlier, later", LATER)
def test_no_advanced_subpackage_imports_a_later_one(earlier: str, later: str) -> None:
    name = earlier.rsplit(".", 1)[1]
    files = sorted((PACKAGE / name).glob("*.py")) + sorted((KIT / "tests").glob(f"test_{name}_*.py"))
    assert files and [f"{p.name}: {hit}" for p in files for hit in agent_imports(p, later)] == []


def loaded_agent_modules(code: str, packages: tuple[str, ...] = (AGENT,)) -> list[str]:
    """Run code (str) in a fresh interpreter and return the modules of packages (the agent by default) it left
    in sys.modules, sorted."""
    probe = (f"{code}\nimport sys\nprint(*sorted(m for m in sys.modules"
             f" if any(m == p or m.startswith(p + '.') for p in {packages!r})))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120)
    return done.stdout.split()


def test_importing_the_beginner_modules_loads_no_advanced_module() -> None:
    imports = "\n".join(f"import evidencedesk.{module}" for module in BEGINNER_MODULES)
    assert loaded_agent_modules(imports, ADVANCED) == []


def test_playing_the_beginner_attack_table_loads_no_advanced_module() -> None:
    play = ("from evidencedesk.attacks import check_attack, load_attacks\n"
            "assert all(check_attack(row) == [] for row in load_attacks())")
    assert loaded_agent_modules(play, ADVANCED) == []


@functools.cache
def loaded_by_importing(earlier: str) -> tuple[str, ...]:
    """The Advanced modules that importing every module of the subpackage earlier loads, in one fresh interpreter.

    Run once per subpackage (not once per pair): the import is the same whichever later subpackage a test asks about.
    """
    modules = sorted(p.stem for p in (PACKAGE / earlier.rsplit(".", 1)[1]).glob("*.py") if p.stem != "__init__")
    imports = "\n".join(f"import {earlier}.{module}" for module in modules)
    return tuple(loaded_agent_modules(imports, ADVANCED))


@pytest.mark.parametrize("earlier, later", LATER)
def test_importing_a_subpackage_loads_no_later_one(earlier: str, later: str) -> None:
    assert [m for m in loaded_by_importing(earlier) if m == later or m.startswith(later + ".")] == []


def test_the_check_finds_each_form_of_agent_import(tmp_path: Path) -> None:
    source = tmp_path / "sample.py"
    source.write_text('import evidencedesk.agent.loop\nfrom evidencedesk.agent.memory import SessionMemory\n'
                      'from evidencedesk import agent\nimport importlib\nimportlib.import_module("evidencedesk.agent")\n'
                      'from test_agent_attacks import replies\nimport evidencedesk.agents_of_change\n', encoding="utf-8")
    assert [line.split(":")[0] for line in agent_imports(source)] == ["line 1", "line 2", "line 3", "line 5", "line 6"]


def test_the_check_resolves_relative_imports_in_a_subpackage(tmp_path: Path) -> None:
    inside = tmp_path / "evidencedesk" / "resilience"
    inside.mkdir(parents=True)
    source = inside / "sample.py"
    source.write_text("from ..agent import loop\nfrom .. import agent\nfrom . import breaker\n"
                      "from .agent import x\n", encoding="utf-8")
    found = agent_imports(source, AGENT, root=tmp_path / "evidencedesk")
    assert [line.split(":")[0] for line in found] == ["line 1", "line 2"]
    assert [line.split(":")[0] for line in agent_imports(source, "evidencedesk.resilience",
                                                         root=tmp_path / "evidencedesk")] == ["line 3", "line 4"]


def test_playing_the_calling_scenario_table_loads_no_later_subpackage() -> None:
    play = ("from evidencedesk.calling.scenarios import check_scenario, load_scenarios"
            "\nassert all(check_scenario(row) == [] for row in load_scenarios())")
    assert loaded_agent_modules(play, ADVANCED[ADVANCED.index("evidencedesk.calling") + 1:]) == []


def test_playing_the_retrieval_scenario_table_loads_no_later_subpackage() -> None:
    play = ("from evidencedesk.retrieval.scenarios import check_row, load_rows"
            "\nassert all(check_row(row) == [] for row in load_rows())")
    assert loaded_agent_modules(play, ADVANCED[ADVANCED.index("evidencedesk.retrieval") + 1:]) == []


def test_playing_the_compaction_table_loads_no_later_subpackage() -> None:
    play = ("from evidencedesk.compaction.scenarios import check_row, load_rows"
            "\nassert all(check_row(row) == [] for row in load_rows())")
    assert loaded_agent_modules(play, ADVANCED[ADVANCED.index("evidencedesk.compaction") + 1:]) == []


def test_the_check_finds_a_subpackage_by_name_too(tmp_path: Path) -> None:
    source = tmp_path / "sample.py"
    source.write_text('from evidencedesk.calling.rounds import run_rounds\nimport evidencedesk.callings\n'
                      'from test_calling_rounds import lab\n', encoding="utf-8")
    assert [line.split(":")[0] for line in agent_imports(source, "evidencedesk.calling")] == ["line 1", "line 3"]
    assert agent_imports(source) == []


# The agent subpackage holds two pages: Agent Loops, State, and Memory first, then Human Approval and
# Multi-Agent Boundaries, whose modules build on the first page's and never the other way round.
AGENT_PAGE = ("state", "loop", "memory", "fakes", "scenarios", "attacks")
APPROVAL_PAGE = ("approval", "checkpoint", "interrupt", "delegation", "boundaries", "cli", "identity", "locks",
                 "sendlog", "decisionlog", "proposals", "poisoning")


def test_every_agent_module_belongs_to_one_of_its_two_pages() -> None:
    modules = {p.stem for p in (PACKAGE / "agent").glob("*.py")} - {"__init__"}
    assert modules == set(AGENT_PAGE) | set(APPROVAL_PAGE) and not set(AGENT_PAGE) & set(APPROVAL_PAGE)


@pytest.mark.parametrize("module", AGENT_PAGE)
def test_no_agent_page_module_or_test_file_imports_an_approval_page_module(module: str) -> None:
    files = [p for p in (PACKAGE / "agent" / f"{module}.py", KIT / "tests" / f"test_agent_{module}.py") if p.is_file()]
    hits = [f"{p.name}: {hit}" for p in files for later in APPROVAL_PAGE
            for hit in agent_imports(p, f"{AGENT}.{later}")]
    assert hits == []


def test_importing_the_agent_pages_modules_loads_no_approval_page_module() -> None:
    imports = "\n".join(f"import {AGENT}.{module}" for module in AGENT_PAGE)
    assert loaded_agent_modules(imports, tuple(f"{AGENT}.{later}" for later in APPROVAL_PAGE)) == []
