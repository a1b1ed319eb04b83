"""The kit download as a learner gets it: its README, LICENSE and pyproject.toml, a fresh install, and
every page's shown blocks run in that install, giving the outputs the page shows.

The kit's tests run here, and only here, in `make test`. test_the_kit_tests_pass_in_a_fresh_install_of_the_download
does what the kit's README says, in a new virtual environment, offline: `pip install -e ".[test]"`
from the unpacked archive, then `python -m pytest kit/tests` once; it checks each test file's results
(one test per file, showing what failed). In the repo, `python -m pytest kit/tests` runs them directly.

The install's packages come from this environment: each installed distribution the kit needs
(pydantic, pytest and their dependencies, at the versions of requirements.lock) is packed back into a
wheel, and pip installs from those wheels only (--no-index --find-links), with no pip configuration of
this machine. To save the seconds of an isolated build environment, the build backend the kit's
pyproject.toml names (setuptools) is unpacked next to the fresh venv and put on its path instead
(--no-build-isolation); the editable build itself is the one a learner gets.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata
import io
import os
import re
import subprocess
import sys
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

import pytest
from mkdocs.utils.meta import get_data
from packaging.requirements import Requirement

from sitebuild.approved import clean, diff, parse
from sitebuild.blocks import page_blocks
from sitebuild.coursenav import course_pages, page_url, read_config
from sitebuild.gen_downloads import FOLDER, kit_download, kit_pyproject, kit_readme, toml_text
from sitebuild.runner import Result
from sitebuild.verify import run_blocks
from tests.conftest import once_per_run

ROOT = Path(__file__).resolve().parents[1]
CONFIG = read_config(ROOT / "mkdocs.yml")
INSTALL_TIMEOUT = 300  # seconds: a bound on one pip or pytest run, never an assertion about its speed


@pytest.fixture(scope="module")
def archive() -> zipfile.ZipFile:
    data = kit_download(ROOT, CONFIG["nav"], ROOT / "docs", "")
    return zipfile.ZipFile(io.BytesIO(data))


def read(archive: zipfile.ZipFile, name: str) -> str:
    return archive.read(f"{FOLDER}/{name}").decode("utf-8")


# What the archive holds -------------------------------------------------------------------------------


def test_the_archive_holds_the_kit_with_its_own_readme_licence_and_project(archive):
    names = set(archive.namelist())
    for name in ("README.md", "LICENSE", "pyproject.toml", "kit/evidencedesk/__init__.py", "kit/data/prices.json"):
        assert f"{FOLDER}/{name}" in names, name
    assert all(name.startswith(f"{FOLDER}/") for name in names)
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    assert "MIT License" in read(archive, "LICENSE")


def test_the_kit_project_has_the_package_its_test_extra_and_no_site_tools(archive):
    kit = tomllib.loads(read(archive, "pyproject.toml"))
    repo = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert {k: v for k, v in kit["project"].items() if k != "readme"} == repo["project"]
    assert kit["project"]["readme"] == "README.md"
    assert kit["project"]["license"] == {"text": "MIT"}  # the LICENSE file's licence
    assert "dependency-groups" not in kit
    assert kit["tool"]["setuptools"] == repo["tool"]["setuptools"]
    assert kit["tool"]["pytest"]["ini_options"]["testpaths"] == ["kit/tests"]
    site_tools = ("mkdocs", "markdown-exec", "playwright")
    assert not [d for d in str(kit).split("'") if d.startswith(site_tools)], kit


def test_the_readme_names_every_module_with_its_tests_and_the_pages_that_teach_it(archive):
    readme = read(archive, "README.md")
    assert 'pip install -e ".[test]"' in readme and "python -m pytest kit/tests" in readme
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


def test_with_a_site_url_the_readme_links_each_page():
    pages = course_pages(CONFIG["nav"])
    sources = {p.src_uri: (ROOT / "docs" / p.src_uri).read_text(encoding="utf-8") for p in pages}
    readme = kit_readme(ROOT, pages, sources, "https://course.example.org/")
    row = next(line for line in readme.splitlines() if line.startswith("| `kit/evidencedesk/agent/loop.py`"))
    assert "[Agent Loops, State, and Memory](https://course.example.org/advanced/agent-loops-state-memory/)" in row


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


# A fresh install, as the README says --------------------------------------------------------------------


def needed(requirements: list[str], extras: tuple[str, ...] = ()) -> set[str]:
    """The installed distributions that requirements need, dependencies included (markers evaluated here)."""
    found: set[str] = set()
    todo = [(Requirement(r), extras) for r in requirements]
    while todo:
        requirement, extra = todo.pop()
        if requirement.marker and not any(requirement.marker.evaluate({"extra": e}) for e in (*extra, "")):
            continue
        dist = importlib.metadata.distribution(requirement.name)
        name = dist.metadata["Name"]
        if name.lower() in found:
            continue
        found.add(name.lower())
        todo += [(Requirement(r), tuple(requirement.extras)) for r in dist.requires or []]
    return found


def pack_wheel(name: str, folder: Path) -> Path:
    """Pack an installed distribution back into a wheel in folder (its files, a fresh RECORD)."""
    dist = importlib.metadata.distribution(name)
    info = next(f for f in dist.files if f.parts[0].endswith(".dist-info")).parts[0]
    lines = dist.read_text("WHEEL").splitlines()
    tags = [line.split(": ", 1)[1].split("-") for line in lines if line.startswith("Tag: ")]
    # one name for all its tags: py2-none-any and py3-none-any make py2.py3-none-any
    tag = "-".join(".".join(dict.fromkeys(part)) for part in zip(*tags, strict=True))
    wheel = folder / f"{re.sub(r'[-_.]+', '_', dist.metadata['Name'])}-{dist.version}-{tag}.whl"
    skip = {"RECORD", "INSTALLER", "REQUESTED", "direct_url.json"}
    record = []
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_STORED) as out:
        for file in dist.files:
            if file.parts[0] == ".." or "__pycache__" in file.parts or (file.parts[0] == info and file.name in skip):
                continue
            data = Path(dist.locate_file(file)).read_bytes()
            out.writestr(file.as_posix(), data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append(f"{file.as_posix()},sha256={digest},{len(data)}")
        out.writestr(f"{info}/RECORD", "\n".join([*record, f"{info}/RECORD,,"]) + "\n")
    return wheel


def run(command: list[str], cwd: Path) -> subprocess.CompletedProcess:
    # a learner's shell: no pip configuration of this machine (no index, no find-links, no constraints), and
    # Python writes its bytecode caches as usual (the replay's blocks, which never write them, then read them)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_") and k != "PYTHONDONTWRITEBYTECODE"}
    env["PIP_CONFIG_FILE"] = os.devnull
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=INSTALL_TIMEOUT,
                          check=False)


def install(folder: Path) -> str:
    """Unpack the download into folder and install it as its README says, in a fresh venv: "" or why not."""
    zipfile.ZipFile(io.BytesIO(kit_download(ROOT, CONFIG["nav"], ROOT / "docs", ""))).extractall(folder)
    kit = folder / FOLDER
    project = tomllib.loads((kit / "pyproject.toml").read_text(encoding="utf-8"))
    wheels = folder / "wheels"
    wheels.mkdir()
    requirements = project["project"]["dependencies"] + project["project"]["optional-dependencies"]["test"]
    for name in sorted(needed(requirements)):
        pack_wheel(name, wheels)
    venv = folder / "venv"
    made = run([sys.executable, "-m", "venv", "--without-pip", str(venv)], folder)
    if made.returncode:
        return made.stderr
    backend = folder / "build-backend"
    for name in needed(project["build-system"]["requires"]):
        zipfile.ZipFile(pack_wheel(name, folder)).extractall(backend)
    site_packages = next((venv / "lib").glob("python3*/site-packages"))
    (site_packages / "build-backend.pth").write_text(str(backend) + "\n", encoding="utf-8")
    python = venv / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python), "--disable-pip-version-check", "--no-input"]
    options = ["install", "--no-index", "--find-links", str(wheels), "--no-build-isolation"]
    installed = run([*pip, *options, "-e", ".[test]"], kit)
    if installed.returncode or "Successfully installed" not in installed.stdout or "pydantic" not in installed.stdout:
        return installed.stdout + installed.stderr
    return ""


@pytest.fixture(scope="session")
def installed(tmp_path_factory) -> tuple[Path, Path]:
    """The download installed in a fresh venv, once for the run (conftest.once_per_run): (kit folder, its python)."""
    folder = once_per_run(tmp_path_factory, "learner-kit", install)
    return folder / FOLDER, folder / "venv" / "bin" / "python"


COUNT_BLOCK = re.compile(r"python -m pytest ((?:kit/tests/\S+\.py ?)+)\| tail -n 1 \| sed 's/ in \[0-9\.\]\*s//'")


def run_kit_tests(kit: Path, python: Path, folder: Path) -> str:
    """All the kit's tests, once, in the fresh install, with a JUnit report in folder.

    Returns "" when pytest ran them and wrote the report, whether or not they passed (each test file's
    results are checked by test_the_kit_tests_pass_in_a_fresh_install_of_the_download), else pytest's output.
    """
    tested = run([str(python), "-m", "pytest", "kit/tests", "-p", "no:cacheprovider",
                  f"--junitxml={folder / 'results.xml'}"], kit)
    ran = tested.returncode in (0, 1) and (folder / "results.xml").is_file()  # 1: some tests failed
    return "" if ran else f"exit code {tested.returncode}\n{tested.stdout}{tested.stderr}"


@dataclass(frozen=True)
class KitResults:
    """The kit's tests as they ran in the fresh install: test ids that passed, and what went wrong, by file."""

    passed: dict[str, list[str]]
    problems: dict[str, list[str]]

    def passed_in(self, files: list[str]) -> int:
        return sum(len(self.passed.get(file, [])) for file in files)


