"""The kit download as a learner gets it: its README, LICENSE and pyproject.toml, a fresh install, and
every page's shown blocks run in that install, giving the outputs the page shows.

test_the_download_installs_into_a_fresh_venv_and_its_tests_pass does what the kit's README says, in a
new virtual environment, offline: `pip install -e ".[test]"` from the unpacked archive, then
`python -m pytest kit/tests`. Its packages come from this environment: each installed distribution
the kit needs (pydantic, pytest and their dependencies, at the versions of requirements.lock) is
packed back into a wheel, and pip installs from those wheels only (--no-index --find-links), with
no pip configuration of this machine. To save the seconds of an isolated build environment, the
build backend the kit's pyproject.toml names (setuptools) is unpacked next to the fresh venv and put
on its path instead (--no-build-isolation); the editable build itself is the one a learner gets.
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
from pathlib import Path

import pytest
from mkdocs.utils.meta import get_data
from packaging.requirements import Requirement

from sitebuild.approved import clean, diff, parse
from sitebuild.blocks import page_blocks
from sitebuild.coursenav import course_pages, page_url, read_config
from sitebuild.gen_downloads import FOLDER, kit_download, kit_pyproject, kit_readme, toml_text
from sitebuild.verify import run_blocks

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
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env["PIP_CONFIG_FILE"] = os.devnull  # no pip.conf of this machine: no index, no find-links, no constraints
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=INSTALL_TIMEOUT,
                          check=False)


@pytest.fixture(scope="module")
def installed(archive, tmp_path_factory) -> tuple[Path, Path]:
    """The download unpacked and installed as its README says, in a fresh venv: (kit folder, the venv's python)."""
    tmp_path = tmp_path_factory.mktemp("learner")
    archive.extractall(tmp_path)
    kit = tmp_path / FOLDER
    project = tomllib.loads((kit / "pyproject.toml").read_text(encoding="utf-8"))
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    requirements = project["project"]["dependencies"] + project["project"]["optional-dependencies"]["test"]
    for name in sorted(needed(requirements)):
        pack_wheel(name, wheels)
    venv = tmp_path / "venv"
    made = run([sys.executable, "-m", "venv", "--without-pip", str(venv)], tmp_path)
    assert made.returncode == 0, made.stderr
    backend = tmp_path / "build-backend"
    for name in needed(project["build-system"]["requires"]):
        zipfile.ZipFile(pack_wheel(name, tmp_path)).extractall(backend)
    site_packages = next((venv / "lib").glob("python3*/site-packages"))
    (site_packages / "build-backend.pth").write_text(str(backend) + "\n", encoding="utf-8")
    python = venv / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python), "--disable-pip-version-check", "--no-input"]
    install = ["install", "--no-compile", "--no-index", "--find-links", str(wheels), "--no-build-isolation"]
    installed = run([*pip, *install, "-e", ".[test]"], kit)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert "Successfully installed" in installed.stdout and "pydantic" in installed.stdout, installed.stdout
    return kit, python


def test_the_download_installs_into_a_fresh_venv_and_its_tests_pass(installed):
    kit, python = installed

    tested = run([str(python), "-m", "pytest", "kit/tests", "-p", "no:cacheprovider"], kit)

    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert re.search(r"\d+ passed", tested.stdout), tested.stdout


# A learner who runs a page's shown blocks in the download --------------------------------------------

PAGES_WITH_BLOCKS = [p.src_uri for p in course_pages(CONFIG["nav"])
                     if 'exec="on"' in (ROOT / "docs" / p.src_uri).read_text(encoding="utf-8")]


@pytest.mark.parametrize("src_uri", PAGES_WITH_BLOCKS)
def test_the_shown_blocks_of_a_page_print_in_the_download_what_the_page_shows(src_uri, installed):
    """The page contract's promise: python blocks in one session, bash from the kit folder, in page order,
    only the blocks whose source the page shows (none that a learner cannot copy), in a fresh install."""
    kit, python = installed
    markdown, _ = get_data((ROOT / "docs" / src_uri).read_text(encoding="utf-8"))
    shown = [block for block in page_blocks(markdown) if block.show == "all"]
    approved_outputs = parse((ROOT / "data" / src_uri).with_suffix(".txt").read_text(encoding="utf-8"), src_uri)
    assert shown, f"{src_uri} shows no block a learner can run"

    results = run_blocks(shown, kit, f"docs/{src_uri}", 120, python=str(python))

    differing = [
        f"{block.label}: {result.problem or 'prints something else'}\n"
        + (diff(approved_outputs[block.key], result.output, src_uri) or result.output)
        for block, result in zip(shown, results, strict=True)
        if result.problem or clean(result.output) != clean(approved_outputs[block.key])
    ]
    assert not differing, "\n\n".join(differing)
