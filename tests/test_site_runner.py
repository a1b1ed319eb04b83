"""sitebuild.run.runner: bash blocks with pipefail and a timeout, python blocks in one interpreter per page."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from sitebuild.run.capture import relative
from sitebuild.run.leaks import machine_values
from sitebuild.run.runner import (
    MARK_ENV,
    PageSession,
    _leftovers,
    block_env,
    run_bash,
    start_time,
)

# Bash ------------------------------------------------------------------------------------------------


def test_run_bash_captures_stdout_and_stderr_together(tmp_path):
    result = run_bash("echo out; echo err >&2; echo out again", tmp_path, 30)

    assert result.problem == ""
    assert result.output == "out\nerr\nout again\n"


@pytest.mark.parametrize(
    ("code", "problem"),
    [
        pytest.param("false | cat", "exited with code 1", id="failing-command-before-a-pipe"),
        pytest.param("python -c 'import sys; print(\"1 failed\"); sys.exit(1)' | tail -n 1", "exited with code 1",
                     id="python-before-tail"),
        pytest.param("exit 3", "exited with code 3", id="exit"),
        pytest.param("false\necho never", "exited with code 1", id="errexit"),
    ],
)
def test_run_bash_fails_on_any_failing_command(code, problem, tmp_path):
    result = run_bash(code, tmp_path, 30)

    assert result.problem == problem
    assert "never" not in result.output


def test_run_bash_passes_when_every_command_of_a_pipe_passes(tmp_path):
    result = run_bash("printf 'a\\nb\\nc\\n' | tail -n 1", tmp_path, 30)

    assert result == type(result)("c\n", "")


def test_run_bash_times_out_and_keeps_what_was_printed(tmp_path):
    result = run_bash("echo started; sleep 60; echo never", tmp_path, 1)

    assert result.problem == "timed out after 1 s"
    assert result.output == "started\n"


def test_run_bash_kills_what_a_timed_out_block_started(tmp_path, monkeypatch):
    monkeypatch.setenv("SITEBUILD_SANDBOX", "0")  # the reaper's own kill; $! in a PID namespace is not this pid
    pid_file = tmp_path / "background.pid"

    result = run_bash(f"sleep 60 & echo $! > {pid_file}; sleep 60", tmp_path, 1)

    assert result.problem == "timed out after 1 s"
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 30  # a bound for the kernel to reap it, not a measure of speed
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(pid), f"the block's background process {pid} survived its timeout"


def test_a_leftover_caught_in_the_middle_of_an_exec_is_read_again_until_its_environment_shows():
    # A process that left the session (setsid) and is in the middle of an exec shows an empty environment until
    # the new program's is set up; on a busy machine a scan can catch one there (2 in 1,600 runs of a page with a
    # `setsid sleep &` block and a `Popen(..., start_new_session=True)` block, 4 at a time on 2 cores). This one
    # stands in for it for 0.2 s: it starts with no environment, then execs into a program carrying the mark.
    mark = f"test {os.getpid()}"
    then_exec = ("import os, time; time.sleep(0.2); "
                 f"os.execve('/bin/sleep', ['sleep', '30'], {{'{MARK_ENV}': '{mark}'}})")
    process = subprocess.Popen([sys.executable, "-c", then_exec], env={}, start_new_session=True,
                               stdin=subprocess.DEVNULL)
    try:
        found = _leftovers(0, mark, start_time(process.pid))  # 0: no session to match, only the mark
    finally:
        process.kill()
        process.wait()

    assert [pid for pid, _ in found] == [process.pid]


def test_session_zero_is_no_blocks_session(monkeypatch):
    # Under an init that never called setsid (a container's, CI's sandbox), every process outside a session of
    # its own reports session 0; a scan given session 0 took another test's children for its own (CI, 2026-12-01).
    import sitebuild.run.leftovers as leftovers

    process = subprocess.Popen(["sleep", "30"], stdin=subprocess.DEVNULL)
    real = leftovers.proc_stat

    def in_session_zero(pid):
        name, fields = real(pid)
        if pid == process.pid:
            fields = [*fields[:3], b"0", *fields[4:]]  # fields[3] is field 6, the session
        return name, fields

    monkeypatch.setattr(leftovers, "proc_stat", in_session_zero)
    try:
        found = _leftovers(0, f"test {os.getpid()} none", start_time(process.pid))
    finally:
        process.kill()
        process.wait()

    assert found == []


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie has exited: only its entry in the process table is left
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_run_bash_runs_from_the_root_with_relative_paths(tmp_path):
    (tmp_path / "notes.txt").write_text("kept\n")

    result = run_bash("pwd; echo $PWD; realpath notes.txt; cat notes.txt", tmp_path, 30)

    assert result.output == ".\n.\nnotes.txt\nkept\n"


def test_run_bash_finds_this_python_first(tmp_path):
    result = run_bash("python -c 'import sys; print(sys.executable)'", tmp_path, 30)

    assert Path(result.output.strip()).parent == Path(sys.executable).parent


def test_block_env_is_the_same_on_every_machine(tmp_path, monkeypatch):
    monkeypatch.setenv("MKDOCS_CONFIG_DIR", "/somewhere")
    monkeypatch.setenv("FORCE_COLOR", "1")

    env = block_env(tmp_path)

    assert env["PATH"].split(os.pathsep)[0] == str(Path(sys.executable).parent)
    assert (env["PYTHONHASHSEED"], env["TZ"], env["LC_ALL"], env["COLUMNS"], env["PWD"]) == (
        "0", "UTC", "C.UTF-8", "100", str(tmp_path)
    )
    assert "MKDOCS_CONFIG_DIR" not in env and "FORCE_COLOR" not in env


# Python ----------------------------------------------------------------------------------------------


def test_python_blocks_of_a_session_share_one_namespace(tmp_path):
    with PageSession(tmp_path) as session:
        first = session.run("x = 21\ndef double(n):\n    return 2 * n", "<docs/a.md block 1>", 30)
        second = session.run("print(double(x))", "<docs/a.md block 2>", 30)

    assert (first.output, first.problem) == ("", "")
    assert (second.output, second.problem) == ("42\n", "")


def test_each_session_is_a_fresh_interpreter(tmp_path):
    with PageSession(tmp_path) as session:
        session.run("import json\nx = 1\njson.marker = 'set on page one'", "<a>", 30)
    with PageSession(tmp_path) as session:
        result = session.run("import json\nprint(hasattr(json, 'marker'))\nprint(x)", "<b>", 30)

    assert result.problem == "raised NameError: name 'x' is not defined"
    assert result.output.startswith("False\n")


def test_a_block_output_is_only_its_own(tmp_path):
    with PageSession(tmp_path) as session:
        session.run("print('first block, a long line of output')", "<a>", 30)
        result = session.run("print('second')", "<b>", 30)

    assert result.output == "second\n"


def test_classes_defined_in_a_block_live_in_main(tmp_path):
    with PageSession(tmp_path) as session:
        result = session.run(
            "from dataclasses import dataclass\n@dataclass\nclass P:\n    x: int\nprint(P(1), P.__module__)", "<a>", 30
        )

    assert result.output == "P(x=1) __main__\n"


def test_everything_a_block_writes_is_captured(tmp_path):
    (tmp_path / "chatty.py").write_text("def speak():\n    print('from an imported module')\n")
    code = (
        "import chatty, os, subprocess, sys\n"
        "chatty.speak()\n"
        "print('to stderr', file=sys.stderr)\n"
        "os.system('echo from os.system')\n"
        "subprocess.run(['echo', 'from subprocess.run'], check=True)\n"
        "print('last')\n"
    )

    with PageSession(tmp_path) as session:
        result = session.run(code, "<a>", 30)

    assert result.problem == ""
    assert result.output == "from an imported module\nto stderr\nfrom os.system\nfrom subprocess.run\nlast\n"


def test_an_exception_is_the_problem_and_its_traceback_the_output(tmp_path):
    with PageSession(tmp_path) as session:
        result = session.run("x = 1\nraise ValueError('bad value')", "<docs/a.md block 1 (python, line 3)>", 30)
        after = session.run("print(x)", "<b>", 30)

    assert result.problem == "raised ValueError: bad value"
    assert 'File "<docs/a.md block 1 (python, line 3)>", line 2' in result.output
    assert "raise ValueError('bad value')" in result.output
    assert result.output.rstrip().endswith("ValueError: bad value")
    assert after.output == "1\n"  # the interpreter goes on


@pytest.mark.parametrize(
    ("code", "problem"),
    [
        ("raise SystemExit", "raised SystemExit"),
        ("raise SystemExit(0)", "raised SystemExit: 0"),
        ("import sys\nsys.exit('stopped')", "raised SystemExit: stopped"),
        ("raise KeyboardInterrupt", "raised KeyboardInterrupt"),
    ],
)
def test_a_block_cannot_exit_the_session(code, problem, tmp_path):
    with PageSession(tmp_path) as session:
        result = session.run(code, "<a>", 30)
        after = session.run("print('still here')", "<b>", 30)

    assert result.problem == problem
    assert (after.output, after.problem) == ("still here\n", "")


def test_a_block_that_ends_the_interpreter_ends_the_session(tmp_path):
    with PageSession(tmp_path) as session:
        result = session.run("print('bye', flush=True)\nimport os\nos._exit(3)", "<docs/a.md block 1>", 30)
        after = session.run("print('never')", "<docs/a.md block 2>", 30)

    assert result.problem == "ended the Python interpreter (exit code 3)"
    assert result.output == "bye\n"
    assert after.problem == (
        "not run: an earlier block ended the page's Python interpreter (<docs/a.md block 1>)"
    )


def test_a_block_that_times_out_ends_the_session(tmp_path):
    with PageSession(tmp_path) as session:
        result = session.run("print('started')\nimport time\ntime.sleep(60)", "<docs/a.md block 1>", 1)
        after = session.run("print('never')", "<docs/a.md block 2>", 30)

    assert result.problem == "timed out after 1 s"
    assert result.output == "started\n"
    assert after.problem == "not run: an earlier block of this page timed out (<docs/a.md block 1>)"
    assert after.output == ""


def test_python_blocks_run_from_the_root_with_relative_paths(tmp_path):
    (tmp_path / "here.py").write_text("")

    with PageSession(tmp_path) as session:
        result = session.run("import os, here\nprint(os.getcwd())\nprint(here.__file__)", "<a>", 30)

    assert result.output == ".\nhere.py\n"


def test_close_is_safe_twice_and_without_a_run(tmp_path):
    session = PageSession(tmp_path)
    session.close()
    session.run("print(1)", "<a>", 30)
    session.close()
    session.close()


# Paths and machine values ----------------------------------------------------------------------------


def test_relative_makes_the_root_relative():
    root = Path("/x/repo")

    assert relative("/x/repo/kit/a.py", root) == "kit/a.py"
    assert relative('File "/x/repo/kit/a.py", line 3, in /x/repo', root) == 'File "kit/a.py", line 3, in .'
    assert relative("Saved in /x/repo.", root) == "Saved in .."
    assert relative("nothing here", root) == "nothing here"


def test_relative_leaves_paths_that_only_start_like_the_root():
    root = Path("/x/repo")

    assert relative("/x/repo2/a.py /x/repo-old /x/repo.bak", root) == "/x/repo2/a.py /x/repo-old /x/repo.bak"


def test_relative_knows_the_root_by_its_real_path_too(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)

    assert relative(f"{real}/a.py {link}/b.py", link) == "a.py b.py"


def test_machine_values_finds_memory_addresses():
    assert machine_values("<object object at 0x7f3a2b1c9d40>") == ["0x7f3a2b1c9d40"]


def test_machine_values_finds_paths_of_this_machine():
    temp = os.path.join(tempfile.gettempdir(), "cache.db")
    venv = os.path.join(sys.prefix, "lib", "x.py")
    home = os.path.join(str(Path.home()), "notes.txt")

    assert tempfile.gettempdir() + os.sep + "... (the temporary folder)" in machine_values(f"saved to {temp}")
    assert sys.prefix + os.sep + "... (the Python installation)" in machine_values(venv)
    assert str(Path.home()) + os.sep + "... (the home folder)" in machine_values(home)


def test_machine_values_lets_stable_output_pass():
    assert machine_values("status 0x1F, flags 0x00ff, kit/evidencedesk/agent/loop.py, 12 tokens") == []
