"""The launchers blocks run under (reaper.py): started, ended, and all stopped at once on SIGINT or SIGTERM.

start() runs a program under a launcher in a session of its own, end() asks a launcher to end its program
and everything below it, reported() reads what it killed (see reaper.py). Every launcher is recorded while
it runs, so that a build can stop at once.

A launcher's session keeps a terminal's Ctrl-C (SIGINT to the foreground process group) from its block, and
SIGTERM (a CI cancel) reaches the builder alone. Left to Python, a KeyboardInterrupt unwinds the builder's main
thread only, and its exit then waits for the threads pages run in, each until its block ends, with no one left
to enforce the block's timeout; SIGTERM kills the builder outright, and the blocks and scratch folders stay. So:

- PagePool runs a build's pages in threads. start() in a thread of a pool that is stopping raises Stopped
  instead, and run_blocks calls check() between blocks.
- PagePool.stop() cancels the pages not started, kills the tree of every launcher its pages started (as end()
  does with a launcher that no longer answers: stop it, kill everything below it, kill it; then what carries
  the block's mark or stays in its session, leftovers.py), and waits for the running pages to end, so that
  each removes its scratch folder (verify.run_blocks) before the builder exits.
- on_signals(callback) routes SIGINT, SIGTERM and SIGHUP alike to callback, then raises Interrupted, a
  KeyboardInterrupt, so the caller unwinds as from Ctrl-C; Interrupted.code is 128 + the signal's number.

Launches outside a pool (`python -m sitebuild bench`, the runner's tests) are recorded too, but no stop
touches them: there the runner ends its own launcher when a KeyboardInterrupt reaches it.

Left out: MkDocs. The hook installs the handlers, logs the line and sets the exit code.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from sitebuild.run import audit, reads, reaper, sandbox
from sitebuild.run.leftovers import kill_leftovers, start_time

REAPER = Path(__file__).with_name("reaper.py")
END_WAIT = 30  # seconds a launcher asked to end may take before it is killed: a bound, it needs milliseconds
REPORT_LIMIT = 1_000_000  # bytes of a launcher's report read back
STOP_WAIT = 10  # seconds the running pages may take to end once their blocks are killed: a bound, they need ms
GONE_WAIT = 2  # seconds a killed launcher may take to die: a bound, it needs microseconds


class Stopped(Exception):
    """Raised in a page's run once its pool is stopping: its running block was killed, the rest not run."""

    def __init__(self) -> None:
        super().__init__("the build was stopped: this page's blocks were killed or not run")


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM, raised where Ctrl-C raises KeyboardInterrupt; code: the exit code, 128 + N."""

    def __init__(self, signum: int) -> None:
        self.name = signal.Signals(signum).name
        self.code = 128 + signum
        super().__init__(self.name)


@dataclass(frozen=True)
class Launch:
    """A running launcher, as stop() needs it: its process, its block's mark, its start time, its pool."""

    process: subprocess.Popen
    mark: str
    started: int
    pool: PagePool | None


_lock = threading.Lock()  # held while a launcher starts and while stop() takes the list; never around a wait
_running: dict[int, Launch] = {}  # launcher pid -> its Launch
_here = threading.local()  # .pool: the PagePool whose page this thread runs, if any


Trace = tuple[str, Path]  # (strace's path or audit.AUDIT, the folder of the run's records): how a run records reads


def start(program: list[str], report, mark: str, handed: tuple[int, ...] = (), trace: Trace | None = None,
          writable: tuple[Path, ...] = (), memory: int = 0, **options) -> subprocess.Popen:
    """Start program under reaper.py (a child subreaper) in a session of its own; it reports into report.

    With trace, program runs under strace, which records what it reads into a new record in the folder
    (reads.py), or, for the tracer audit.AUDIT, records it itself (audit.py). Where bubblewrap works, the
    launcher runs in a sandbox (sandbox.py) in which only the folders of writable (and trace's) can be written;
    memory: bytes of address space each of its processes may take (0: no limit; reaper.py). The launcher is
    recorded with its block's mark (MARK_ENV) until ended(); in a thread of a PagePool that is stopping, nothing
    starts: raises Stopped.
    """
    fds = (report.fileno(), *handed)
    spare = []
    if trace is not None and trace[0] == audit.AUDIT:  # recorded by the run's own processes: no strace
        options["env"] = {**options.get("env", os.environ), **audit.launch(trace[1], program)}
        writable = (*writable, trace[1])
    elif trace is not None:
        prefix = str(trace[1] / secrets.token_hex(8))
        program, spare = reads.command(trace[0], prefix, program), [f"--tracer={prefix}"]
        writable = (*writable, trace[1])
    if memory:
        spare.append(f"--memory={memory}")
    if sandbox.status()[0]:  # in the sandbox, the program can make no Unix socket but a stream pair (reaper.py)
        spare.append(reaper.NO_UNIX_SOCKETS)
    launcher = [sys.executable, "-I", "-S", str(REAPER), *map(str, fds), *spare, "--", *program]
    boxed = sandbox.command(launcher, options.get("env") or dict(os.environ), list(writable))
    pool = getattr(_here, "pool", None)
    with _lock:  # so that stop() sees every launcher that starts before it, and none starts after
        if pool is not None and pool.stopping:
            raise Stopped
        process = subprocess.Popen(boxed or launcher, pass_fds=fds, start_new_session=True, umask=0o022,
                                   stdin=subprocess.DEVNULL,
                                   stderr=subprocess.STDOUT, **options)
        _running[process.pid] = Launch(process, mark, start_time(process.pid), pool)
    return process


