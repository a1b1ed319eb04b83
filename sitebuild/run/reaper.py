"""Find and kill every process a block started, whatever it did to its session, environment or parent.

Linux lets a process be a *child subreaper* (prctl PR_SET_CHILD_SUBREAPER): an orphan below it is
reparented to it, not to init. So whatever a program starts stays below such a process, even after
`setsid`, `env -i` or a double fork, and a walk of /proc from it finds it all. Run as a script, this
module is that process, a launcher: it starts one program, waits for it to end, kills and reaps
everything left below itself, and reports to its caller in a file the caller opened:

    python -I -S reaper.py REPORT_FD [FD ...] [--tracer=PREFIX] [--memory=BYTES] [--no-unix-sockets] -- PROGRAM ...

FD ...: descriptors handed to the program, closed in the launcher once the program runs. --tracer=PREFIX:
the program is `strace -D ... -o PREFIX -- ...` (reads.py), whose tracer runs as a grandchild and, once its
parent leaves, as a child of this subreaper: it is spared (never killed nor named), and waited for after
everything else below is gone, so that its record is whole when the caller reads it. SIGTERM to
the launcher ends the program (SIGKILL), then everything below it, the same way. The report is the
program's wait status and the names of the processes killed (see read_report); the launcher exits
with the program's exit code (128 + N after signal N). --memory=BYTES: the program and everything it starts
may each take that much address space (RLIMIT_AS), so a runaway block fails (MemoryError) instead of taking the
machine. --no-unix-sockets (in the sandbox): the program runs under a seccomp filter that fails every Unix socket
but a stream pair (socket_filter). The launcher asks the kernel for SIGTERM when its parent (the builder) dies
(PR_SET_PDEATHSIG), so a builder that is killed outright (SIGKILL) leaves nothing running either. The launcher makes
itself not dumpable (PR_SET_DUMPABLE 0), so that its program cannot ptrace it or open its /proc/PID/mem or fd/.
Imported, the module gives the caller the same walk (kill_tree), for a launcher that no longer answers.

Left out: a cgroup or a PID namespace, which would also hold a process that kills the launcher itself
(SIGKILL) before it can reap: sandbox.py runs the launcher in a PID namespace where bubblewrap works.
Where prctl is not available (not Linux), the launcher is a plain parent,
orphans go to init as before, and the caller's own scan (runner.kill_leftovers) is the only net. Stdlib
only and no import of the site's code, since it runs as a script; it imports neither json nor signal
(re and enum cost more than the rest of its start).
"""

from __future__ import annotations

import os
import sys
import time

try:
    import _signal as signal  # signal's constants and calls without its enum import
except ImportError:  # pragma: no cover - an interpreter without CPython's _signal
    import signal

PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h
PR_SET_PDEATHSIG = 1  # linux/prctl.h
PR_SET_DUMPABLE = 4  # linux/prctl.h
PR_SET_NO_NEW_PRIVS = 38  # linux/prctl.h
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2  # linux/prctl.h, linux/seccomp.h
NO_UNIX_SOCKETS = "--no-unix-sockets"  # launchers.py passes it in the sandbox (socket_filter)
# Per audit arch (linux/audit.h): the numbers of socket and socketpair, and of the calls the filter fails whole:
# socketcall (i386's multiplexer, whose arguments a filter cannot read; int 0x80 reaches it from a 64-bit process)
# and io_uring_setup (io_uring makes sockets without the socket call).
FILTERED = {
    0xC000003E: (41, 53, (425,)),  # x86_64; x32's calls (number bit 30 set) are failed whole
    0x40000003: (359, 360, (102, 425)),  # i386
    0xC00000B7: (198, 199, (425,)),  # aarch64
    0x40000028: (281, 288, (102, 425)),  # arm
}
MAX_PASSES = 2000  # bounds kill_tree, so that a fork loop cannot hold it forever
PAUSE = 0.001  # seconds between passes that found nothing new: killed processes take a moment to die


def become_subreaper() -> bool:
    """Make this process a child subreaper: orphans below it are reparented to it instead of init.

    Returns:
        True when the kernel took it; False where prctl is missing or refuses (not Linux, a sandbox).

    Example: become_subreaper()  # True on Linux 3.4 and later
    """
    try:
        import ctypes  # only here: its import is a third of the launcher's start

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)  # the builder dies: end as on the builder's SIGTERM
        # Not dumpable: a process of the block (same uid, no capabilities) can then neither ptrace the launcher nor
        # open its /proc/PID/mem or fd/ (its report). Traced, it could be made to exec a program of the block's that
        # outlives the page. The program's exec makes the program dumpable again (the kernel resets it on exec).
        libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (ImportError, OSError, AttributeError):
        return False