def file_of(classname: str) -> str:
    """The test file of a JUnit classname: "kit.tests.test_agent_cli.TestX" -> "kit/tests/test_agent_cli.py"."""
    parts = classname.split(".")
    return "/".join(parts[: next(i for i, part in enumerate(parts) if part.startswith("test_")) + 1]) + ".py"


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


KIT_TEST_FILES = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "kit" / "tests").glob("test_*.py"))


@pytest.mark.parametrize("file", KIT_TEST_FILES)
def test_the_kit_tests_pass_in_a_fresh_install_of_the_download(file, kit_results):
    """The kit's tests run here, and only here, in `make test`: in the download, installed as its README says.

    Every test of every file passes; none fails, errors or is skipped (a skipped test is a defect).
    """
    if kit_results.problems.get(file):
        pytest.fail(f"{file}, in the download:\n\n" + "\n\n".join(kit_results.problems[file]), pytrace=False)
    if not kit_results.passed.get(file):
        pytest.fail(f"{file}: no test of it ran in the download", pytrace=False)


# A learner who runs a page's shown blocks in the download --------------------------------------------

PAGES_WITH_BLOCKS = [p.src_uri for p in course_pages(CONFIG["nav"])
                     if 'exec="on"' in (ROOT / "docs" / p.src_uri).read_text(encoding="utf-8")]


