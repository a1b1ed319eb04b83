"""A build that SIGINT or SIGTERM interrupts stops at once: every running block and what it started is killed,
the scratch folders are removed, one line says so, and the build exits with 128 + N, without a traceback.

Each test builds a site of two pages whose blocks (a bash one, a python one that starts a subprocess) sleep for
an unusual, random time (121.xxxxxx and 122.xxxxxx s; their timeouts are longer still), waits until both
sleeps run, and signals the build as a terminal's Ctrl-C does (SIGINT to the build's process group; blocks run
in sessions of their own, so it reaches no block) or as a CI cancel does (SIGTERM to the build alone). Only
processes carrying this test's markers, or its temporary folder in their environment, are looked at, so that
another build on the machine cannot fail these tests. They fail on 193be07, where after SIGINT the build went on
until every block had ended, and after SIGTERM it died at once, leaving the blocks and the scratch folders.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import COMMAND_TIMEOUT, REPO_ROOT, fence, page, subprocess_env

pytestmark = pytest.mark.site

PROMPT = 30  # seconds from the signal to the exit: it needs a fraction of one, and the blocks sleep 121 s, so 30
# tells "stopped them" from "waited for them" on any load without timing the stop (bench territory)


def processes(markers: list[str], folder: Path) -> list[int]:
    """Live processes of this test's blocks: a marker in their command line, or folder in their environment
    (every block's process has its TMPDIR there); zombies show neither."""
    found = []
    wanted = [marker.encode() for marker in markers]
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        with contextlib.suppress(OSError):
            arguments = Path(f"/proc/{name}/cmdline").read_bytes()
            environment = Path(f"/proc/{name}/environ").read_bytes()
            if any(marker in arguments for marker in wanted) or str(folder).encode() in environment:
                found.append(int(name))
    return found


def sleeping(marker: str) -> bool:
    """True once a `sleep <marker>` runs."""
    for name in os.listdir("/proc"):
        with contextlib.suppress(OSError):
            if name.isdigit() and Path(f"/proc/{name}/cmdline").read_bytes() == f"sleep\0{marker}\0".encode():
                return True
    return False


@pytest.fixture
def sleepers(make_site, tmp_path):
    """A site whose two pages' blocks sleep for about two minutes, both at once; a start(command) that runs a
    build of it with its own temporary folder; then everything of it that still runs is killed.

    Yields (start, markers, temporary folder, site). start(kind) starts `mkdocs build` ("build"),
    `python -m sitebuild accept` ("accept") or `mkdocs serve` ("serve", on a free port) in a process group of
    its own and returns it once the first `sleeps` blocks sleep; ready(build), if given, is called first, in the
    wait's loop, until it returns True (serve: once it serves, it is made to rebuild with a sleep).
    """
    markers = [f"121.{secrets.randbelow(10**6):06d}", f"122.{secrets.randbelow(10**6):06d}"]
    bash = fence(f"echo started\nsleep {markers[0]}\necho slept", "bash", timeout="300")
    python = fence(f"import subprocess\nprint('started', flush=True)\nsubprocess.run(['sleep', '{markers[1]}'])",
                   timeout="300")
    site = make_site({"index.md": page(bash), "python.md": page(python, title="Python")})
    site.options(block_jobs=2)
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    builds = []

    def start(kind: str, ready=lambda build: True, sleeps: int = 2) -> subprocess.Popen:
        command = {"build": [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(site.config), "-d",
                             str(site.out)],
                   "accept": [sys.executable, "-m", "sitebuild", "accept", "-f", str(site.config)],
                   "serve": [sys.executable, "-m", "mkdocs", "serve", "--no-strict", "-f", str(site.config),
                             "--dev-addr", f"127.0.0.1:{free_port()}"]}[kind]
        with open(tmp_path / f"{kind}.log", "wb") as log:
            build = subprocess.Popen(command, cwd=REPO_ROOT, env={**subprocess_env(), "TMPDIR": str(temporary)},
                                     stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        build.log = tmp_path / f"{kind}.log"
        builds.append(build)
        deadline = time.monotonic() + COMMAND_TIMEOUT  # a bound on a stuck start, never expected to be reached
        while not (ready(build) and all(sleeping(marker) for marker in markers[:sleeps])):
            assert build.poll() is None, build.log.read_text(encoding="utf-8")
            assert time.monotonic() < deadline, "the blocks never started"
            time.sleep(0.05)
        return build

    yield start, markers, temporary, site
    for build in builds:  # a test that failed leaves nothing running: the build, then its blocks
        if build.poll() is None:  # not reaped yet, so its group's id is still its own
            os.killpg(build.pid, signal.SIGKILL)
            build.wait()
    for pid in processes(markers, temporary):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def interrupted(build: subprocess.Popen, signum: int, *, group: bool) -> tuple[int, str]:
    """Send signum to the build (to its process group, as a terminal's Ctrl-C does, or to it alone) and wait
    PROMPT seconds for its exit: (exit code, output)."""
    (os.killpg if group else os.kill)(build.pid, signum)
    try:
        code = build.wait(timeout=PROMPT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the build still ran {PROMPT} s after {signal.Signals(signum).name}:\n"
                    + build.log.read_text(encoding="utf-8"))
    return code, build.log.read_text(encoding="utf-8")


def assert_stopped(code: int, output: str, signum: int, markers: list[str], temporary: Path, serve=False) -> None:
    name = signal.Signals(signum).name
    assert code == (0 if serve else 128 + signum), output  # Ctrl-C is how one ends serve: MkDocs exits 0
    lines = [line for line in output.splitlines() if "interrupted" in line.lower()]
    assert len(lines) == 1, output
    blocks = 1 if serve else 2  # serve: the bash block only
    assert lines[0].startswith(f"ERROR   -  verified-blocks: Build interrupted by {name}: killed {blocks} running")
    assert "docs/index.md bash-" in lines[0] and ("docs/python.md python: " in lines[0]) != serve, lines[0]
    assert "sleep" in lines[0] and lines[0].endswith("temporary folders removed."), lines[0]
    assert ("Shutting down..." in output) == serve, output
    for noise in ("Traceback", "KeyboardInterrupt", "Aborted!"):
        assert noise not in output, output
    assert processes(markers, temporary) == [], "a block's process outlived the build"
    assert sorted(path.name for path in temporary.iterdir()) == [], "the build left temporary folders"


def test_sigint_to_the_build_kills_its_blocks_at_once_and_exits_130(sleepers):
    start, markers, temporary, _ = sleepers
    build = start("build")

    code, output = interrupted(build, signal.SIGINT, group=True)

    assert_stopped(code, output, signal.SIGINT, markers, temporary)


def test_sigterm_to_the_build_kills_its_blocks_at_once_and_exits_143(sleepers):
    start, markers, temporary, _ = sleepers
    build = start("build")

    code, output = interrupted(build, signal.SIGTERM, group=False)

    assert_stopped(code, output, signal.SIGTERM, markers, temporary)


def test_sighup_to_the_build_kills_its_blocks_at_once_and_exits_129(sleepers):
    # Some CI runners cancel a job with SIGHUP: before issue 35 it killed the build alone, and the blocks ran on.
    start, markers, temporary, _ = sleepers
    build = start("build")

    code, output = interrupted(build, signal.SIGHUP, group=False)

    assert_stopped(code, output, signal.SIGHUP, markers, temporary)


@pytest.mark.parametrize("sandbox", ["1", "0"])
def test_sigkill_to_the_build_leaves_none_of_its_blocks_running(sleepers, monkeypatch, sandbox):
    # Nothing can catch SIGKILL: what ends the blocks is the kernel (bubblewrap's --die-with-parent, the launcher's
    # PR_SET_PDEATHSIG). The scratch folders stay (no one is left to remove them): temporary is not checked.
    monkeypatch.setenv("SITEBUILD_SANDBOX", sandbox)
    start, markers, temporary, _ = sleepers
    build = start("build")

    build.kill()
    build.wait()

    deadline = time.monotonic() + PROMPT  # a bound on the kernel's kill, never a measure of its speed
    while processes(markers, temporary) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert processes(markers, temporary) == [], "a block's process outlived the killed build"


def test_sigterm_to_accept_kills_its_blocks_approves_nothing_and_exits_143(sleepers):
    start, markers, temporary, site = sleepers
    build = start("accept")

    code, output = interrupted(build, signal.SIGTERM, group=False)

    assert_stopped(code, output, signal.SIGTERM, markers, temporary)  # its site folder, in temporary, is gone too
    assert not site.data.exists()


def test_sigint_to_serve_kills_the_blocks_of_its_rebuild_at_once(sleepers):
    start, markers, temporary, site = sleepers
    slow = site.docs.joinpath("index.md").read_text(encoding="utf-8")
    site.page("index.md", slow.replace(f"sleep {markers[0]}", "true"))  # serve starts with blocks that end at once
    site.page("python.md", page(fence("print('quick')"), title="Python"))

    def rebuilds_with_the_sleep(build) -> bool:
        if "Serving on" not in build.log.read_text(encoding="utf-8"):
            return False
        if site.docs.joinpath("index.md").read_text(encoding="utf-8") != slow:
            site.page("index.md", slow)
        return True

    build = start("serve", rebuilds_with_the_sleep, sleeps=1)

    code, output = interrupted(build, signal.SIGINT, group=True)

    assert_stopped(code, output, signal.SIGINT, markers, temporary, serve=True)  # serve's site folder is gone too


def test_a_stopped_pool_kills_its_running_block_runs_no_more_and_removes_the_scratch_folder(tmp_path, monkeypatch):
    # The core alone, as the hook's handler uses it: no MkDocs, no signal.
    import tempfile

    from sitebuild.find.blocks import page_blocks
    from sitebuild.run.launchers import PagePool, Stopped
    from sitebuild.verify.outputs import run_blocks

    marker = f"123.{secrets.randbelow(10**6):06d}"
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))  # where run_blocks makes the page's scratch folder
    slow = page_blocks(page(fence(f"sleep {marker}\necho slept", "bash", timeout="300"), fence("print('never')")))
    pool = PagePool(1)
    running = pool.submit(run_blocks, slow, tmp_path, "docs/a.md", 60)
    queued = pool.submit(run_blocks, page_blocks(page(fence("print('never')"))), tmp_path, "docs/b.md", 60)
    deadline = time.monotonic() + COMMAND_TIMEOUT  # a bound on a stuck start, never expected to be reached
    while not sleeping(marker):
        assert not running.done() and time.monotonic() < deadline, running
        time.sleep(0.01)

    stop = pool.stop()
    pool.close()

    assert (stop.blocks, stop.not_started, stop.ended) == ([(f"docs/a.md {slow[0].key}", ("bash", "sleep"))], 1, True)
    with pytest.raises(Stopped):
        running.result()
    assert queued.cancelled()
    assert processes([marker], temporary) == []
    assert list(temporary.iterdir()) == []
