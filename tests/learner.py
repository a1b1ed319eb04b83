"""The kit download as a learner gets it, installed the way its README says, for the tests that use it.

install() unpacks the download and does what the kit's README says, in a new virtual environment,
offline: `pip install -r requirements.txt -e ".[test]"` from the unpacked archive (its pins: the lock's
versions). Its packages come from this environment: each installed distribution the kit needs (pydantic,
pytest and their dependencies, at the versions of requirements.lock, all it pins) is packed back into a
wheel, and pip installs from those wheels only (--no-index --find-links), with no pip configuration of
this machine. To save the seconds of an isolated build environment, the build backend the kit's
pyproject.toml names (setuptools) is unpacked next to the fresh venv and put on its path instead
(--no-build-isolation); the editable build itself is the one a learner gets. conftest.installed makes one
such install for the whole test run.

A learner who opens a page's notebook needs a Jupyter kernel too: install() also installs
requirements-notebooks.txt (ipykernel and what it needs, pinned at the lock's versions), from the same
wheels, and writes a kernel spec for that venv (KERNELS), which run_notebook() starts with nbclient,
Jupyter's own executor.

The tests that use it: test_kit_download.py (the archive, the kit's own tests) and test_kit_replay.py (each
page's notebook, run in the install, its test count included).
"""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from pathlib import Path

from packaging.requirements import Requirement

from sitebuild.course.coursenav import course_pages, read_config
from sitebuild.publish import notebooks
from sitebuild.publish.gen_downloads import FOLDER, kit_download
from sitebuild.run.capture import relative
from sitebuild.run.runner import block_env
from sitebuild.verify.approved import clean, diff

ROOT = Path(__file__).resolve().parents[1]
CONFIG = read_config(ROOT / "mkdocs.yml")
KERNELS, KERNEL = "kernels", "learner"  # under the install's folder: the kernel spec of its venv
INSTALL_TIMEOUT = 900  # seconds: a bound on one pip or pytest run, never an assertion about its speed
PAGES_WITH_BLOCKS = [p.src_uri for p in course_pages(CONFIG["nav"])
                     if 'exec="on"' in (ROOT / "docs" / p.src_uri).read_text(encoding="utf-8")]
# A test count block: `python -m pytest FILES | tail -n 1 | sed 's/ in ...//'`, which prints "N passed": whole files,
# no selection, and a sed that cuts only from " in " on (the seconds, and pytest's "(h:mm:ss)" after a minute).
COUNT_BLOCK = re.compile(r"python -m pytest ((?:kit/tests/\S+\.py ?)+)\| tail -n 1 \| sed 's/ in [^'/]*//'")
# What a count block starts with: every line of a page that starts so must be a COUNT_BLOCK
# (test_kit_download.py checks), or its files would run twice in the download.
COUNT_START = re.compile(r"python -m pytest (?:kit/tests/\S+\.py ?)+\| tail -n 1")
# The kit test files some page's count block runs: the replay runs them there (as each page's notebook does),
# so the download's own run of the kit's tests leaves them out (found in the pages' text, cheaply).
COUNTED_FILES = sorted({file for src in PAGES_WITH_BLOCKS
                        for match in COUNT_BLOCK.finditer((ROOT / "docs" / src).read_text(encoding="utf-8"))
                        for file in match.group(1).split()})


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


def pins(path: Path) -> dict[str, str]:
    """{name: version} of a requirements file's `name==version` lines, following its `-r FILE` lines."""
    found: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("-r "):
            found.update(pins(path.parent / line[3:].strip()))
        elif "==" in line and not line.startswith("#"):
            name, version = line.split("==", 1)
            found[name.strip()] = version.strip()
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
    pinned = pins(kit / "requirements-notebooks.txt")  # requirements.txt's pins too, through its -r line
    for name in sorted(needed(requirements) | set(pinned)):
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
    installed = run([*pip, *options, "-r", "requirements.txt", "-e", ".[test]"], kit)
    if installed.returncode or "Successfully installed" not in installed.stdout or "pydantic" not in installed.stdout:
        return installed.stdout + installed.stderr
    for name in sorted(needed(["ipykernel"]) - needed(requirements) - set(pinned)):  # none: the pins hold them
        pack_wheel(name, wheels)
    kernel = run([*pip, *options, "-r", "requirements-notebooks.txt", "-e", ".[test]"], kit)  # a notebook's kernel
    if kernel.returncode:
        return kernel.stdout + kernel.stderr
    # The kit's bytecode once, as a learner's first run leaves it (their Python writes it; the notebooks' kernels and
    # test counts run with PYTHONDONTWRITEBYTECODE, as the build's blocks do, and would each compile it again).
    compiled = run([str(python), "-m", "compileall", "-q", "kit"], kit)
    if compiled.returncode:
        return compiled.stdout + compiled.stderr
    spec = folder / KERNELS / KERNEL
    spec.mkdir(parents=True)
    argv = [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": KERNEL, "language": "python"}),
                                      encoding="utf-8")
    return ""


def run_notebook(src_uri: str, kit: Path, kernels: Path) -> list[str]:
    """Run a page's notebook (sitebuild.publish.notebooks, as the site publishes it) with nbclient in the install,
    from the kit folder, on the install's kernel, every cell, its test count included (which runs those kit test files
    there: see COUNTED_FILES). Returns, for each code cell whose outputs differ from the page's approved output,
    or that raised: its label, why, and the diff; [] when every cell matches.
    """
    import nbformat
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    page = next(p for p in course_pages(CONFIG["nav"]) if p.src_uri == src_uri)
    text, shown = notebooks.page_notebook(ROOT, src_uri, page.title, "")
    book = nbformat.reads(text, as_version=4)
    manager = KernelManager(kernel_name=KERNEL, kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernels)]))
    client = NotebookClient(book, km=manager, timeout=INSTALL_TIMEOUT, allow_errors=True,
                            resources={"metadata": {"path": str(kit)}})
    # A temporary folder of the run's own, as the build gives each page: notebooks run at the same time, and
    # their test count cells' pytest runs would clean up each other's tmp_path folders (", 1 warning").
    with tempfile.TemporaryDirectory(prefix="learner-notebook-") as temporary:
        env = {**block_env(kit, str(manager.kernel_spec.argv[0])), "TMPDIR": temporary, "TEMP": temporary,
               "TMP": temporary}
        try:
            client.execute(env=env)
        except CellExecutionError as error:  # allow_errors: only a cell that could not run at all lands here
            return [str(error)]
        finally:  # nbclient shuts down only a kernel it started itself (owns_km), not one of a manager given to it
            if manager.has_kernel:
                manager.shutdown_kernel(now=True)
    found = []
    for cell, block in zip([c for c in book.cells if c.cell_type == "code"], shown, strict=True):
        streams = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
        others = [o for o in cell.outputs if o.output_type != "stream"]
        errors = [f"{o.ename}: {o.evalue}" for o in others if o.output_type == "error"]
        actual = relative(streams, kit)
        if errors or others or clean(actual) != clean(block.output):
            why = f"raised {errors[0]}" if errors else ("displayed a value" if others else "prints something else")
            found.append(f"{block.block.label}: {why}\n{diff(block.output, actual, src_uri) or actual}")
    return found
