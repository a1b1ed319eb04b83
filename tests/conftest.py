"""Fixtures for the tests of the site's build machinery: small MkDocs sites built in a temporary folder.

A fixture site is a folder with its own mkdocs.yml (Material, search, markdown-exec, the site's plugin
verified-blocks, strict), a docs/ folder of pages, optional files next to mkdocs.yml (modules its blocks import) and,
once accepted, a data/ folder of approved outputs. `Site.build()` runs `mkdocs build` and
`Site.accept()` what `python -m sitebuild accept` runs, each inside this process (sitebuild.mkdocs_adapter.build:
MkDocs and Material are imported once, blocks still run in fresh interpreters), returning the exit
code and everything logged and printed. `accept_command()` runs the real CLI in a subprocess, for
the test that is about the command itself.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import logging
import os
import re
import subprocess
import sys
import sysconfig
import tempfile
import textwrap
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import jinja2
import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
COMMAND_TIMEOUT = 180  # seconds: a bound on one build, never an assertion about its speed

if str(REPO_ROOT) not in sys.path:  # the unit tests import the machinery itself
    sys.path.insert(0, str(REPO_ROOT))

MKDOCS_YML = """\
site_name: Fixture site
strict: true
theme:
  name: material
plugins:
  - search
  - markdown-exec
  - verified-blocks
validation:
  anchors: warn
  unrecognized_links: warn
markdown_extensions:
  - admonition
  - pymdownx.highlight
  - pymdownx.superfences
  - pymdownx.tabbed:
      alternate_style: true
"""


@dataclass(frozen=True)
class Run:
    """A finished command: its exit code and stdout and stderr together."""

    code: int
    output: str

    def __str__(self) -> str:  # what an assertion message shows
        return f"exit code {self.code}\n{self.output}"


def subprocess_env(mode: str | None = None) -> dict[str, str]:
    """This process's environment for a build: no Material banner, and SITEBUILD_MODE only when given."""
    env = {k: v for k, v in os.environ.items() if k != "SITEBUILD_MODE"}
    env["NO_MKDOCS_2_WARNING"] = "1"
    env["DISABLE_MKDOCS_2_WARNING"] = "true"
    if mode is not None:
        env["SITEBUILD_MODE"] = mode
    return env


def run_command(command: list[str], cwd: Path, env: dict[str, str]) -> Run:
    done = subprocess.run(
        command,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=COMMAND_TIMEOUT,
        check=False,
    )
    return Run(done.returncode, done.stdout)


class MemoryBytecodeCache(jinja2.BytecodeCache):
    """A Jinja bytecode cache kept in memory (Jinja ships only file and memcached ones)."""

    def __init__(self) -> None:
        self.codes: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if bucket.key in self.codes:
            bucket.bytecode_from_string(self.codes[bucket.key])

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.codes[bucket.key] = bucket.bytecode_to_string()


class TemplateCache:
    """What every fixture build would redo for an unchanged installed theme, done once per test process.

    A fixture build is mostly Material's start-up: compiling its Jinja templates and walking its
    templates folder (some 14,000 icon files) for static files. Both are the same for every build of this
    process while the installed packages do not change, so the tests keep them between builds:
    - compiled templates in memory, as a Jinja bytecode cache (Jinja keys each entry by the template's
      name and file and checks the checksum of its source, so an edited template is compiled again);
    - the theme's file list, only for themes whose folders are all installed packages (a theme folder of
      a fixture or of the repo, such as overrides/, is listed afresh on every build).
    """

    INSTALLED = Path(sysconfig.get_paths()["purelib"]).resolve()

    def __init__(self) -> None:
        self.bytecode = MemoryBytecodeCache()
        self.listings: dict[tuple, list[str]] = {}

    def install(self) -> None:
        """Wrap mkdocs.theme.Theme.get_env (once) so each Jinja environment it makes uses this cache."""
        from mkdocs.theme import Theme

        if getattr(Theme.get_env, "template_cache", None) is self:
            return
        original = Theme.get_env

        def get_env(theme):
            env = original(theme)
            env.bytecode_cache = self.bytecode
            if all(Path(folder).resolve().is_relative_to(self.INSTALLED) for folder in theme.dirs):
                env.list_templates = self.listing(env.list_templates, (*theme.dirs, *sorted(theme.static_templates)))
            return env

        get_env.template_cache = self
        Theme.get_env = get_env

    def listing(self, list_templates: Callable, theme_key: tuple) -> Callable:
        def cached(extensions=None, filter_func=None):
            # MkDocs's only filter (Files.add_files_from_theme) depends on nothing but the theme's
            # static_templates, which are in theme_key
            key = (theme_key, tuple(extensions or ()), getattr(filter_func, "__qualname__", None))
            if key not in self.listings:
                self.listings[key] = list_templates(extensions=extensions, filter_func=filter_func)
            return list(self.listings[key])

        return cached


