"""Run a page's code blocks: python in one fresh interpreter per page, bash with pipefail.

Both kinds run from the repo root (or a block's workdir), with everything written to stdout and
stderr captured, a timeout, and an environment the site defines (block_env): only what a block
needs passes through from the builder (PATH, HOME, the venv), the temporary folder is the page's run's
own, and everything that can change an output is fixed: buffering, colour, locale, width, hash seed,
time zone. The venv's bin
folder comes first on PATH, so `python -m pytest` in a bash block runs the site's own Python.

An output is plain text, relative to the repo root and with the builder's secrets removed, as capture.py
makes it; an output that still holds a machine-specific value is reported by verify/outputs.py (leaks.py).

A bash block ends when its shell ends: processes it left running are killed then, and named. Processes
python blocks started are killed when the page's session closes, and named too. Both kinds run under
reaper.py, a child subreaper, so whatever they start stays below it, whatever it does to its session,
environment or parent; a scan by session and by mark (MARK_ENV) stays as a second net. launchers.py starts
and ends those launchers, and stops every running one at once when the build is interrupted (SIGINT, SIGTERM).

Left out: caching (cache.py decides whether a page runs at all).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import select
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from sitebuild.run import launchers
from sitebuild.run.capture import captured, read_capture, undecodable
from sitebuild.run.launchers import Trace
from sitebuild.run.leftovers import MARK_ENV, _leftovers, kill_leftovers, start_time  # noqa: F401 - used by tests too

WORKER = Path(__file__).with_name("worker.py")
CLOSE_WAIT = 5  # seconds an interpreter asked to exit may take before it is ended: a bound, it needs milliseconds
# The block environment: what passes through from the builder, and what the site fixes.
PASSED_THROUGH = ("HOME", "TMPDIR", "TEMP", "TMP", "SYSTEMROOT")
TEMPORARY = "tmp"  # a run's temporary folder, inside its scratch folder (scratch_env)
FIXED_ENV = {
    "PYTHONHASHSEED": "0",  # set and dict order of strings
    "PYTHONUNBUFFERED": "1",  # stdout and stderr interleave in the order they were written
    "PYTHONDONTWRITEBYTECODE": "1",  # no __pycache__ writes in watched folders, so `make serve` does not loop
    "PYTHONIOENCODING": "utf-8",
    "PYTHONUTF8": "1",
    "LC_ALL": "C.UTF-8",
    "LANG": "C.UTF-8",
    "TZ": "UTC",
    "COLUMNS": "100",  # a block's width option changes it
    "LINES": "40",
    "TERM": "dumb",  # no colour, no cursor movement
    "NO_COLOR": "1",
    "CLICOLOR": "0",
    "PY_COLORS": "0",
}


@dataclass(frozen=True)
class Result:
    """What one block did.

    Attributes:
        output: everything it wrote to stdout and stderr, as plain text, paths made relative to the repo root.
        problem: "" when the block ran cleanly; else why it failed, in a few words.
        exit_code: a bash block's exit code (0 for python blocks).
        killed: names of processes the block left running, killed when it ended; on a page's last python
            block, those the page's python blocks left running, killed when the page's session closed.
        undecodable: "" when what it wrote is valid UTF-8; else where the first invalid byte is (see undecodable()).
    """

    output: str
    problem: str = ""
    exit_code: int = 0
    killed: tuple[str, ...] = ()
    undecodable: str = ""


def scratch_env(scratch: Path) -> dict[str, str]:
    """Where the tools blocks run keep their caches: a scratch folder of the run, never a folder of the site.

    Hypothesis keeps its example database under scratch (HYPOTHESIS_STORAGE_DIRECTORY, read by
    hypothesis.configuration), so a page's run starts with none and writes nothing `make serve` watches;
    pytest runs without its cache plugin (PYTEST_ADDOPTS), so it writes no .pytest_cache; Python writes no
    bytecode (FIXED_ENV's PYTHONDONTWRITEBYTECODE). The temporary folder (TMPDIR, TEMP, TMP) is the run's own,
    scratch/tmp (TEMPORARY; the caller makes it, see verify.run_blocks): pages run at the same time, and a shared
    one lets two pages' files meet (pytest's tmp_path folders under pytest-of-<user>, whose clean-up of another
    run's folders warns "(rm_rf) error removing", which a test count then prints as "1 warning").

    Example: scratch_env(Path("/tmp/s"))["HYPOTHESIS_STORAGE_DIRECTORY"] == "/tmp/s/hypothesis"
    """
    temporary = scratch / TEMPORARY
    return {"HYPOTHESIS_STORAGE_DIRECTORY": str(scratch / "hypothesis"), "PYTEST_ADDOPTS": "-p no:cacheprovider",
            "TMPDIR": str(temporary), "TEMP": str(temporary), "TMP": str(temporary)}


def block_env(root: Path, python: str | None = None, scratch: Path | None = None) -> dict[str, str]:
    """The environment every block runs in, built from scratch (see FIXED_ENV and PASSED_THROUGH).

    Args:
        root: the folder the block runs in; it becomes PWD.
        python: the interpreter blocks use (default: this one); its folder comes first on PATH.
        scratch: the run's scratch folder, where tools keep their caches (scratch_env); None: no such variables
            (the tools keep their caches where they run).

    Returns:
        PATH with this Python's bin folder first, VIRTUAL_ENV when the site runs in a venv, the passed-through
        variables that are set, FIXED_ENV and scratch_env. Nothing else of the builder's environment reaches a block.

    Example: block_env(Path("."))["TZ"] == "UTC"
    """
    env = {name: os.environ[name] for name in PASSED_THROUGH if name in os.environ}
    interpreter = Path(python or sys.executable)
    env["PATH"] = f"{interpreter.parent}{os.pathsep}{os.environ.get('PATH', os.defpath)}"
    if python is not None:
        env["VIRTUAL_ENV"] = str(interpreter.parent.parent)
    elif sys.prefix != sys.base_prefix:
        env["VIRTUAL_ENV"] = sys.prefix
    env.update(FIXED_ENV, PWD=str(root))
    if scratch is not None:
        env.update(scratch_env(scratch))
    return env


def run_bash(code: str, root: Path, timeout: float, *, workdir: str = "", width: int = 100,
             python: str | None = None, mark: str = "", scratch: Path | None = None,
             trace: Trace | None = None, memory: int = 0) -> Result:
    """Run a bash block from the repo root with errexit and pipefail.

    Args:
        code: the block's code.
        root: the repo root (the folder of mkdocs.yml).
        timeout: seconds before the block and everything it started is killed.
        workdir: a folder relative to root to run in ("" for root).
        width: the terminal width in columns (COLUMNS).
        python: the interpreter `python` means in the block (default: this one).
        mark: names the block in its processes' environment (MARK_ENV), e.g. "docs/a.md bash-1a2b3c4d 5e6f";
            it must be unique among what runs on the machine ("": a random one).
        scratch: the run's scratch folder for tools' caches (block_env); None: none.
        trace: (strace, folder): record what the block's processes read into folder (reads.py); None: do not.
        memory: bytes of address space each of the block's processes may take (0: no limit).

    Returns:
        Result with stdout and stderr interleaved; exit_code; problem names a non-zero exit or the timeout.
        The block ends when its shell ends; processes it left running are killed and named in Result.killed.

    Example: run_bash("false | cat", root, 60).problem == "exited with code 1"
    """
    mark = mark or f"bash {secrets.token_hex(8)}"
    cwd = root / workdir if workdir else root
    env = {**block_env(cwd, python, scratch), "COLUMNS": str(width), MARK_ENV: mark}
    # A file, not a pipe: a background process cannot hold it open. The shell runs under the reaper (a child
    # subreaper) in a session of its own, with a umask of 022 (files get the same modes on every machine).
    with tempfile.TemporaryFile() as capture, tempfile.TemporaryFile() as report:
        process = launchers.start(["bash", "-e", "-o", "pipefail", "-c", code], report, mark, trace=trace, cwd=cwd,
                                  env=env, stdout=capture, writable=_writable(scratch), memory=memory)
        started = start_time(process.pid)  # readable until the launcher is waited for
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            launchers.end(process, report)
            kill_leftovers(process.pid, mark, started)
            raw, _ = read_capture(capture)
            return Result(captured(raw, root), f"timed out after {timeout:g} s", -9)
        except BaseException:  # KeyboardInterrupt in the thread that waits: the block ends with it
            launchers.end(process, report)
            kill_leftovers(process.pid, mark, started)
            raise
        finally:
            launchers.ended(process)
        code_, killed = launchers.reported(process, report)
        killed = tuple(sorted(killed + kill_leftovers(process.pid, mark, started)))
        raw, too_much = read_capture(capture)
        output = captured(raw, root)
    return Result(output, too_much or (f"exited with code {code_}" if code_ else ""), code_, killed,
                  "" if too_much else undecodable(raw))


class PageSession:
    """One fresh Python interpreter for the python blocks of one page, shared by them in page order.

    Start it, run blocks with run(), then close(). A block that times out or ends the
    interpreter ends the session: later blocks of the page are not run, and say why.

    Example:
        with PageSession(root) as session: session.run("x = 2", "<page block 1>", 60)
    """

    def __init__(self, root: Path, python: str | None = None, mark: str = "", scratch: Path | None = None,
                 trace: Trace | None = None, memory: int = 0) -> None:
        self.root = root
        self.memory = memory  # bytes of address space each of its processes may take (0: no limit)
        self.trace = trace  # (strace, folder): record what the interpreter and its children read (reads.py)
        self.scratch = scratch  # the run's scratch folder for tools' caches (block_env)
        self.python = python or sys.executable  # the interpreter the page's blocks run in
        self.mark = mark or f"python {secrets.token_hex(8)}"  # names the session's processes (MARK_ENV); unique
        self.ended = ""  # why the session ended early, if it did
        self.killed: tuple[str, ...] = ()  # names of what the page's blocks left running, once the session ended
        self._process: subprocess.Popen | None = None  # the launcher (reaper.py) the interpreter runs under
        self._exit_code = 0  # the interpreter's, once it ended

    def __enter__(self) -> PageSession:
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        if kind is not None and not self.ended:  # an exception (Ctrl-C) ends the page: its running block is not awaited
            self.ended = f"the page's run was stopped ({kind.__name__})"
        self.close()

    def _start(self) -> None:
        self._capture = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the session; closed in close()
        self._report = tempfile.TemporaryFile()  # noqa: SIM115 - the same
        req_read, self._req = os.pipe()
        self._rep, rep_write = os.pipe()
        try:
            self._process = launchers.start(
                [self.python, "-u", str(WORKER), str(req_read), str(rep_write)],
                self._report,
                self.mark,
                (req_read, rep_write),
                self.trace,
                cwd=self.root,
                env={**block_env(self.root, None if self.python == sys.executable else self.python, self.scratch),
                     MARK_ENV: self.mark},
                stdout=self._capture,
                writable=_writable(self.scratch),
                memory=self.memory,
            )
        except BaseException:  # not started (the build is stopping: launchers.Stopped): nothing of it stays open
            for fd in (req_read, rep_write, self._req, self._rep):
                os.close(fd)
            self._capture.close()
            self._report.close()
            raise
        self._started = start_time(self._process.pid)
        os.close(req_read)
        os.close(rep_write)

    def _captured(self) -> tuple[str, str]:
        raw, too_much = read_capture(self._capture)
        return captured(raw, self.root), too_much

    def run(self, code: str, filename: str, timeout: float, *, workdir: str = "", width: int = 100) -> Result:
        """Run one python block in the page's interpreter.

        Args:
            code: the block's code.
            filename: how tracebacks name the block, e.g. "<docs/a.md block 2>".
            timeout: seconds before the interpreter is killed.
            workdir: a folder relative to the root that the block runs in ("" for the root); the next block
                starts in the root again.
            width: the terminal width in columns (COLUMNS) while the block runs.

        Returns:
            Result; problem names the exception raised, the timeout, or the interpreter's exit.
        """
        if self.ended:
            return Result("", f"not run: {self.ended}")
        if self._process is None:
            self._start()
        token = secrets.token_hex(16)  # a reply must echo it: a block cannot forge one without reading the worker
        request = {"code": code, "filename": filename, "workdir": workdir, "columns": str(width), "token": token}
        os.write(self._req, (json.dumps(request) + "\n").encode())
        ready, _, _ = select.select([self._rep], [], [], timeout)
        if not ready:
            self.ended = f"an earlier block of this page timed out ({filename})"
            self._stop()  # first, so whatever it printed is complete
            output, _ = self._captured()
            self.close()
            return Result(output, f"timed out after {timeout:g} s")
        reply = _read_line(self._rep)
        if not reply:
            self._stop()
            exit_code = self._exit_code
            self.ended = f"an earlier block ended the page's Python interpreter ({filename})"
            output, _ = self._captured()
            self.close()
            return Result(output, f"ended the Python interpreter (exit code {exit_code})")
        try:
            answer = json.loads(reply)
            raised = answer["raised"] if answer["token"] == token else None
        except (ValueError, KeyError, TypeError):
            raised = None
        if raised is None:
            self.ended = f"an earlier block wrote into the site's reply pipe ({filename})"
            output, _ = self._captured()
            self.close()
            return Result(output, "wrote into the site's reply pipe (a file descriptor it does not own)")
        raw, too_much = read_capture(self._capture)
        return Result(captured(raw, self.root), too_much or (f"raised {raised}" if raised else ""),
                      undecodable="" if too_much else undecodable(raw))

    def _stop(self, done: bool = False) -> None:
        """End the interpreter, then whatever its blocks left running (named in self.killed); safe twice.

        done: the page's blocks have all answered, so the interpreter is asked to exit first (its request pipe
        closes; worker.py exits at once), which ends its trace record with its exit (reads.py); one that is
        still running CLOSE_WAIT seconds later is ended as any other."""
        if self._process is None or self._process.returncode is not None:
            return
        if done:
            with contextlib.suppress(OSError):
                os.close(self._req)
            self._req = -1  # closed: its number may be another page's file by now
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(timeout=CLOSE_WAIT)
        self._exit_code, killed = launchers.end(self._process, self._report)
        killed += kill_leftovers(self._process.pid, self.mark, self._started)
        self.killed = tuple(sorted(self.killed + killed))

    def close(self) -> None:
        """End the interpreter and whatever its blocks left running, and free its pipes; safe to call twice."""
        if self._process is None:
            return
        self._stop(done=not self.ended)
        launchers.ended(self._process)
        for fd in (self._req, self._rep):
            with contextlib.suppress(OSError):
                if fd >= 0:
                    os.close(fd)
        self._process = None
        self._capture.close()
        self._report.close()


def _writable(scratch: Path | None) -> tuple[Path, ...]:
    """What a run may write into in a sandbox (sandbox.py): its scratch folder, else the temporary folder."""
    return (scratch,) if scratch is not None else (Path(tempfile.gettempdir()),)


def _read_line(fd: int) -> str:
    chunks = []
    while not chunks or not chunks[-1].endswith(b"\n"):
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode("utf-8")
