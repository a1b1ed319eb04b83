"""Run a page's code blocks: python in one fresh interpreter per page, bash with pipefail.

Both kinds run from the repo root, with everything written to stdout and stderr captured, a
timeout, and an environment that makes output the same on every machine (hash seed, locale,
time zone, terminal width). The venv's bin folder comes first on PATH, so `python -m pytest`
in a bash block runs the site's own Python.

An output never holds the build machine's paths: the repo root becomes relative, and an output
that still holds a machine-specific value (an absolute path of this machine, a memory address)
is reported as a problem, since it would differ on the next machine.

Left out: caching. Every build runs every block, so an output is always today's.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

WORKER = Path(__file__).with_name("worker.py")
MEMORY_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")


@dataclass(frozen=True)
class Result:
    """What one block did.

    Attributes:
        output: everything it wrote to stdout and stderr, paths made relative to the repo root.
        problem: "" when the block ran cleanly; else why it failed, in a few words.
    """

    output: str
    problem: str = ""


def block_env(root: Path) -> dict[str, str]:
    """The environment every block runs in: this Python first on PATH, stable hashing, locale and width."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FORCE_COLOR", "PYTEST_", "MKDOCS_"))}
    env.update(
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        PYTHONHASHSEED="0",
        PYTHONDONTWRITEBYTECODE="1",  # no __pycache__ writes in watched folders, so `make serve` does not loop
        PYTHONIOENCODING="utf-8",
        LC_ALL="C.UTF-8",
        LANG="C.UTF-8",
        TZ="UTC",
        COLUMNS="100",
        NO_COLOR="1",
        PWD=str(root),
    )
    env.pop("VIRTUAL_ENV_PROMPT", None)
    return env


def relative(output: str, root: Path) -> str:
    """Replace the repo root's absolute path with a relative one: "/x/repo/kit/a.py" -> "kit/a.py"."""
    for base in {str(root), str(root.resolve())}:
        output = output.replace(base + os.sep, "")
        output = re.sub(re.escape(base) + r"(?![\w-]|\.[\w-])", ".", output)  # the root, not /x/repo2 or /x/repo.bak
    return output


def machine_values(output: str) -> list[str]:
    """The build-machine specific values left in an output: absolute paths of this machine, memory addresses."""
    found = [m.group(0) for m in MEMORY_ADDRESS.finditer(output)]
    for path in {sys.prefix, sys.base_prefix, tempfile.gettempdir(), str(Path.home())}:
        if len(path) > 1 and path + os.sep in output:
            found.append(path + os.sep + "...")
    return found


def _kill(process: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def run_bash(code: str, root: Path, timeout: float) -> Result:
    """Run a bash block from the repo root with errexit and pipefail.

    Args:
        code: the block's code.
        root: the repo root (the folder of mkdocs.yml); the block runs there.
        timeout: seconds before the block and everything it started is killed.

    Returns:
        Result with stdout and stderr interleaved; problem names a non-zero exit or the timeout.

    Example: run_bash("false | cat", root, 60).problem == "exited with code 1"
    """
    process = subprocess.Popen(
        ["bash", "-e", "-o", "pipefail", "-c", code],
        cwd=root,
        env=block_env(root),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group, so a timeout kills what it started too
    )
    try:
        raw, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill(process)
        raw, _ = process.communicate()  # what was read before the timeout too, not only the rest
        return Result(relative(raw.decode("utf-8", "replace"), root), f"timed out after {timeout:g} s")
    _kill(process)  # anything it left running in the background ends with it
    output = relative(raw.decode("utf-8", "replace"), root)
    return Result(output, f"exited with code {process.returncode}" if process.returncode else "")


class PageSession:
    """One fresh Python interpreter for the python blocks of one page, shared by them in page order.

    Start it, run blocks with run(), then close(). A block that times out or ends the
    interpreter ends the session: later blocks of the page are not run, and say why.

    Example:
        with PageSession(root) as session: session.run("x = 2", "<page block 1>", 60)
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.ended = ""  # why the session ended early, if it did
        self._process: subprocess.Popen | None = None

    def __enter__(self) -> PageSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _start(self) -> None:
        self._capture = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the session; closed in close()
        req_read, self._req = os.pipe()
        self._rep, rep_write = os.pipe()
        self._process = subprocess.Popen(
            [sys.executable, "-u", str(WORKER), str(req_read), str(rep_write)],
            cwd=self.root,
            env=block_env(self.root),
            stdin=subprocess.DEVNULL,
            stdout=self._capture,
            stderr=subprocess.STDOUT,
            pass_fds=(req_read, rep_write),
            start_new_session=True,
        )
        os.close(req_read)
        os.close(rep_write)

    def _captured(self) -> str:
        self._capture.seek(0)
        return relative(self._capture.read().decode("utf-8", "replace"), self.root)

    def run(self, code: str, filename: str, timeout: float) -> Result:
        """Run one python block in the page's interpreter.

        Args:
            code: the block's code.
            filename: how tracebacks name the block, e.g. "<docs/a.md block 2>".
            timeout: seconds before the interpreter is killed.

        Returns:
            Result; problem names the exception raised, the timeout, or the interpreter's exit.
        """
        if self.ended:
            return Result("", f"not run: {self.ended}")
        if self._process is None:
            self._start()
        os.write(self._req, (json.dumps({"code": code, "filename": filename}) + "\n").encode())
        ready, _, _ = select.select([self._rep], [], [], timeout)
        if not ready:
            self.ended = f"an earlier block of this page timed out ({filename})"
            _kill(self._process)  # first, so whatever it printed is complete
            output = self._captured()
            self.close()
            return Result(output, f"timed out after {timeout:g} s")
        reply = _read_line(self._rep)
        if not reply:
            exit_code = self._process.wait()
            self.ended = f"an earlier block ended the page's Python interpreter ({filename})"
            output = self._captured()
            self.close()
            return Result(output, f"ended the Python interpreter (exit code {exit_code})")
        try:
            raised = json.loads(reply)["raised"]
        except (ValueError, KeyError, TypeError):
            self.ended = f"an earlier block wrote into the site's reply pipe ({filename})"
            output = self._captured()
            self.close()
            return Result(output, "wrote into the site's reply pipe (a file descriptor it does not own)")
        return Result(self._captured(), f"raised {raised}" if raised else "")

    def close(self) -> None:
        """End the interpreter and free its pipes; safe to call twice."""
        if self._process is None:
            return
        _kill(self._process)
        for fd in (self._req, self._rep):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._process = None
        self._capture.close()


def _read_line(fd: int) -> str:
    chunks = []
    while not chunks or not chunks[-1].endswith(b"\n"):
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode("utf-8")