def socket_filter() -> bytes:
    """A seccomp program (classic BPF, little-endian machines) that fails socket(AF_UNIX, ...) and
    socketpair(AF_UNIX, SOCK_DGRAM, ...) with EACCES, and the calls FILTERED fails whole; everything else, and every
    call of an architecture FILTERED does not name, runs as before.

    A socket file takes connections through a read-only file system, and a folder the sandbox does not hide (/tmp,
    the home folder) holds some that run commands outside it: tmux's, an ssh or gpg agent's. A datagram socket
    can send to a socket file without connecting, so only the stream pair (asyncio's wake-up pair, multiprocessing's
    Pipe) is left to AF_UNIX. Abstract sockets are the sandbox's own already (--unshare-net).

    Example: len(socket_filter()) % 8 == 0  # struct sock_filter: u16 code, u8 jt, u8 jf, u32 k
    """
    import struct  # only here: launches outside the sandbox install no filter

    load, equal, at_least, mask, answer = 0x20, 0x15, 0x35, 0x54, 0x06  # BPF_LD|W|ABS, JMP|JEQ|K, JMP|JGE|K, ...
    allow, deny, unix, datagram = 0x7FFF0000, 0x00050000 | 13, 1, 2  # SECCOMP_RET_ALLOW, RET_ERRNO|EACCES
    program: list[tuple] = [(load, 0, 0, 4)]  # seccomp_data.arch
    program += [(equal, f"arch {arch}", 0, arch) for arch in FILTERED]
    program.append((answer, 0, 0, allow))
    for arch, (socket_call, pair_call, failed) in FILTERED.items():
        program += [f"arch {arch}", (load, 0, 0, 0)]  # seccomp_data.nr
        if arch == 0xC000003E:
            program.append((at_least, "deny", 0, 0x40000000))
        program += [(equal, "deny", 0, number) for number in failed]
        program += [(equal, "socket", 0, socket_call), (equal, "socketpair", 0, pair_call), (answer, 0, 0, allow)]
    program += ["socketpair", (load, 0, 0, 16), (equal, 0, "allow", unix),  # args[0]: the domain
                (load, 0, 0, 24), (mask, 0, 0, 0xF), (equal, "deny", "allow", datagram),  # args[1]: the type
                "socket", (load, 0, 0, 16), (equal, "deny", "allow", unix),
                "allow", (answer, 0, 0, allow), "deny", (answer, 0, 0, deny)]
    where, count = {}, 0
    for step in program:
        if isinstance(step, str):
            where[step] = count
        else:
            count += 1
    code, count = b"", 0
    for step in program:
        if isinstance(step, str):
            continue
        op, yes, no, k = step
        jumps = [where[j] - count - 1 if isinstance(j, str) else j for j in (yes, no)]
        code += struct.pack("=HBBI", op, *jumps, k)
        count += 1
    return code


