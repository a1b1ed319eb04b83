"""Issue 35: what a block does ends with its page, and nothing it writes reaches what the build reads or publishes.

Each test is one way past a promise of the README (its authoring reference, now CONTRIBUTING.md) that a build of
419d581 (main before the sandbox) let through: a strict failure that left site/ full, a .pth file in the venv, an
approved file rewritten in place with its old mtime, a notebook cell run without the page's shell options, a FIFO or
a link loop under kit/ that hung the block inputs' digest, a secret joined by a carriage return, a block that kills
its launcher and writes later, a block's memory. Where it matters, a test runs both with the sandbox (bubblewrap,
sandbox.py) and without it (SITEBUILD_SANDBOX=0), so that the nets that stay where bubblewrap cannot start are
tested too.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from pathlib import Path

import pytest

from sitebuild.find.blocks import Block
from sitebuild.find.inputs import Inputs
from sitebuild.publish.notebooks import cell_source
from sitebuild.run import capture, sandbox
from tests.conftest import COMMAND_TIMEOUT, fence, page

pytestmark = pytest.mark.site

BOUND = 60  # seconds a walk that must not hang may take: a bound on a hang, never a measure of speed


@pytest.fixture(params=["sandbox", "no sandbox"])
def protection(request, monkeypatch):
    """Run the test with the sandbox where bubblewrap works, and without it (the nets that stay)."""
    if request.param == "no sandbox":
        monkeypatch.setenv(sandbox.SANDBOX_ENV, "0")
    else:
        monkeypatch.delenv(sandbox.SANDBOX_ENV, raising=False)
    return request.param


@pytest.fixture
def boxed():
    """The sandbox on (these tests are about what only a PID namespace holds)."""
    assert sandbox.status()[0], f"bubblewrap must work here (Debian: apt-get install bubblewrap): {sandbox.status()}"
    return True


# 1. A strict failure empties site/ --------------------------------------------------------------------------


def test_a_broken_link_a_block_printed_fails_the_strict_build_and_empties_the_site(make_site):
    block = fence("print('[the answers](nowhere.md)')", output="markdown")
    site = make_site({"index.md": page(block)})
    site.accept()

    built = site.build("--strict")

    assert built.code != 0 and "nowhere.md" in built.output, built
    assert list(site.out.iterdir()) == [], "a failed strict build left the site to publish"
    assert "was emptied" in built.output, built


# 3. A .pth file in the venv -----------------------------------------------------------------------------------


def test_a_block_cannot_leave_a_python_start_up_file_in_the_venv(make_site, protection):
    folder = Path(sysconfig.get_paths()["purelib"])
    name = f"sitebuild-attack-{secrets.token_hex(4)}.pth"
    code = f"import pathlib\npathlib.Path({str(folder / name)!r}).write_text('# harmless here\\n')\nprint('wrote')"
    site = make_site({"index.md": page(fence(code))})
    try:
        built = site.build()

        assert built.code != 0, built
        assert not (folder / name).exists(), "the block's .pth file stayed: the next build would run it"
        expected = "Read-only file system" if protection == "sandbox" else f"{name} (a Python start-up file, created"
        assert expected in built.output, built.output
    finally:
        (folder / name).unlink(missing_ok=True)


# 4. An approved file rewritten in place, its mtime put back -----------------------------------------------------


REWRITE = """\
import os, pathlib
if pathlib.Path('switch').exists():
    path = pathlib.Path('data/z.txt')  # the approved outputs of a page rendered after this one
    status = path.stat()
    with open(path, 'r+') as approved:  # in place: same inode, same size
        text = approved.read().replace('value AAAA', 'value BBBB')
        approved.seek(0)
        approved.write(text)
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))
print('checked')
"""
SWITCHED = "import pathlib\nprint('value BBBB' if pathlib.Path('switch').exists() else 'value AAAA')"


def test_an_approved_file_rewritten_in_place_with_its_old_mtime_fails_the_build(make_site, protection):
    # MkDocs renders index.md before z.md, and index.md's blocks have ended before it renders: on main, z.md's
    # approved file was read after the rewrite, and the guard compared only mtime, size and inode.
    site = make_site({"index.md": page(fence(REWRITE)), "z.md": page(fence(SWITCHED), title="Z")})
    site.accept()
    approved = site.approved("z.md")
    site.write("switch", "on\n")

    built = site.build()

    assert built.code != 0, built
    assert "BBBB" not in "".join(p.read_text(errors="replace") for p in site.out.rglob("*.html")), "published"
    if protection == "no sandbox":  # the sandbox refuses the write itself; without it, the build finds it
        assert "data/z.txt changed while the blocks ran" in built.output, built.output
    else:
        assert site.approved("z.md") == approved and "Read-only file system" in built.output, built.output


# 5. Notebook cells run with the page's shell options ------------------------------------------------------------


def test_a_notebook_bash_cell_stops_where_the_pages_block_stops(tmp_path):
    cell = cell_source(Block(1, 1, "bash", "false | cat\necho never-$((6 * 7))"))
    script = ("from IPython.core.interactiveshell import InteractiveShell\n"
              f"result = InteractiveShell.instance().run_cell({cell!r})\n"
              "print('failed' if result.error_in_exec else 'passed')\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path,
                          timeout=COMMAND_TIMEOUT, check=False)

    assert "never-42" not in done.stdout, done.stdout  # the page's block stops at the failing pipe
    assert done.stdout.strip().endswith("failed"), done.stdout + done.stderr


# 6, 7. The block inputs' digest reads regular files only and follows no link -------------------------------------


def _walk_within_bound(root: Path) -> Inputs:
    found: list[Inputs] = []
    walker = threading.Thread(target=lambda: found.append(Inputs(root, ["kit"])), daemon=True)
    walker.start()
    walker.join(BOUND)
    assert found, f"the block inputs' digest did not end within {BOUND} s (it hangs)"
    return found[0]


def test_an_untracked_named_pipe_under_the_kit_does_not_hang_the_digest_and_is_named(tmp_path):
    (tmp_path / "kit").mkdir()
    (tmp_path / "kit" / "module.py").write_text("x = 1\n")
    os.mkfifo(tmp_path / "kit" / "pipe")

    inputs = _walk_within_bound(tmp_path)

    assert inputs.skipped == ["kit/pipe (not a regular file, not read)"]
    assert inputs.digest("kit/module.py").startswith("c:")


def test_links_to_their_own_folder_under_the_kit_do_not_hang_the_digest(tmp_path):
    (tmp_path / "kit" / "a").mkdir(parents=True)
    (tmp_path / "kit" / "a" / "module.py").write_text("x = 1\n")
    os.symlink("..", tmp_path / "kit" / "a" / "up")
    os.symlink(".", tmp_path / "kit" / "a" / "here")
    os.symlink("/etc", tmp_path / "kit" / "out")

    inputs = _walk_within_bound(tmp_path)

    assert sorted(inputs.skipped) == ["kit/a/here (a symbolic link, not walked)",
                                      "kit/a/up (a symbolic link, not walked)",
                                      "kit/out (a symbolic link, not walked)"]
    assert not [path for path in inputs.entries if path.startswith(("kit/out/", "kit/a/up/", "kit/a/here/"))]


def test_a_named_pipe_a_block_leaves_among_its_read_records_does_not_hang_the_build(make_site, protection):
    # The run's own processes write its read records (audit.py), so its folder is writable in the sandbox too, and
    # SITEBUILD_READS names it; the builder read each record named py.* after the run, and open() of a FIFO with no
    # writer waits for ever ("py.0..." sorts before the worker's own "py.<pid>..." record).
    name = f"py.0attack{secrets.token_hex(4)}"
    code = f"import os\nos.mkfifo(os.path.join(os.environ['SITEBUILD_READS'], {name!r}))\nprint('made')"
    site = make_site({"index.md": page(fence(code))})
    built: list = []
    builder = threading.Thread(target=lambda: built.append(site.build()), daemon=True)
    try:
        builder.start()
        builder.join(BOUND)

        assert built, f"the build did not end within {BOUND} s: it waits on the block's named pipe"
        assert "has no approved output yet" in built[0].output, built[0]
    finally:
        for fifo in Path(tempfile.gettempdir()).glob(f"sitebuild-reads-*/*/{name}"):  # a hung build: let it go
            with contextlib.suppress(OSError):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        builder.join(BOUND)


# 8. Redaction of the text as shown --------------------------------------------------------------------------------


def test_a_secret_joined_by_a_carriage_return_is_removed(monkeypatch):
    secret = "Zq8-wT4k-P2x9-Lm7"
    monkeypatch.setenv("ATTACK35_API_KEY", secret)
    printed = f"{'x' * 9}{secret[9:]}\r{secret[:9]}\n".encode()

    output = capture.captured(printed, Path("/nonexistent-root"))

    assert "[value of $ATTACK35_API_KEY removed]" in output and secret not in output.replace("\r", "")
    from sitebuild.verify.approved import clean
    assert secret not in clean(output)


# 2 and the attacker's escape: nothing outlives its run ---------------------------------------------------------------


def _marked(marker: str) -> list[int]:
    """Live processes whose command line holds marker (zombies show none)."""
    found = []
    for name in os.listdir("/proc"):
        with contextlib.suppress(OSError):
            if name.isdigit() and marker.encode() in Path(f"/proc/{name}/cmdline").read_bytes():
                found.append(int(name))
    return found


def _gone(marker: str) -> bool:
    """True once nothing carrying marker runs; a bound on the wait, never an assertion about its speed."""
    deadline = time.monotonic() + BOUND
    while _marked(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not _marked(marker)


def test_a_block_that_kills_its_launcher_then_writes_later_finds_nothing_to_write_into(make_site, boxed):
    marker = f"77.{secrets.randbelow(10**6):06d}"
    site = make_site()
    target = site.out / "pwned.html"
    # env -i drops the block's mark (SITEBUILD_BLOCK) and setsid its session: the scan by mark and session, the
    # only net left once the reaper is dead, finds neither (README, before issue 35: "can still get away").
    code = (f"setsid env -i bash -c 'sleep {marker}; echo pwned > {target}' &\n"
            f"nohup setsid env -i sleep {marker} > /dev/null 2>&1 &\n"
            "sleep 0.2\necho started\nkill -9 $PPID")
    site.page("index.md", page(fence(code, "bash")))
    try:
        built = site.build()

        assert built.code != 0, built  # its launcher was killed: the block did not end as a block ends
        assert _gone(marker), "a process of the block outlived its launcher's death"
        assert not target.exists()
    finally:
        for pid in _marked(marker):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, 9)


def test_a_block_that_forks_busy_loops_is_ended_whole_at_its_timeout(make_site, protection):
    marker = f"spin{secrets.token_hex(4)}"
    code = (f"bash -c 'while :; do :; done' {marker} &\n"
            f"setsid bash -c 'while :; do :; done' {marker} &\n"
            f"echo spinning\nexec -a {marker} bash -c 'while :; do :; done'")
    site = make_site({"index.md": page(fence(code, "bash", timeout="2"))})
    try:
        built = site.build()

        assert built.code != 0 and "timed out after 2 s" in built.output, built
        assert _gone(marker), "a process the block forked still runs after its timeout"
    finally:
        for pid in _marked(marker):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, 9)


# The sandbox's own promises ---------------------------------------------------------------------------------------


def test_a_block_that_writes_into_the_repo_fails_naming_the_read_only_sandbox(make_site, boxed):
    site = make_site({"index.md": page(fence("echo oops > docs/new.md\necho wrote", "bash"))})

    built = site.build()

    assert built.code != 0 and not (site.docs / "new.md").exists(), built
    assert "which the sandbox keeps read-only" in built.output, built


def test_a_block_cannot_open_the_kernels_settings_for_writing(make_site, boxed):
    # Run as root (a container's CI), a block without capabilities could still write /proc/sys: bwrap covers it only
    # where its check says it is writable, and /proc/sys itself reads as not writable even to root. core_pattern
    # names a program the kernel runs as root outside every namespace. The block only opens and closes: it writes
    # nothing, even where the open succeeds.
    code = ("import os\n"
            "for path in ('/proc/sys/kernel/core_pattern', '/proc/sys/vm/overcommit_memory'):\n"
            "    try:\n        os.close(os.open(path, os.O_WRONLY))\n        print(path, 'open for writing')\n"
            "    except OSError:\n        print(path, 'refused')")
    site = make_site({"index.md": page(fence(code))})

    site.accept()

    assert site.approved().count("refused") == 2, site.approved()


def test_a_block_cannot_connect_to_a_unix_socket_outside_run(make_site, boxed, tmp_path):
    # --unshare-net hides abstract sockets and the empty /run hides the daemons' own, but a socket file anywhere else
    # takes connections through the read-only view: tmux's /tmp/tmux-UID/default ran any command a block sent it,
    # outside the sandbox (`tmux run-shell 'echo pwned > site/index.html'`); ssh-agent's and gpg-agent's are others.
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(tmp_path / "daemon.sock"))
    listener.listen(1)
    code = ("import asyncio, socket\n"
            f"try:\n    socket.socket(socket.AF_UNIX).connect({str(tmp_path / 'daemon.sock')!r})\n"
            "    print('connected')\n"
            "except OSError as error:\n    print('refused:', type(error).__name__)\n"
            "left, right = socket.socketpair()  # asyncio's own wake-up pair, multiprocessing's Pipe\n"
            "left.send(b'x')\nprint('socketpair:', right.recv(1))\n"
            "print('asyncio:', asyncio.run(asyncio.sleep(0, 'ran')))")
    site = make_site({"index.md": page(fence(code))})
    try:
        site.accept()
    finally:
        listener.close()

    assert "refused: PermissionError\nsocketpair: b'x'\nasyncio: ran" in site.approved(), site.approved()


def test_a_block_cannot_trace_or_open_its_launcher(make_site, boxed):
    # The launcher is the namespace's first process: a block that could ptrace it (same uid, no capabilities on either
    # side, so the kernel allowed it) could make it call setsid() and exec a program of its own (gdb -p 1 -batch -ex
    # 'call (int)setsid()' -ex 'call (int)execle("/bin/sleep", "sleep", "600", 0, 0)'), which then outlived its page:
    # stopped, in a session and environment the builder's scans do not know, or running if the builder was killed.
    probe = ("import ctypes; libc = ctypes.CDLL(None, use_errno=True); "
             "print('attached' if libc.ptrace(0x4206, 1, 0, 0) == 0 else 'refused')")  # PTRACE_SEIZE: never stops it
    code = ("import subprocess, sys\n"
            f"done = subprocess.run([sys.executable, '-c', {probe!r}], capture_output=True, text=True)\n"
            "print('ptrace:', done.stdout.strip())\n"
            "for path in ('/proc/1/mem', '/proc/1/fd/0'):\n"
            "    try:\n        open(path, 'rb').close()\n        print(path, 'opened')\n"
            "    except OSError:\n        print(path, 'refused')")
    site = make_site({"index.md": page(fence(code))})

    site.accept()

    assert site.approved().count("refused") == 3, site.approved()


def test_a_block_has_no_network_and_cannot_see_the_builders_processes(make_site, boxed):
    # Outside the sandbox, 192.0.2.1 (TEST-NET-1) times out (TimeoutError); inside, no route exists at all (OSError);
    # and /proc shows the builder (this pytest), whose environment holds the builder's secrets.
    builder = Path("/proc/self/cmdline").read_bytes()
    code = ("import os, socket\n"
            "seen = [p for p in os.listdir('/proc')\n"
            f"        if p.isdigit() and open(f'/proc/{{p}}/cmdline', 'rb').read() == {builder!r}]\n"
            "try:\n    socket.create_connection(('192.0.2.1', 80), timeout=5)\nexcept OSError as error:\n"
            "    print('no network:', type(error).__name__)\nprint('builder processes seen:', len(seen))")
    site = make_site({"index.md": page(fence(code))})

    accepted = site.accept()

    assert "no network: OSError\nbuilder processes seen: 0" in site.approved(), accepted


def test_the_build_says_once_which_protection_it_has(make_site, protection):
    site = make_site({"index.md": page(fence("print(1)"))})
    site.accept()

    built = site.build()

    lines = [line for line in built.output.splitlines() if "sandbox: " in line]
    assert len(lines) == 1, built
    assert ("run in bubblewrap" in lines[0]) == (protection == "sandbox"), lines


# 3 (memory): a runaway block fails naming the limit --------------------------------------------------------------


def test_a_block_over_the_pages_memory_limit_fails_naming_the_limit(make_site, protection):
    site = make_site({"index.md": page(fence("data = bytearray(900 * 2**20)\nprint(len(data))"))})
    site.options(block_memory=300)

    built = site.build()

    assert built.code != 0 and "MemoryError" in built.output, built
    assert "limit is 300 MB per process (block_memory, an option of the verified-blocks plugin" in built.output, built
