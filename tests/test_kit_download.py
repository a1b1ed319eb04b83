"""The kit download: what the archive holds, and the kit's own tests in a fresh install of it.

Every kit test file runs once in `make test`, in the download installed as its README says
(tests/learner.py, conftest.installed): a file that a page's test count runs, in that page's notebook
(test_kit_replay.py, which compares the count line with the page's); every other file here, in one
`python -m pytest` run, after which one test per file checks its results and shows what failed. In the
repo, `python -m pytest kit/tests` runs them all directly.
"""

from __future__ import annotations

import io
import re
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

import pytest
from packaging.utils import canonicalize_name

from sitebuild.course.coursenav import CoursePage, course_pages, page_url
from sitebuild.publish import notebooks
from sitebuild.publish.gen_downloads import FOLDER, kit_download, kit_pyproject, kit_readme, teaching_pages, toml_text
from sitebuild.publish.kit_pins import PinError, closure, read_lock
from tests.conftest import once_per_run
from tests.learner import CONFIG, COUNT_BLOCK, COUNT_START, COUNTED_FILES, PAGES_WITH_BLOCKS, ROOT, needed, run


@pytest.fixture(scope="module")
def archive() -> zipfile.ZipFile:
    data = kit_download(ROOT, CONFIG["nav"], ROOT / "docs", "")
    return zipfile.ZipFile(io.BytesIO(data))


def read(archive: zipfile.ZipFile, name: str) -> str:
    return archive.read(f"{FOLDER}/{name}").decode("utf-8")


# What the archive holds -------------------------------------------------------------------------------


def test_the_archive_holds_the_kit_with_its_own_readme_licence_and_project(archive):
    names = set(archive.namelist())
    for name in ("README.md", "LICENSE", "pyproject.toml", "requirements.txt", "requirements-notebooks.txt",
                 "kit/evidencedesk/__init__.py", "kit/data/prices.json"):
        assert f"{FOLDER}/{name}" in names, name
    assert all(name.startswith(f"{FOLDER}/") for name in names)
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    assert "MIT License" in read(archive, "LICENSE")


def test_the_kit_project_has_the_package_its_test_extra_and_no_site_tools(archive):
    kit = tomllib.loads(read(archive, "pyproject.toml"))
    repo = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "entry-points" in repo["project"]  # the site's MkDocs plugin: not the kit's
    assert {k: v for k, v in kit["project"].items() if k != "readme"} == {
        k: v for k, v in repo["project"].items() if k != "entry-points"}
    assert kit["project"]["readme"] == "README.md"
    assert kit["project"]["license"] == {"text": "MIT"}  # the LICENSE file's licence
    assert "dependency-groups" not in kit
    assert kit["tool"]["setuptools"] == {"package-dir": {"": "kit"},
                                         "packages": {"find": {"where": ["kit"], "include": ["evidencedesk*"]}}}
    assert "sitebuild" not in read(archive, "pyproject.toml")  # the site's machinery is not the kit's
    assert kit["tool"]["pytest"]["ini_options"]["testpaths"] == ["kit/tests"]
    site_tools = ("mkdocs", "markdown-exec", "playwright")
    assert not [d for d in str(kit).split("'") if d.startswith(site_tools)], kit


def test_the_readme_names_every_module_with_its_tests_and_the_pages_that_teach_it(archive):
    readme = read(archive, "README.md")
    assert 'pip install -r requirements.txt -e ".[test]"' in readme and ".venv/bin/python -m pytest kit/tests" in readme
    rows = {line.split("|")[1].strip(" `"): line for line in readme.splitlines() if line.startswith("| `kit/")}
    modules = sorted(
        p.relative_to(ROOT).as_posix() for p in (ROOT / "kit" / "evidencedesk").rglob("*.py") if p.name != "__init__.py"
    )
    assert sorted(rows) == modules
    assert "`kit/tests/test_usage.py`" in rows["kit/evidencedesk/usage.py"]
    assert "`kit/tests/test_agent_state.py`" in rows["kit/evidencedesk/agent/state.py"]
    for page in course_pages(CONFIG["nav"]):  # every course page that prints a module's code is linked from its row
        source = (ROOT / "docs" / page.src_uri).read_text(encoding="utf-8")
        for module in set(re.findall(r"kit/evidencedesk/([\w/]+\.py)", source)):
            assert f"*{page.title}* (`{page_url(page.src_uri)}`)" in rows[f"kit/evidencedesk/{module}"], (page, module)


def pinned(archive: zipfile.ZipFile, name: str) -> dict[str, str]:
    """{canonical name: version} of a requirements file of the download, its `-r` files followed."""
    found = {}
    for line in read(archive, name).splitlines():
        if line.startswith("-r "):
            found.update(pinned(archive, line[3:].strip()))
        elif line and not line.startswith("#"):
            name_, version = line.split("==")  # every other line pins one exact version
            found[canonicalize_name(name_)] = version
    return found


