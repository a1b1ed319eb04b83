"""A page builds only on earlier pages: the Beginner course's modules and tests never use the agent.

The Beginner course (kit/evidencedesk/*.py, one package level) comes before the Advanced one
(kit/evidencedesk/agent/). So no Beginner module imports evidencedesk.agent, directly, by a relative
import or by name through importlib, and neither do the Beginner test files the Beginner pages count.
Read from the source (ast), and checked at run time too: importing every Beginner module, or playing
every row of the Beginner attack table, loads no agent module. Left out: the pages themselves, which
are not in the kit download.
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
# the Beginner course's modules, in course order (see evidencedesk/__init__.py)
BEGINNER_MODULES = ("llm", "providers", "usage", "budget", "cache", "limits", "retry", "tools", "helpdesk", "gate",
                    "context", "security", "failsafe", "attacks", "strictjson")
# kit/tests files that are not agent tests: the Beginner modules' tests, the properties and their helpers
BEGINNER_TESTS = sorted(p for p in (KIT / "tests").glob("*.py")
                        if not p.name.startswith("test_agent_") and p.name != Path(__file__).name)


def agent_imports(path: Path) -> list[str]:
    """The imports of the agent in one source file, as "line N: text" (an empty list means none).

    Counts `import evidencedesk.agent...`, `from evidencedesk.agent... import`, `from evidencedesk import agent`,
    a relative `from .agent import` or `from . import agent` inside the package, an import of an agent test file
    (test_agent_*), and any string constant naming the agent package (as importlib.import_module takes it).
    Example: agent_imports(PACKAGE / "llm.py") -> []
    """
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source, filename=str(path))
    in_package = path.parent == PACKAGE
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
        if any(n == AGENT or n.startswith(AGENT + ".") or n.startswith("test_agent_") for n in names):
            found.append((node.lineno, f"line {node.lineno}: {ast.get_source_segment(source, node)}"))
    return [text for _, text in sorted(found)]


def test_every_top_level_module_is_a_beginner_module() -> None:
    modules = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__"}
    assert modules == set(BEGINNER_MODULES), "a new module of evidencedesk/ belongs to the Beginner course: list it"


@pytest.mark.parametrize("module", BEGINNER_MODULES)
def test_no_beginner_module_imports_the_agent(module: str) -> None:
    assert agent_imports(PACKAGE / f"{module}.py") == []


@pytest.mark.parametrize("path", BEGINNER_TESTS, ids=[p.name for p in BEGINNER_TESTS])
def test_no_beginner_test_file_imports_the_agent(path: Path) -> None:
    assert agent_imports(path) == []


def loaded_agent_modules(code: str) -> list[str]:
    """Run code (str) in a fresh interpreter and return the agent modules it left in sys.modules, sorted."""
    probe = f"{code}\nimport sys\nprint(*sorted(m for m in sys.modules if m == {AGENT!r} or m.startswith({AGENT!r} + '.')))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120)
    return done.stdout.split()


def test_importing_the_beginner_modules_loads_no_agent_module() -> None:
    imports = "\n".join(f"import evidencedesk.{module}" for module in BEGINNER_MODULES)
    assert loaded_agent_modules(imports) == []


def test_playing_the_beginner_attack_table_loads_no_agent_module() -> None:
    play = ("from evidencedesk.attacks import check_attack, load_attacks\n"
            "assert all(check_attack(row) == [] for row in load_attacks())")
    assert loaded_agent_modules(play) == []


def test_the_check_finds_each_form_of_agent_import(tmp_path: Path) -> None:
    source = tmp_path / "sample.py"
    source.write_text('import evidencedesk.agent.loop\nfrom evidencedesk.agent.memory import SessionMemory\n'
                      'from evidencedesk import agent\nimport importlib\nimportlib.import_module("evidencedesk.agent")\n'
                      'from test_agent_attacks import replies\nimport evidencedesk.agents_of_change\n', encoding="utf-8")
    assert [line.split(":")[0] for line in agent_imports(source)] == ["line 1", "line 2", "line 3", "line 5", "line 6"]