TEMPLATES = TemplateCache()


def in_process(mode: str, config: Path, site_dir: Path, strict: bool | None = None, level: int = logging.INFO) -> Run:
    """Build a site in this process (sitebuild.mkdocs_adapter.build.build_site); capture what it logs and prints.

    Log records come out as the MkDocs CLI shows them ("ERROR    -  message"); an exception MkDocs does
    not turn into an abort comes out as its traceback, with exit code 1, as the CLI would show it.
    """
    from sitebuild.mkdocs_adapter.build import build_site

    TEMPLATES.install()
    text = io.StringIO()
    handler = logging.StreamHandler(text)
    handler.setFormatter(logging.Formatter("%(levelname)-8s-  %(message)s"))
    mkdocs_log = logging.getLogger("mkdocs")
    old_level, propagate = mkdocs_log.level, mkdocs_log.propagate
    mkdocs_log.addHandler(handler)
    mkdocs_log.setLevel(level)
    mkdocs_log.propagate = False
    try:
        with contextlib.redirect_stdout(text):
            code = build_site(config, site_dir, mode=mode, strict=strict)
    except Exception:  # noqa: BLE001 - shown as the CLI would show it
        code = 1
        text.write(traceback.format_exc())
    finally:
        mkdocs_log.removeHandler(handler)
        mkdocs_log.setLevel(old_level)
        mkdocs_log.propagate = propagate
    if code > 128:  # SIGINT or SIGTERM (a Ctrl-C of pytest) stopped the build: pytest stops too
        raise KeyboardInterrupt(text.getvalue())
    return Run(code, text.getvalue())


class Site:
    """A fixture site in `root`: write its files, build it, accept it, read what came out."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.config = root / "mkdocs.yml"
        self.docs = root / "docs"
        self.data = root / "data"
        self.out = root.parent / f"{root.name}-out"

    def write(self, relative: str, text: str) -> Path:
        """Write a file of the site (e.g. "docs/index.md", "helper.py"), creating its folders."""
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def options(self, **options) -> Path:
        """Set options of the verified-blocks plugin in mkdocs.yml, e.g. options(block_jobs=2); returns mkdocs.yml.

        A value that is a string is written as YAML as it is ("[kit]", ".inf"); any other as JSON.
        """
        text = self.config.read_text(encoding="utf-8")
        lines = "".join(f"      {name}: {value if isinstance(value, str) else json.dumps(value)}\n"
                        for name, value in options.items())
        if "  - verified-blocks\n" in text:
            text = text.replace("  - verified-blocks\n", "  - verified-blocks:\n" + lines, 1)
        else:
            text = text.replace("  - verified-blocks:\n", "  - verified-blocks:\n" + lines, 1)
        return self.write("mkdocs.yml", text)

    def page(self, name: str, markdown: str) -> Path:
        """Write docs/<name>."""
        return self.write(f"docs/{name}", markdown)

    def build(self, *args: str, mode: str | None = None) -> Run:
        """`mkdocs build` of this site into self.out, in this process; mode: the hook's mode (default build).

        args: "--strict" or "--no-strict", as on the command line.
        """
        strict = {"--strict": True, "--no-strict": False}
        unknown = [a for a in args if a not in strict]
        assert not unknown, f"build() takes --strict or --no-strict, not {unknown}"
        return in_process(mode or "build", self.config, self.out, strict[args[-1]] if args else None)

    def accept(self) -> Run:
        """What `python -m sitebuild accept -f <this site's mkdocs.yml>` runs, in this process."""
        with tempfile.TemporaryDirectory(prefix="sitebuild-accept-") as site_dir:
            return in_process("accept", self.config, Path(site_dir), strict=False, level=logging.WARNING)

    def accept_command(self) -> Run:
        """`python -m sitebuild accept -f <this site's mkdocs.yml>`, as a subprocess from the repo root."""
        command = [sys.executable, "-m", "sitebuild", "accept", "-f", str(self.config)]
        return run_command(command, REPO_ROOT, subprocess_env())

    def html(self, page: str = "index.md") -> str:
        """The built HTML of a page (use_directory_urls: index.md -> index.html, a.md -> a/index.html)."""
        stem = page.removesuffix(".md")
        path = self.out / ("index.html" if stem == "index" else f"{stem}/index.html")
        return path.read_text(encoding="utf-8")

    def approved(self, page: str = "index.md") -> str:
        """The text of a page's approved-outputs file."""
        return (self.data / page).with_suffix(".txt").read_text(encoding="utf-8")

    def approved_file(self, page: str = "index.md") -> Path:
        return (self.data / page).with_suffix(".txt")