def test_the_downloads_pins_are_the_locks_versions_of_everything_the_kit_its_tests_and_a_kernel_import(archive):
    lock = read_lock((ROOT / "requirements.lock").read_text(encoding="utf-8"))
    kit = tomllib.loads(read(archive, "pyproject.toml"))["project"]
    pins, kernel = pinned(archive, "requirements.txt"), pinned(archive, "requirements-notebooks.txt")
    assert {name: lock.get(name) for name in kernel} == kernel  # every pin is the lock's exact version
    # what the kit and its tests need here (markers evaluated on this machine), dependencies included
    needs = {canonicalize_name(n) for n in needed(kit["dependencies"] + kit["optional-dependencies"]["test"])}
    assert needs <= set(pins), f"not pinned: {sorted(needs - set(pins))}"
    assert {"pydantic", "pydantic-core", "pytest", "hypothesis", "nh3", "mcp"} <= set(pins)
    assert {canonicalize_name(n) for n in needed(["ipykernel"])} <= set(kernel) and set(pins) <= set(kernel)
    assert not {"mkdocs", "mkdocs-material", "playwright", "nbclient"} & set(kernel)  # the site's tools stay out


def test_a_kit_dependency_the_lock_lacks_or_another_installed_version_stops_the_build():
    with pytest.raises(PinError, match="requirements.lock pins no version of pydantic"):
        closure(["pydantic"], {"packaging": "26.4"})
    with pytest.raises(PinError, match=r"pydantic is installed at \S+, requirements.lock pins 0.0.1; run make"):
        closure(["pydantic"], {"pydantic": "0.0.1"})
    with pytest.raises(PinError, match="requirements.lock, line 2: expected name==version"):
        read_lock("a==1\nb>=2\n")


def test_with_a_site_url_the_readme_links_each_page():
    pages = course_pages(CONFIG["nav"])
    sources = {p.src_uri: (ROOT / "docs" / p.src_uri).read_text(encoding="utf-8") for p in pages}
    readme = kit_readme(ROOT, pages, sources, "https://course.example.org/")
    row = next(line for line in readme.splitlines() if line.startswith("| `kit/evidencedesk/agent/loop.py`"))
    assert "[Agent Loops, State, and Memory](https://course.example.org/advanced/agent-loops-state-memory/)" in row


def test_a_page_that_imports_a_module_or_runs_its_package_teaches_it():
    page = CoursePage(title="P", src_uri="p.md", course="Advanced", chapter="C", number=1, count=1)
    taught = {
        "agent/state.py": "from evidencedesk.agent.state import load\n",
        "capstone/__main__.py": "python -m evidencedesk.capstone -k x\n",
        "capstone/checklist.py": "`evidencedesk.capstone.checklist`.\n",
    }
    for module, source in taught.items():
        assert teaching_pages(module, [page], {"p.md": source}) == [page], module
    untaught = {
        "capstone/check.py": "from evidencedesk.capstone.checklist import items\n",  # a longer name
        "capstone/__main__.py": "python -m evidencedesk.capstone.checklist\n",  # another module run
        "agent/state.py": "from myevidencedesk.agent.state import load\n",
    }
    for module, source in untaught.items():
        assert teaching_pages(module, [page], {"p.md": source}) == [], module


def test_the_kit_readme_links_the_capstone_command_to_its_page():
    pages = course_pages(CONFIG["nav"])
    sources = {p.src_uri: (ROOT / "docs" / p.src_uri).read_text(encoding="utf-8") for p in pages}
    row = next(line for line in kit_readme(ROOT, pages, sources, "").splitlines()
               if line.startswith("| `kit/evidencedesk/capstone/__main__.py`"))
    assert "*Capstone: Shipping EvidenceDesk*" in row and "not on the site yet" not in row


def test_toml_text_writes_nested_tables_that_read_back_the_same():
    data = {"project": {"name": "kit", "license": {"text": "MIT"}, "n": 3, "on": True, "extras": {"test": ["a>=1"]}}}
    assert tomllib.loads(toml_text(data)) == data
    assert tomllib.loads(toml_text({"tool.setuptools": {"package-dir": {"": "kit"}}})) == {
        "tool": {"setuptools": {"package-dir": {"": "kit"}}}
    }


def test_kit_pyproject_drops_the_site_test_paths_and_markers():
    repo = '[build-system]\nrequires = ["setuptools"]\n[project]\nname = "k"\n[tool.setuptools]\npackages = ["k"]\n'
    repo += '[tool.pytest.ini_options]\ntestpaths = ["kit/tests", "tests"]\nmarkers = ["site: x"]\n'
    kit = tomllib.loads(kit_pyproject(repo))
    assert kit["tool"]["pytest"]["ini_options"] == {"testpaths": ["kit/tests"]}


# The kit's tests, in a fresh install ------------------------------------------------------------------


