"""The kit download's pinned requirements: the exact versions of requirements.lock for what the kit needs.

The pages' outputs quote the kit's dependencies (pydantic's messages, pytest's count line), so a learner who
installs other versions can see other outputs. The kit's pyproject.toml says only what it works with
(`pydantic>=2.7`); the download adds requirements.txt, which pins every distribution the kit and its test
extra need, dependencies of dependencies included, at the lock's version, and requirements-notebooks.txt,
which adds a Jupyter kernel (ipykernel and what it needs) for the pages' notebooks.

The dependency graph is read from the installed distributions' metadata (the build's .venv, which `make`
installs from the lock); each requirement's environment marker is evaluated for CPython 3.11, 3.12 and 3.13
on Linux, the platform the lock was made on, and a requirement any of them needs is kept, so the files are the
same on every machine the site is built on.

Left out: what only macOS or Windows needs (pywin32, colorama...): the lock has no version of it, so pip picks
one there. Hashes (pip's --require-hashes would need every wheel's hash for every platform), and pins of
what no requirement reaches (the site's own tools in the lock: MkDocs, Playwright...).
"""

from __future__ import annotations

import importlib.metadata
import itertools
import re

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

PYTHONS = ("3.11", "3.12", "3.13")
PLATFORMS = (("linux", "Linux", "posix"),)  # the lock's platform: see the module docstring
LOCK_LINE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)\s*$")


class PinError(ValueError):
    """The lock and the installed distributions disagree, or the lock lacks something the kit needs."""


def read_lock(text: str, name: str = "requirements.lock") -> dict[str, str]:
    """{canonical name: version} of a lock file of `name==version` lines (comments and blank lines skipped).

    Raises:
        PinError: a line that is neither, naming the file and line.

    Example: read_lock("# x\\nPyYAML==6.0.4\\n") == {"pyyaml": "6.0.4"}
    """
    pins = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = LOCK_LINE.match(line)
        if not match:
            raise PinError(f"{name}, line {number}: expected name==version, got {line!r}")
        pins[canonicalize_name(match.group(1))] = match.group(2)
    return pins


def _environments(extras: tuple[str, ...]) -> list[dict[str, str]]:
    return [{"python_version": py, "python_full_version": f"{py}.0", "sys_platform": sys, "platform_system": system,
             "os_name": os_name, "implementation_name": "cpython", "platform_python_implementation": "CPython",
             "extra": extra}
            for py, (sys, system, os_name), extra in itertools.product(PYTHONS, PLATFORMS, extras or ("",))]


def _wanted(requirement: Requirement, extras: tuple[str, ...]) -> bool:
    """Whether some supported environment needs the requirement, with the given extras of its parent."""
    if requirement.marker is None:
        return True
    return any(requirement.marker.evaluate(env) for env in _environments((*extras, "")))


def closure(requirements: list[str], lock: dict[str, str]) -> dict[str, str]:
    """Every distribution the requirements need, dependencies included, with its version in the lock.

    Args:
        requirements: PEP 508 requirement strings, e.g. ["pydantic>=2.7", "pytest>=8"].
        lock: read_lock's {canonical name: version}.

    Returns:
        {distribution name as its metadata spells it: the lock's version}.

    Raises:
        PinError: a needed distribution the lock does not pin, or one installed at another version than the
            lock's (run `make` to install the lock), naming it.

    Example: closure(["pydantic"], lock)["pydantic"] == lock["pydantic"]
    """
    found: dict[str, str] = {}
    todo = [(Requirement(r), ()) for r in requirements]
    while todo:
        requirement, extras = todo.pop()
        if not _wanted(requirement, extras):
            continue
        key = canonicalize_name(requirement.name)
        if key not in lock:
            raise PinError(f"requirements.lock pins no version of {requirement.name}, which the kit needs "
                           f"({requirement}); add it to the lock")
        try:
            dist = importlib.metadata.distribution(requirement.name)
        except importlib.metadata.PackageNotFoundError:
            raise PinError(f"{requirement.name} is in requirements.lock but not installed here; run make") from None
        if dist.version != lock[key]:
            raise PinError(f"{requirement.name} is installed at {dist.version}, requirements.lock pins {lock[key]}; "
                           "run make")
        name = dist.metadata["Name"]
        fresh = name not in found
        found[name] = lock[key]
        if fresh or requirement.extras:
            todo += [(Requirement(r), tuple(requirement.extras)) for r in dist.requires or []
                     if fresh or "extra" in r]
    return found


def requirements_file(pins: dict[str, str], header: str, includes: tuple[str, ...] = ()) -> str:
    """A requirements file: comment lines of header, `-r` lines for includes, then `name==version` sorted by name.

    Example: requirements_file({"b": "2", "A": "1"}, "x") == "# x\\nA==1\\nb==2\\n"
    """
    lines = [f"# {line}".rstrip() for line in header.splitlines()]
    lines += [f"-r {name}" for name in includes]
    lines += [f"{name}=={version}" for name, version in sorted(pins.items(), key=lambda p: p[0].lower())]
    return "\n".join(lines) + "\n"


def kit_requirements(project: dict, lock_text: str) -> dict[str, str]:
    """The download's pinned files, {file name: text}: requirements.txt (the kit and its test extra) and
    requirements-notebooks.txt (that, plus ipykernel for the notebooks).

    Args:
        project: the kit's pyproject.toml, parsed (its [project] dependencies and test extra).
        lock_text: the text of the repo's requirements.lock.

    Raises:
        PinError: see closure.

    Example: "pydantic==" in kit_requirements(tomllib.loads(text), lock)["requirements.txt"]
    """
    lock = read_lock(lock_text)
    kit = closure(project["project"]["dependencies"] + project["project"]["optional-dependencies"]["test"], lock)
    kernel = {name: v for name, v in closure(["ipykernel"], lock).items() if name not in kit}
    return {
        "requirements.txt": requirements_file(kit, (
            "The exact versions the course's outputs were made with (the course's requirements.lock), for the kit\n"
            "and its tests: install them with the kit, as README.md says:\n"
            '  .venv/bin/python -m pip install -r requirements.txt -e ".[test]"')),
        "requirements-notebooks.txt": requirements_file(kernel, (
            "requirements.txt, plus a Jupyter kernel (ipykernel) for the pages' notebooks, at the course's versions:\n"
            '  .venv/bin/python -m pip install -r requirements-notebooks.txt -e ".[test]"'), ("requirements.txt",)),
    }
