"""What a page's run read: every file and folder its processes opened, listed, looked at or ran, recorded by strace.

A page's blocks run under strace when it is installed and works on this machine (tracer()): the page's
Python interpreter and each bash block's shell, with every process they start, Python or not (pytest,
sed, cat, grep, a script run by a test), each followed across fork and exec (`strace -f`). strace writes
one record per process (`-ff -o PREFIX`, PREFIX.PID); paths() reads them back into the set of paths the
run used: a file opened (read or written), looked at (stat, access, readlink) or run (execve), a folder
opened (a listing: os.listdir, os.scandir, ls, find, Python's import system). Each path is taken both as
the process named it (relative ones resolved against the folder strace prints for its dirfd: `-y`) and
as the file the kernel opened, links followed. cache.py keys a page on the content of those that are
block inputs (inputs.py).

The strace runs as a grandchild of the launcher (`-D`), so the program keeps its pid, its parent and its
exit status; reaper.py spares it and waits for it (--tracer). Only the syscalls that name a path stop
a process (`--seccomp-bpf`); the rest run at full speed.

Incomplete is never guessed at: paths() returns None, and the page falls back to the key of every input
file, when a record is missing or does not end with its process's exit, a line cannot be read, or a
relative path has no folder to resolve it against. Left out: reads this can not see, by design the same
as today's key: a process outside the page's tree (a server started before the build) reading files for
it; a file descriptor inherited from outside the run.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
from pathlib import Path

# The calls that read a path, each naming it first: CONTENT ones read what is in it (a file's bytes, a folder's
# entries); the others only what it is (it exists, its kind, size and mode).
# Writes are left out: a block that writes into a block input fails anyway (guard.py), and is never kept.
CALLS = ",".join((
    "open", "openat", "openat2", "creat", "execve", "execveat", "stat", "lstat", "newfstatat", "statx",
    "access", "faccessat", "faccessat2", "readlink", "readlinkat", "chdir",
))
END = re.compile(r"^\+\+\+ (exited with \d+|killed by SIG\w+( \(core dumped\))?) \+\+\+$")
SIGNAL = re.compile(r"^--- SIG\w+ .*---$")
CALL = re.compile(r"^(?P<name>\w+)\((?P<args>.*)\)\s+= (?P<ret>.*)$")
TRACE_ENV = "SITEBUILD_TRACE"  # "0": serve records no reads (every page keeps the key of every input file)
RECORD_LIMIT = 64 << 20  # bytes of one read record read back: a bigger one makes the run's reads unknown
CONTENT = {"open", "openat", "openat2", "creat", "execve", "execveat"}
ARG = re.compile(r'(?:(?P<dirfd>AT_FDCWD|-?\d+)<(?P<dir>(?:[^>\\]|\\.)*)>(?:\(deleted\))?, )?'
                 r'"(?P<path>(?:[^"\\]|\\.)*)"')
RETURNED = re.compile(r"^\d+<(?P<path>(?:[^>\\]|\\.)*)>(?:\(deleted\))?$")
ESCAPE = re.compile(r"\\x([0-9a-f]{2})|\\([\\\"])")


def read_record(path: Path, encoding: str) -> str:
    """A read record's text; raises OSError when it is not a regular file of at most RECORD_LIMIT bytes.

    The run's own processes write its records (this module's, audit.py's), so a block can leave anything among
    them: a named pipe, whose open() would wait for ever for a writer that is gone; a link to /dev/zero; a huge file.
    None is opened but as a regular file, never through a link, and none is read past RECORD_LIMIT.

    Example: read_record(Path("/tmp/records/1a2b.123"), "ascii")  # strace's lines for process 123
    """
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)  # a FIFO opens without waiting
    with os.fdopen(fd, "rb") as record:
        kind = os.fstat(fd)
        if not stat.S_ISREG(kind.st_mode):
            raise OSError(f"{path} is not a regular file")
        data = record.read(RECORD_LIMIT + 1)
    if len(data) > RECORD_LIMIT:
        raise OSError(f"{path} holds more than {RECORD_LIMIT} bytes")
    return data.decode(encoding)


def tracer() -> str | None:
    """The strace program to record reads with, or None when it is missing or cannot trace here.

    Returns:
        strace's path, once a traced `true` has run through it (ptrace may be refused: a container
        without CAP_SYS_PTRACE, Yama's ptrace_scope 3); None otherwise: runs are not traced, and every
        page keeps the key of every input file.

    Example: tracer()  # "/usr/bin/strace", or None where it is not installed
    """
    found = shutil.which("strace")
    if found is None:
        return None
    try:
        probe = subprocess.run([found, *options(os.devnull), "--", "true"], capture_output=True, timeout=30,
                               check=False, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    return found if probe.returncode == 0 else None


def options(prefix: str) -> list[str]:
    """strace's options for a page's run, writing one record per process to PREFIX.PID.

    Example: options("/tmp/t/3")[:2] == ["-D", "-f"]
    """
    return ["-D", "-f", "-ff", "-q", "-y", "-x", "--seccomp-bpf", "-e", f"trace={CALLS}", "-e", "signal=none",
            "-o", prefix]


def command(strace: str, prefix: str, program: list[str]) -> list[str]:
    """program, run under strace recording into prefix (see options).

    Example: command("/usr/bin/strace", "/tmp/t/3", ["bash", "-c", "cat x"])[-3:] == ["bash", "-c", "cat x"]
    """
    return [strace, *options(prefix), "--", *program]


def _unescape(text: str) -> str | None:
    r"""A path as strace prints it with -x (\xNN for each byte of a string that is not plain ASCII; \" and \\
    for themselves), or None for an escape it does not make."""
    if "\\" not in text:
        return text
    if ESCAPE.sub("", text).count("\\"):
        return None
    raw = ESCAPE.sub(lambda m: f"\\x{ord(m[2]):02x}" if m[2] else m[0], text)
    return os.fsdecode(bytes.fromhex(raw.replace("\\x", ""))) if re.fullmatch(r"(\\x[0-9a-f]{2})*", raw) else \
        ESCAPE.sub(lambda m: m[2] or chr(int(m[1], 16)), text)


def _line_paths(line: str) -> tuple[list[str], bool] | None:
    """The absolute paths one record line names, and whether it read their content; None when it cannot be read."""
    if not line or END.match(line) or SIGNAL.match(line):
        return [], False
    call = CALL.match(line)
    if call is None:
        return None  # an unfinished call (the process was killed inside it) or a line of another shape
    arg = ARG.match(call["args"])  # each traced call names its path first (after its dirfd, for the *at calls)
    if arg is None:
        return None
    path = _unescape(arg["path"])
    folder = _unescape(arg["dir"]) if arg["dir"] is not None else None
    if path is None or (folder is None and arg["dir"] is not None):
        return None
    if path == "" and folder is not None:  # fstatat(fd, "", ..., AT_EMPTY_PATH): the file behind fd
        found = [folder]
    elif os.path.isabs(path):
        found = [os.path.normpath(path)]
    elif folder is not None and os.path.isabs(folder):
        found = [os.path.normpath(os.path.join(folder, path))]
    else:
        return None  # a relative path and no folder to resolve it in (stat, access, execve of "./x")
    if "<" in call["ret"]:  # an open's new descriptor, decorated with the file the kernel opened
        returned = RETURNED.match(call["ret"])
        opened = _unescape(returned["path"]) if returned else None
        if opened is None:
            return None
        found.append(opened)
    return found, call["name"] in CONTENT


def paths(folder: Path) -> dict[str, bool] | None:
    """Every path the records in folder name (see the module docstring), or None if they are incomplete.

    Args:
        folder: where a run's records were written: for each launch, PREFIX.PID per process, PREFIX.main naming
            the program's own PID (written by reaper.py), and PREFIX.incomplete if reaper.py had to kill strace.

    Returns:
        {absolute path: whether its content was read (opened or run) rather than only what it is (stat, access)},
        each path as named and as opened; None when folder holds no record, a program's own record does not
        end with its exit (strace lost it, or it was killed: a timeout), strace was killed, or a line cannot be
        read. A process killed by the launcher after the program ended (a leftover) may end inside a call: that
        call never returned, so it read nothing, and is left out.

    Example: paths(Path("/tmp/records"))  # {"/repo/kit/evidencedesk/usage.py": True, "/repo/kit/tests": False, ...}
    """
    try:
        files = {p.name: p for p in folder.iterdir() if p.is_file()}
    except OSError:
        return None
    launches = {name.removesuffix(".main") for name in files if name.endswith(".main")}
    if not launches or any(name.endswith(".incomplete") for name in files):
        return None
    try:
        mains = {launch: read_record(files[f"{launch}.main"], "ascii").strip() for launch in launches}
    except (OSError, UnicodeDecodeError):
        return None
    found: dict[str, bool] = {}
    for name, record in sorted(files.items()):
        prefix, _, pid = name.rpartition(".")
        if not pid.isdigit():
            continue
        if prefix not in launches:
            return None  # a record of a launch that never said which process was its program
        try:
            lines = read_record(record, "ascii").splitlines()
        except (OSError, UnicodeDecodeError):
            return None
        main = mains[prefix] == pid
        if main and not (lines and END.match(lines[-1])):
            return None
        if not main and lines and lines[-1].endswith("<unfinished ...>"):
            lines = lines[:-1]
        for line in lines:
            named = _line_paths(line)
            if named is None:
                return None
            for path in named[0]:
                found[path] = found.get(path, False) or named[1]
    if any(f"{launch}.{mains[launch]}" not in files for launch in launches):
        return None  # a program whose record is missing
    return found