def create_site(root: Path, pages: dict[str, str] | None = None, files: dict[str, str] | None = None) -> Site:
    """A fixture site in root with the given pages (name -> Markdown) and other files (path -> text)."""
    root.mkdir(parents=True, exist_ok=True)
    site = Site(root)
    site.write("mkdocs.yml", MKDOCS_YML)
    for name, markdown in (pages or {}).items():
        site.page(name, markdown)
    for relative, text in (files or {}).items():
        site.write(relative, text)
    return site


@pytest.fixture
def make_site(tmp_path: Path) -> Callable[..., Site]:
    """Factory: make_site(pages={"index.md": ...}, files={"helper.py": ...}) -> Site, each in its own folder."""
    made = []

    def factory(pages: dict[str, str] | None = None, files: dict[str, str] | None = None) -> Site:
        made.append(None)
        return create_site(tmp_path / f"site{len(made)}", pages, files)

    return factory


# Writing pages ---------------------------------------------------------------------------------------


def fence(code: str, language: str = "python", **options: str) -> str:
    """An executed markdown-exec fence: fence('print(1)', show="output") -> ```python exec="on" show="output"..."""
    written = " ".join(f'{name}="{value}"' for name, value in {"exec": "on", **options}.items())
    return f"```{language} {written}\n{textwrap.dedent(code).strip()}\n```\n"


def page(*parts: str, title: str = "Home") -> str:
    """A page: a heading, then each part (fences, prose) separated by a blank line."""
    return f"# {title}\n\n" + "\n".join(part if part.endswith("\n") else part + "\n" for part in parts)


EXEC_FENCE = re.compile(r'^\s*(`{3,}|~{3,})\s*\{?\.?(?P<language>\w+)[^\n]*exec="on"')


def label(markdown: str, n: int) -> str:
    """How the build names the n-th executed block of a simple page: "block n (python, line L)".

    Computed independently of the machinery: the n-th line opening an exec="on" fence.
    """
    openers = [
        (number, match["language"])
        for number, line in enumerate(markdown.splitlines(), start=1)
        if (match := EXEC_FENCE.match(line))
    ]
    number, language = openers[n - 1]
    return f"block {n} ({language}, line {number})"


def failure_line(run: Run, page_path: str, block_label: str) -> str:
    """The output line that reports a block's failure ("docs/index.md, block 1 (python, line 3), key ...: ...")."""
    prefix = f"{page_path}, {block_label}, key "
    lines = [line for line in run.output.splitlines() if prefix in line]
    assert lines, f"no failure reported for {page_path}, {block_label}:\n{run}"
    return lines[0]