def _install(filter_code: bytes) -> None:
    """Install a seccomp program (socket_filter) on this process and what it starts; raises OSError if it cannot."""
    import ctypes

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    libc = ctypes.CDLL(None, use_errno=True)
    code = ctypes.create_string_buffer(filter_code, len(filter_code))
    program = Program(len(filter_code) // 8, ctypes.addressof(code))
    zero = ctypes.c_ulong(0)
    # no_new_privs: bwrap has set it already; the kernel takes a filter from an unprivileged process only with it
    if (libc.prctl(PR_SET_NO_NEW_PRIVS, ctypes.c_ulong(1), zero, zero, zero) != 0
            or libc.prctl(PR_SET_SECCOMP, ctypes.c_ulong(SECCOMP_MODE_FILTER), ctypes.byref(program), zero, zero) != 0):
        error = ctypes.get_errno()
        raise OSError(error, f"the sandbox could not install its socket filter ({os.strerror(error)})")


def proc_stat(pid: int) -> tuple[str, list[bytes]]:
    """A process's name and the fields of /proc/PID/stat after it (fields[0] is field 3, the state); raises
    OSError when the process is gone. The one reader of that file, for this launcher and the builder's scan.

    Example: proc_stat(os.getpid())[1][0] == b"R"
    """
    with open(f"/proc/{pid}/stat", "rb") as stat:
        name, rest = stat.read().rsplit(b")", 1)
    return name.split(b"(", 1)[1].decode(errors="replace"), rest.split()


def _stat(pid: int) -> tuple[str, str, int, int]:
    """A process's name, state, parent pid and start time (/proc/PID/stat fields 2, 3, 4 and 22)."""
    name, fields = proc_stat(pid)
    return name, fields[0].decode(), int(fields[1]), int(fields[19])


def _children_lists(pid: int) -> list[int]:
    """pid's children from /proc/PID/task/TID/children (fast; may miss one that forks or exits meanwhile)."""
    found = []
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/children", "rb") as children:
            found += [int(child) for child in children.read().split()]
    return found


def descendants(root: int, *, full: bool = False) -> list[tuple[int, int, str]]:
    """The live processes below root: (pid, start time, name), zombies left out; root itself is not one.

    Args:
        root: a pid.
        full: read every /proc/PID/stat (slow, exact) instead of the kernel's children lists (fast), which
            it falls back to where those lists do not exist.

    Returns:
        [] where there is no /proc, or nothing lives below root.

    Example: descendants(os.getpid())  # [] in a process that started nothing
    """
    if not os.path.exists("/proc/self/stat"):
        return []
    stats, below = {}, {}
    if full or not os.path.exists(f"/proc/{root}/task/{root}/children"):
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    stats[int(name)] = _stat(int(name))
                except (OSError, ValueError, IndexError):
                    continue
        for pid, (_, _, ppid, _) in stats.items():
            below.setdefault(ppid, []).append(pid)
    found, todo = [], [root]
    while todo:
        parent = todo.pop()
        try:
            children = below.get(parent, []) if stats else _children_lists(parent)
        except (OSError, ValueError):
            continue  # parent ended meanwhile; its children are reparented and show on a later pass
        for pid in children:
            try:
                name, state, _, start = stats[pid] if stats else _stat(pid)
            except (OSError, ValueError, IndexError):
                continue
            if state != "Z":  # a zombie has ended (a killed process that no one has reaped yet)
                found.append((pid, start, name))
                todo.append(pid)
    return found


def _is_tracer(pid: int, prefix: str) -> bool:
    """True when pid runs strace writing its record to prefix (the tracer of a --tracer launch), or is a strace
    that is exiting (its command line already gone: the tracer, once its last tracee has ended)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            arguments = cmdline.read()
    except OSError:
        return True  # gone already
    return not arguments or prefix.encode() in arguments.split(b"\0")


def _kill(pid: int, start: int) -> None:
    """SIGKILL pid, unless it now names a process that started at another time (its pid was reused)."""
    pidfd = None
    try:  # noqa: SIM105 - contextlib is one more import for a launcher that starts before every bash block
        pidfd = os.pidfd_open(pid)  # holds this very process, so the check below cannot go stale
    except (AttributeError, OSError):
        pass
    try:
        if _stat(pid)[3] != start:
            return
        if pidfd is None:
            os.kill(pid, signal.SIGKILL)
        else:
            signal.pidfd_send_signal(pidfd, signal.SIGKILL)
    except (OSError, ValueError, IndexError):
        pass  # ended meanwhile, or not ours to kill
    finally:
        if pidfd is not None:
            os.close(pidfd)


def _reap() -> bool:
    """Reap this process's ended children; False once it has no child left at all."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        return False
    return True


def kill_tree(root: int, *, reap: bool = False, passes: int = MAX_PASSES, tracer: str = "") -> tuple[str, ...]:
    """Kill every process below root, again and again until none is left (or passes run out).

    A process below root that forks while it is killed leaves a child, which the next pass finds.

    Args:
        root: a pid, usually a subreaper (then nothing below it can get away by losing its parent).
        reap: root is this process: reap its ended children, and stop only once it has none left.
        passes: a bound on the scans of /proc.
        tracer: the record prefix of a tracer to spare (see the module docstring); "" for none. One still
            alive when passes run out is killed then (its record is then incomplete, which reads.py sees).

    Returns:
        The names of the processes killed (as /proc shows them, at most 15 characters), sorted.

    Example: kill_tree(launcher.pid)  # ("sleep", "sleep")
    """
    killed: dict[tuple[int, int], str] = {}
    spared: set[tuple[int, int]] = set()
    for _ in range(passes):
        if reap and not _reap():
            break  # no child left, so nothing below: a process below always has a live parent up to here
        found = descendants(root) or descendants(root, full=True)
        if tracer:
            spared.update((pid, start) for pid, start, name in found if name == "strace" and _is_tracer(pid, tracer))
            found = [entry for entry in found if entry[:2] not in spared]
        if not found and not reap:
            break
        new = [(pid, start, name) for pid, start, name in found if (pid, start) not in killed]
        for pid, start, name in found:
            killed[(pid, start)] = name
            _kill(pid, start)
        if not new:
            time.sleep(PAUSE)
    for pid, start in spared:
        try:
            _, state, _, now_start = _stat(pid)  # one read of /proc/PID/stat
            alive = now_start == start and state != "Z"
        except (OSError, ValueError, IndexError):
            alive = False
        if alive:  # a tracer that outlived the passes: its record is not whole, and says so
            _kill(pid, start)
            with open(tracer + ".incomplete", "w") as mark:
                mark.write("the launcher killed the tracer\n")
    if spared and reap:
        _reap()
    return tuple(sorted(killed.values()))


def read_report(data: bytes) -> tuple[int, tuple[str, ...]] | None:
    """A launcher's report: (the program's wait status, the names killed), or None if it is not one.

    The report is the status in decimal, then each name, all separated by NUL (no name holds one).

    Example: read_report(b"256\\0sleep") == (256, ("sleep",))
    """
    status, *names = data.split(b"\0")
    if not status.isdigit():
        return None
    return int(status), tuple(name.decode(errors="replace") for name in names)


def main(argv: list[str]) -> int:
    """Run the program of argv under this process as a subreaper (see the module docstring); its exit code."""
    split = argv.index("--")
    tracer = next((a.removeprefix("--tracer=") for a in argv[:split] if a.startswith("--tracer=")), "")
    memory = next((int(a.removeprefix("--memory=")) for a in argv[:split] if a.startswith("--memory=")), 0)
    filter_code = socket_filter() if NO_UNIX_SOCKETS in argv[:split] else b""
    report, *handed = (int(fd) for fd in argv[:split] if not fd.startswith("--"))
    program = argv[split + 1:]
    os.set_inheritable(report, False)
    ends = {signal.SIGTERM, signal.SIGCHLD}
    signal.pthread_sigmask(signal.SIG_BLOCK, ends)  # waited for with sigwaitinfo: no handler, no race
    parent = os.getppid()
    become_subreaper()  # after the mask: a parent's death (PR_SET_PDEATHSIG) waits as a pending SIGTERM
    if os.getppid() != parent:  # the builder died before the launcher could ask to hear of it
        return 128 + signal.SIGTERM
    child = os.fork()  # not posix_spawn: glibc's leaves its own two signals ignored in the program
    if child == 0:
        try:
            for ignored in (signal.SIGPIPE, signal.SIGXFSZ):  # Python ignores both; a shell must not
                signal.signal(ignored, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_SETMASK, ())
            if memory:
                import resource  # only here: most launches set no limit

                resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
            if filter_code:
                _install(filter_code)
            os.execvp(program[0], program)
        except OSError as error:
            os.write(2, f"{program[0]}: {error.strerror}\n".encode())
        os._exit(127)
    for fd in handed:
        os.close(fd)
    if tracer:  # which record is the program's own (reads.py: it must end with the program's exit)
        with open(tracer + ".main", "w") as main_record:
            main_record.write(str(child))
    while True:
        if signal.sigwaitinfo(ends).si_signo == signal.SIGTERM:
            os.kill(child, signal.SIGKILL)  # not reaped yet, so the pid is still the child's
            status = os.waitpid(child, 0)[1]
            break
        pid, status = os.waitpid(child, os.WNOHANG)
        if pid:
            break
    names = kill_tree(os.getpid(), reap=True, tracer=tracer)
    os.ftruncate(report, 0)  # anything written into it meanwhile (through /proc/PID/fd) is dropped
    os.pwrite(report, b"\0".join([str(status).encode(), *(name.encode() for name in names)]), 0)
    code = os.waitstatus_to_exitcode(status)
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