def _kill(process: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def end(process: subprocess.Popen, report) -> tuple[int, tuple[str, ...]]:
    """End a launcher (see reaper.py): it kills its program and everything below it, and reports.

    Returns:
        The program's exit code (-N after signal N, as Popen says) and the names of what was killed. A
        launcher that does not end within END_WAIT is stopped, its tree killed from here, then itself.
    """
    if process.poll() is None:  # a launcher that has already ended is left alone
        inner = _launcher_pid(process.pid)
        for signum in (signal.SIGTERM, signal.SIGCONT):  # one a block stopped answers too
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(inner, signum)
    try:
        process.wait(timeout=END_WAIT)
    except subprocess.TimeoutExpired:
        inner = _launcher_pid(process.pid)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(inner, signal.SIGSTOP)
        killed = reaper.kill_tree(inner)
        _kill(process)
        return process.returncode, killed
    return reported(process, report)


def _launcher_pid(pid: int) -> int:
    """The reaper's pid for a launcher process pid: in the sandbox, the one inside bwrap (sandbox.inner_pid)."""
    return sandbox.inner_pid(pid) if sandbox.status()[0] else pid


def reported(process: subprocess.Popen, report) -> tuple[int, tuple[str, ...]]:
    """An ended launcher's report: its program's exit code and the names it killed.

    A report that does not match the launcher's own exit code (the launcher was killed, or something wrote
    into the file) is not used: then the launcher's exit code is the answer, and no name.
    """
    report.seek(0)
    read = reaper.read_report(report.read(REPORT_LIMIT))
    if read is None:
        return process.returncode, ()
    code = os.waitstatus_to_exitcode(read[0])
    if process.returncode != (code if code >= 0 else 128 - code):
        return process.returncode, ()
    return code, read[1]


def ended(process: subprocess.Popen) -> None:
    """Forget a launcher that has ended (or was never recorded)."""
    with _lock:
        _running.pop(process.pid, None)


def check() -> None:
    """Raise Stopped in a thread of a pool that is stopping; else nothing."""
    pool = getattr(_here, "pool", None)
    if pool is not None and pool.stopping:
        raise Stopped


def _alive(pid: int, started: int) -> bool:
    """True while pid is the launcher that started at `started` and has not died (a zombie has)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return False
    return fields[0] != b"Z" and int(fields[19]) == started


def _kill_launch(entry: Launch) -> tuple[str, ...]:
    """Kill a launcher's tree, the launcher, and what carries its block's mark; the names of what was below it."""
    pid = entry.process.pid
    if entry.process.returncode is not None or (entry.started and not _alive(pid, entry.started)):
        return ()  # ended meanwhile: its own thread reaps it and kills what it left (started 0: no /proc to ask)
    inner = _launcher_pid(pid)  # the reaper (in the sandbox, below bwrap and its namespace's first process)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(inner, signal.SIGSTOP)  # it reaps no more, so what is below it stays below it for the walk
    killed = reaper.kill_tree(inner)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)  # the launcher and its session's group (SIGKILL ends a stopped process)
    deadline = time.monotonic() + GONE_WAIT
    while entry.started and _alive(pid, entry.started) and time.monotonic() < deadline:
        time.sleep(0.002)
    return tuple(sorted(killed + kill_leftovers(pid, entry.mark, entry.started, launcher=inner)))


@dataclass
class Stop:
    """What PagePool.stop() did: blocks[i] is (the block's mark without the run's id, names killed)."""

    blocks: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    not_started: int = 0  # pages cancelled before they started
    ended: bool = True  # every running page ended within STOP_WAIT (and removed its scratch folder)

    def __str__(self) -> str:
        """E.g. "killed 1 running block and what it started (docs/a.md bash-1a2b: bash, sleep); 2 page(s) not run"."""
        blocks = "; ".join(f"{what}: {', '.join(names) or 'nothing left'}" for what, names in self.blocks)
        parts = [f"killed {len(self.blocks)} running block(s) and what they started ({blocks})" if self.blocks
                 else "no block was running"]
        if self.not_started:
            parts.append(f"{self.not_started} page(s) not run")
        parts.append("temporary folders removed" if self.ended
                     else f"a page did not end within {STOP_WAIT} s, its temporary folder may remain")
        return "; ".join(parts)


class PagePool:
    """The threads a build's pages run in, `jobs` at a time; stop() ends them all at once (module docstring).

    With on_interrupt, SIGINT and SIGTERM stop the pool until close() or abandon(): on_interrupt(signum, what
    stop() did) is called, then Interrupted is raised in the main thread (on_signals).

    Example:
        pool = PagePool(2, on_interrupt=lambda signum, stop: print(stop)); pool.submit(run_page, page); pool.close()
    """

    def __init__(self, jobs: int, on_interrupt: Callable[[int, Stop], None] | None = None) -> None:
        self.stopping = False
        self._executor = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="sitebuild-page")
        self._futures: list[Future] = []
        self._active = 0  # pages running now
        self._idle = threading.Condition(threading.Lock())  # notified when a page ends
        self._restore = on_signals(lambda signum: on_interrupt(signum, self.stop())) if on_interrupt else None

    def submit(self, fn: Callable, *args) -> Future:
        """Queue fn(*args), a page's run, as ThreadPoolExecutor.submit does."""
        future = self._executor.submit(self._run, fn, *args)
        self._futures.append(future)
        return future

    def _run(self, fn: Callable, *args):
        with self._idle:
            self._active += 1
        _here.pool = self
        try:
            check()
            return fn(*args)
        finally:
            _here.pool = None
            with self._idle:
                self._active -= 1
                self._idle.notify_all()

    def close(self) -> None:
        """Wait for every page to finish (a build's ordinary end); then signals are as they were before the pool."""
        self._executor.shutdown(wait=True)
        self._signals_back()

    def _signals_back(self) -> None:
        if self._restore is not None:
            self._restore()
            self._restore = None

    def stop(self) -> Stop:
        """Stop now: no page or block starts any more, running blocks are killed with what they started.

        Safe in a signal handler of the main thread, which must not be running a page itself: it takes no lock
        that thread holds outside it. Returns what it killed, once the running pages have ended (or STOP_WAIT).
        """
        with _lock:
            self.stopping = True
            mine = [entry for entry in _running.values() if entry.pool is self]
        done = Stop(not_started=sum(future.cancel() for future in list(self._futures)))
        for entry in mine:
            killed = _kill_launch(entry)
            done.blocks.append((entry.mark.rsplit(" ", 1)[0], killed))
        with self._idle:
            done.ended = self._idle.wait_for(lambda: self._active == 0, timeout=STOP_WAIT)
        return done

    def abandon(self) -> None:
        """Stop (a build that failed or was interrupted), free the threads, put the signal handlers back.

        Safe to call more than once, and after close() (then it does nothing more).
        """
        self.stop()
        self._executor.shutdown(wait=False, cancel_futures=True)
        self._signals_back()


def on_signals(callback: Callable[[int], None]) -> Callable[[], None]:
    """Route SIGINT, SIGTERM and SIGHUP (some CI runners cancel with it) to callback(signum), then raise
    Interrupted; return what restores the old handlers.

    Only the first signal counts: later ones, while the first is handled or unwinds, are ignored (a second
    Ctrl-C must not break off the clean-up). Outside the main thread, where Python cannot set handlers,
    nothing changes (and the returned function does nothing).
    """
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    caught: list[int] = []

    def handler(signum: int, frame) -> None:
        if caught:
            return
        caught.append(signum)
        callback(signum)
        raise Interrupted(signum)

    old = {number: signal.signal(number, handler) for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}

    def restore() -> None:
        if threading.current_thread() is threading.main_thread():
            for number, previous in old.items():
                signal.signal(number, signal.SIG_DFL if previous is None else previous)

    return restore