def approved_entries(text: str) -> list[str]:
    """The entries of an approved-outputs file, each its header line through its last output line, verbatim."""
    chunks = re.split(r"(?m)^(?=--- \S+ \(\d+ lines?\)$)", text)
    return [chunk[:-1] if chunk.endswith("\n\n") else chunk for chunk in chunks[1:]]


# The real site, built once per test run ---------------------------------------------------------------


def build_real_site(site_dir: Path) -> subprocess.CompletedProcess:
    """`mkdocs build --strict` of the repo's own mkdocs.yml into site_dir, as `make site` runs it (the CLI)."""
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(REPO_ROOT / "mkdocs.yml"), "-d",
               str(site_dir)]
    return subprocess.run(command, cwd=REPO_ROOT, env=subprocess_env(), capture_output=True, text=True,
                          timeout=COMMAND_TIMEOUT * 3, check=False)


def once_per_run(tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], str]) -> Path:
    """A folder made once for the whole test run and shared by pytest-xdist's workers.

    The first worker to ask runs make(folder) under a lock, and the others wait and get the same folder;
    make returns "" when it succeeded, else why not (or raises), and every worker that asks then fails with that.
    """
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # the run's folder, above each worker's own
    folder, record = shared / name, shared / f"{name}.json"
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not record.exists():
            folder.mkdir(exist_ok=True)
            try:
                problem = make(folder)
            except Exception:  # noqa: BLE001 - every worker that asks fails with it, instead of trying again
                problem = traceback.format_exc()
            record.write_text(json.dumps(problem), encoding="utf-8")
    problem = json.loads(record.read_text(encoding="utf-8"))
    assert not problem, problem
    return folder


@pytest.fixture(scope="session")
def real_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real site, strictly built once for the whole run (build_real_site), shared by every worker."""

    def make(folder: Path) -> str:
        result = build_real_site(folder)
        return "" if result.returncode == 0 else result.stdout + result.stderr

    return once_per_run(tmp_path_factory, "real-site", make)


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The kit download installed in a fresh venv as its README says (tests/learner.py), once for the whole
    run and shared by every worker: (the unpacked kit folder, the venv's python)."""
    from sitebuild.publish.gen_downloads import FOLDER
    from tests.learner import install

    folder = once_per_run(tmp_path_factory, "learner-kit", install)
    return folder / FOLDER, folder / "venv" / "bin" / "python"


# How many workers, and the order files start in -------------------------------------------------------


@pytest.hookimpl(optionalhook=True)  # a pytest-xdist hook: unknown when xdist is off (-p no:xdist)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: one worker per CPU, plus one.

    The workers on the long chains (START_FIRST) spend most of their time waiting on processes of their
    own (the real build's blocks, the kit's install and tests), which keep the CPUs busy; one more worker
    runs the short files meanwhile.
    """
    return (os.cpu_count() or 1) + 1


# Files that start a long chain of work (the real build; the kit's install, then its tests) or wait on one
# to do a lot of their own (the replay, once the install is there) start first, each on a worker of its own.
# A file that only reads what a chain made (test_real_site.py reads the real build) starts last, when it no
# longer has to wait.
START_FIRST = ("tests/test_browser.py", "tests/test_kit_download.py", "tests/test_kit_replay.py",
               "tests/test_browser_reader.py")
START_LAST = ("tests/test_real_site.py",)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """START_FIRST, then the other files, most site builds (the `site` mark) first, then START_LAST.

    `make test` runs pytest-xdist by file with --no-loadscope-reorder, so workers take files in this
    order (by default xdist orders files by their number of tests, which starts the long chains last).
    The order of tests within a file is unchanged.
    """
    files: dict[str, list[pytest.Item]] = {}
    for item in items:
        files.setdefault(item.nodeid.split("::")[0], []).append(item)

    def rank(file: str) -> tuple[int, int]:
        if file in START_FIRST:
            return 0, START_FIRST.index(file)
        if file in START_LAST:
            return 2, START_LAST.index(file)
        return 1, -sum(1 for item in files[file] if item.get_closest_marker("site"))

    items[:] = [item for file in sorted(files, key=rank) for item in files[file]]