def run_kit_tests(kit: Path, python: Path, folder: Path) -> str:
    """The kit's test files that no page counts (UNCOUNTED), once, in the fresh install, with a JUnit report in folder.

    Returns "" when pytest ran them and wrote the report, whether or not they passed (each test file's
    results are checked by test_the_kit_tests_pass_in_a_fresh_install_of_the_download), else pytest's output.
    """
    tested = run([str(python), "-m", "pytest", *UNCOUNTED, "-p", "no:cacheprovider",
                  f"--junitxml={folder / 'results.xml'}"], kit)
    ran = tested.returncode in (0, 1) and (folder / "results.xml").is_file()  # 1: some tests failed
    return "" if ran else f"exit code {tested.returncode}\n{tested.stdout}{tested.stderr}"


@dataclass(frozen=True)
class KitResults:
    """The kit's tests as they ran in the fresh install: test ids that passed, and what went wrong, by file."""

    passed: dict[str, list[str]]
    problems: dict[str, list[str]]


def file_of(classname: str) -> str:
    """The test file of a JUnit classname: "kit.tests.sub.test_x.TestY" -> "kit/tests/sub/test_x.py", the
    longest leading part of it that names a file of the kit (the classname itself where none does)."""
    parts = classname.split(".")
    for end in range(len(parts), 0, -1):
        if (ROOT / ("/".join(parts[:end]) + ".py")).is_file():
            return "/".join(parts[:end]) + ".py"
    return classname


@pytest.fixture(scope="session")
def kit_results(installed, tmp_path_factory) -> KitResults:
    """The results of the one run of all the kit's tests in the fresh install (run_kit_tests), by test file."""
    folder = once_per_run(tmp_path_factory, "learner-kit-tests", lambda f: run_kit_tests(*installed, f))
    results = KitResults({}, {})
    for case in ElementTree.parse(folder / "results.xml").iter("testcase"):
        file, name = file_of(case.get("classname", "")), case.get("name", "")
        outcome = next((child for child in case if child.tag in ("failure", "error", "skipped")), None)
        if outcome is None:
            results.passed.setdefault(file, []).append(name)
        else:
            detail = outcome.get("message", "") + "\n" + (outcome.text or "")
            results.problems.setdefault(file, []).append(f"{name}: {outcome.tag}\n{detail.strip()}")
    return results


# the files pytest collects in kit/tests by default, in any folder below it
KIT_TEST_FILES = sorted({p.relative_to(ROOT).as_posix() for pattern in ("test_*.py", "*_test.py")
                         for p in (ROOT / "kit" / "tests").rglob(pattern)})
UNCOUNTED = [file for file in KIT_TEST_FILES if file not in COUNTED_FILES]


def test_every_kit_test_file_runs_once_in_the_download_here_or_in_the_notebook_of_a_page_that_counts_it():
    assert set(COUNTED_FILES) <= set(KIT_TEST_FILES), sorted(set(COUNTED_FILES) - set(KIT_TEST_FILES))
    assert sorted(UNCOUNTED + COUNTED_FILES) == KIT_TEST_FILES


def test_every_count_block_of_a_page_is_read_as_one_and_runs_in_its_notebook():
    """A count block the pattern misses would run its files twice in the download (here and in the notebook),
    as happened when the pages' sed changed; one it finds that the notebook does not hold would run them never."""
    counted = set()
    for src in PAGES_WITH_BLOCKS:
        cells = "\n".join(shown.block.code for shown in notebooks.read_page(ROOT, src))
        for line in (ROOT / "docs" / src).read_text(encoding="utf-8").splitlines():
            if COUNT_START.search(line):
                assert COUNT_BLOCK.search(line), f"{src}: a test count COUNT_BLOCK does not read: {line}"
                assert line.strip() in cells, f"{src}: a test count the page's notebook does not run: {line}"
                counted.update(COUNT_BLOCK.search(line).group(1).split())
    assert sorted(counted) == COUNTED_FILES
    assert "kit/tests/test_usage.py" in COUNTED_FILES and "kit/tests/test_agent_state.py" in COUNTED_FILES


def test_every_kit_test_that_ran_in_the_download_belongs_to_a_checked_file(kit_results):
    ran = set(kit_results.passed) | set(kit_results.problems)
    assert ran <= set(UNCOUNTED), f"tests ran that no per-file check looks at: {sorted(ran - set(UNCOUNTED))}"


@pytest.mark.parametrize("file", UNCOUNTED)
def test_the_kit_tests_pass_in_a_fresh_install_of_the_download(file, kit_results):
    """The kit's tests run here, and only here, in `make test`: in the download, installed as its README says.

    Every test of every file passes; none fails, errors or is skipped (a skipped test is a defect).
    """
    if kit_results.problems.get(file):
        pytest.fail(f"{file}, in the download:\n\n" + "\n\n".join(kit_results.problems[file]), pytrace=False)
    if not kit_results.passed.get(file):
        pytest.fail(f"{file}: no test of it ran in the download", pytrace=False)
