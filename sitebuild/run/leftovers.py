"""Find what a block left running, by session and by mark: the second net behind reaper.py's subreaper.

Every process a block starts carries MARK_ENV (the page, the block and an id of the run) in its
environment, and stays in the block's session unless it calls setsid. After a block (or a page's
session) ends, kill_leftovers reads /proc for both and kills what it finds; where prctl is missing
(not Linux), this scan is the only net. Moved out of runner.py, which starts the blocks.

Left out: anything that is neither in the session nor marked (a process that cleared its environment
and left the session): only the subreaper (reaper.py) holds those.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

from sitebuild.run.reaper import proc_stat

MARK_ENV = "SITEBUILD_BLOCK"  # names the block in its processes' environment, so leftovers can be found
PF_KTHREAD = 0x00200000  # a flag of /proc/PID/stat: a kernel thread, which has no environment to read
SETTLE_POLLS = 250  # times 2 ms: a bound on waiting for a process to finish an exec, never an assertion about speed


def start_time(pid: int) -> int:
    """When a process started, in clock ticks after boot (/proc/PID/stat, field 22); 0 where /proc cannot say."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        return int(proc_stat(pid)[1][19])
    return 0


def _leftovers(session_id: int, mark: str, since: int = 0) -> list[tuple[int, str]]:
    """(pid, name) of live processes in the session, or carrying mark in their environment (a process that
    left the session with setsid still carries it); read from /proc, [] where there is none.

    session_id: the block's session (a pid); 0 or less matches no session. Session 0 is no block's: under an
    init that never called setsid (a container's, a sandbox's), every process not in a session of its own
    reports session 0, so matching it would take any process started after the block for the block's.
    since: the block's start_time; a process that started before it cannot be the block's, so its
    environment is not read (with a browser running, most processes on the machine are such).
    A process in the middle of an exec has left the session (setsid) and shows an empty environment until
    the new program's is set up, so a busy machine can catch one there; such a process is read again, every
    2 ms, until its environment shows (SETTLE_POLLS bounds the wait, for one that really has none).
    """
    found, unsettled = [], []
    marker = f"{MARK_ENV}={mark}".encode()
    pids = [int(name) for name in os.listdir("/proc") if name.isdigit()] if os.path.exists("/proc/self/stat") else []
    for pid in pids:
        with contextlib.suppress(OSError, ValueError, IndexError):
            if pid == os.getpid():
                continue
            name, fields = proc_stat(pid)
            if fields[0] == b"Z" or int(fields[19]) < since or int(fields[6]) & PF_KTHREAD:
                continue
            if session_id > 0 and int(fields[3]) == session_id:
                found.append((pid, name))
            elif (carries := _carries(pid, marker)) is None:
                unsettled.append(pid)
            elif carries:
                found.append((pid, name))
    return found + _settle(unsettled, marker)


def _carries(pid: int, marker: bytes) -> bool | None:
    """Whether a process's environment holds marker; None while it shows no environment (in an exec)."""
    environment = Path(f"/proc/{pid}/environ").read_bytes()
    return marker in environment.split(b"\0") if environment else None


def _settle(unsettled: list[int], marker: bytes) -> list[tuple[int, str]]:
    """(pid, name) of the processes seen in an exec that, once their environment shows, carry marker.

    Each is read again every 2 ms until its environment shows, it ends, or SETTLE_POLLS run out.
    """
    found = []
    for _ in range(SETTLE_POLLS):
        if not unsettled:
            break
        time.sleep(0.002)
        for pid in list(unsettled):
            with contextlib.suppress(OSError, ValueError, IndexError):
                carries = _carries(pid, marker)
                name, fields = proc_stat(pid)  # read after the exec: named after the program it now runs
                if carries is None and fields[0] != b"Z":
                    continue  # still in its exec
                if carries:
                    found.append((pid, name))
            unsettled.remove(pid)
    return found


def kill_leftovers(session_id: int, mark: str, since: int = 0, launcher: int = 0) -> tuple[str, ...]:
    """Kill what a block left running (see _leftovers); return their names, sorted.

    Args:
        session_id: the block's session (its shell's or interpreter's pid); mark: the block's MARK_ENV value.
        since: when the block's first process started (start_time, read while it ran; 0: look at every process).
        launcher: the pid of the block's launcher, killed already and maybe not dead yet on a busy machine (in
            the sandbox it shares the session): killed again, never named as something the block left.
    """
    left = [(pid, name) for pid, name in _leftovers(session_id, mark, since) if pid != launcher]
    if launcher > 0:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(launcher, signal.SIGKILL)
    for pid, _ in left:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(session_id, signal.SIGKILL)  # where there is no /proc to read
    return tuple(sorted(name for _, name in left))
