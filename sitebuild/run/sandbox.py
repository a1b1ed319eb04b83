"""Each launcher in a sandbox where bubblewrap can start one: what a block does ends with its run, and writes
only where its run may write.

bubblewrap (`bwrap`, Debian's package bubblewrap, the sandbox Flatpak uses) runs a program in Linux namespaces.
command() puts a launcher (reaper.py) under it with:
- its own PID namespace (--unshare-pid), with the launcher as its first process (--as-pid-1: orphans come to it,
  a block cannot kill it, and bwrap waits for it, so its CPU time counts as the build's, which bwrap's own init
  would hide from /usr/bin/time): the launcher's processes see only each other, and when the namespace's
  first process ends (the launcher ended, was killed, or the build died: --die-with-parent) the kernel kills
  everything left in it, whatever it did to its session or parent; a block cannot read the builder's
  environment through /proc either (its /proc is the namespace's);
- a read-only view of the whole file system (--ro-bind / /: the repo, the venv, data/, site/), with only the
  folders it is given writable (the page's scratch folder, which holds its TMPDIR; serve's trace records) and a
  /dev of its own; a write anywhere else fails with "Read-only file system", which the block's error shows; its
  /proc is read-only too (--remount-ro /proc), so that a root build's block, which has no capabilities but is still
  uid 0, cannot write the kernel's settings under /proc/sys;
- no network but its own loopback (--unshare-net), and an empty /run, where the sockets of local daemons live
  (a Unix socket takes connections even on a read-only file system); since socket files live elsewhere too (tmux's
  in /tmp ran any command a block sent it), the launcher also runs its program under a seccomp filter that fails
  every Unix socket but a stream pair (reaper.socket_filter; launchers.py asks for it where this sandbox runs);
- no capabilities (--cap-drop ALL), so that even a root build cannot remount what is read-only;
- the environment it is given (runner.block_env) and nothing else (--clearenv, then --setenv for each).

status() tries bubblewrap once per process; where it cannot start (not installed, macOS, a kernel without
user namespaces for a non-root builder) launchers run as before, under the reaper and the write guard alone,
and status() says which protection the build has (hook.py logs it once). SANDBOX_ENV=0 turns the sandbox off.

Left out: a cgroup (memory and CPU are bounded per process, by limits the launcher sets; see reaper.py), and
reads: a block may read any file the builder can (its own secrets files included); redaction (leaks.py) stays.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from pathlib import Path

SANDBOX_ENV = "SITEBUILD_SANDBOX"  # "0": run launchers without bubblewrap even where it works
# --remount-ro /proc: bwrap covers /proc/sys only where its check finds it writable, and /proc/sys reads as not
# writable even to root, so a root build's block (no capabilities, but uid 0) could write the kernel's settings there
# (kernel.core_pattern: a program the kernel runs as root outside every namespace).
OPTIONS = ("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--remount-ro", "/proc", "--unshare-pid",
           "--as-pid-1", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--die-with-parent", "--cap-drop", "ALL",
           "--clearenv")
NETS = "blocks run under the reaper and the write guard only"  # what protects a build without the sandbox
PROBE_TIMEOUT = 30  # seconds the one try may take: a bound, it needs a few milliseconds


def status() -> tuple[str, str]:
    """(bwrap's path or "", one line saying which protection the blocks run under), tried once per process (and
    value of SANDBOX_ENV).

    Example: status()[1].startswith("sandbox: each page's blocks run in bubblewrap")  # where it works
    """
    return _status(os.environ.get(SANDBOX_ENV) == "0")


@functools.cache
def _status(off: bool) -> tuple[str, str]:
    if off:
        return "", f"sandbox: off ({SANDBOX_ENV}=0); blocks run under the reaper and the write guard only"
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "", ("sandbox: bubblewrap (bwrap) is not installed, so blocks run under the reaper and the write "
                    "guard only (Debian: apt-get install bubblewrap)")
    try:
        probe = subprocess.run([bwrap, *OPTIONS, "--", "true"], capture_output=True, timeout=PROBE_TIMEOUT,
                               stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return "", f"sandbox: bubblewrap could not start ({error}); {NETS}"
    if probe.returncode != 0:
        why = probe.stderr.decode(errors="replace").strip().splitlines()[-1:] or [f"exit code {probe.returncode}"]
        return "", f"sandbox: bubblewrap could not start ({why[0]}); {NETS}"
    return bwrap, ("sandbox: each page's blocks run in bubblewrap (own PID namespace killed with its run, the file "
                   "system read-only but the run's scratch folder, no network, no capabilities)")


_announced: list[bool] = []


def announce() -> str:
    """status()'s line the first time it is asked for in this process, then "" (the build says it once).

    Example: announce().startswith("sandbox: "); announce() == ""
    """
    if _announced:
        return ""
    _announced.append(True)
    return status()[1]


def command(program: list[str], env: dict[str, str], writable: list[Path]) -> list[str] | None:
    """program as run inside a sandbox (module docstring), or None where no sandbox can start (status()).

    Args:
        program: the launcher's command line.
        env: the whole environment the program gets (set inside the sandbox; bwrap itself keeps the caller's).
        writable: folders the program may write into (each must exist), e.g. the page's scratch folder.

    Example: command(["true"], {"PATH": "/usr/bin"}, [Path("/tmp/s")])[-1] == "true"  # where bwrap works
    """
    bwrap = status()[0]
    if not bwrap:
        return None
    binds = [arg for folder in writable for arg in ("--bind", str(folder), str(folder))]
    if os.path.isdir("/run"):  # its sockets (a container engine's, D-Bus) take connections from a read-only view too
        binds = ["--tmpfs", "/run", *binds]
    settings = [arg for name, value in sorted(env.items()) for arg in ("--setenv", name, value)]
    return [bwrap, *OPTIONS, *binds, *settings, "--", *program]  # bwrap keeps the caller's working folder


def inner_pid(pid: int) -> int:
    """The launcher's own pid (outside the namespace) below a bwrap process pid: bwrap, then the launcher (the
    namespace's first process, --as-pid-1); pid itself where that chain is not (yet, or any more) there.

    Example: inner_pid(bwrap_process.pid)  # the reaper's pid, to which SIGTERM is sent so that it reports
    """
    found = pid
    for _ in range(1):
        try:
            with open(f"/proc/{found}/task/{found}/children", "rb") as children:
                below = children.read().split()
        except OSError:
            return pid
        if len(below) != 1:
            return pid
        found = int(below[0])
    return found