@pytest.mark.parametrize("src_uri", PAGES_WITH_BLOCKS)
def test_the_shown_blocks_of_a_page_print_in_the_download_what_the_page_shows(src_uri, installed, kit_results):
    """The page contract's promise: python blocks in one session, bash from the kit folder, in page order,
    only the blocks whose source the page shows (none that a learner cannot copy), in a fresh install."""
    kit, python = installed
    markdown, _ = get_data((ROOT / "docs" / src_uri).read_text(encoding="utf-8"))
    shown = [block for block in page_blocks(markdown) if block.show == "all"]
    approved_outputs = parse((ROOT / "data" / src_uri).with_suffix(".txt").read_text(encoding="utf-8"), src_uri)
    assert shown, f"{src_uri} shows no block a learner can run"

    # A test count (`python -m pytest FILES | tail -n 1 | sed ...`) prints "N passed": it is read from the one
    # run of all the kit's tests in this same install instead of starting pytest again for each page.
    counts = [b for b in shown if b.language == "bash" and COUNT_BLOCK.fullmatch(b.code.strip())]
    ran = [b for b in shown if b not in counts]
    results = {b.index: r for b, r in zip(ran, run_blocks(ran, kit, f"docs/{src_uri}", 120, python=str(python)),
                                          strict=True)}
    for block in counts:
        files = COUNT_BLOCK.fullmatch(block.code.strip()).group(1).split()
        results[block.index] = Result(f"{kit_results.passed_in(files)} passed\n")

    differing = [
        f"{block.label}: {results[block.index].problem or 'prints something else'}\n"
        + (diff(approved_outputs[block.key], results[block.index].output, src_uri) or results[block.index].output)
        for block in shown
        if results[block.index].problem or clean(results[block.index].output) != clean(approved_outputs[block.key])
    ]
    assert not differing, "\n\n".join(differing)
