"""Records what one Python process of a page's run read, with an audit hook (sys.addaudithook); stdlib only.

sitebuild/run/audit.py puts this folder on PYTHONPATH and names a record folder in SITEBUILD_READS for every process
of a page's run, so Python's site module imports this file at the start of each interpreter the run starts (the
page's worker, `python -m pytest` in a bash block, a subprocess a test starts). It then takes its own folder off
sys.path (sys.path is as it would be without it), installs the hook and imports the next sitecustomize, if any.

The hook keeps, as absolute paths: each file opened ("open": open(), os.open, the import system's reads of
sources and bytecode), each folder listed ("os.listdir", "os.scandir": the import system's look-ups, glob,
os.walk, pathlib), each SQLite database connected to; and each program the process started ("subprocess.Popen",
"os.exec", "os.posix_spawn", "os.spawn"), with whether its environment still carries this record (audit.py
decides which programs are known). "os.system" and a folder named only by a descriptor that cannot be read back
make the record unknown. The record is one file per process, written as the process goes: each path, program or
unknown is appended as one line ("r <repr>", "p <repr>", "u <repr>") the first time the hook sees it, with one
unbuffered os.write, before the read itself happens (an audit hook runs before its operation). So a process that
is killed, leaves with os._exit or is a forked child that never returns still leaves a complete record of what it
read until then. At exit (atexit), before an exec, or when the worker says its page is done (the audit event
"sitebuild.reads.end", since it leaves with os._exit), it adds the files of its imported modules (an extension
module's file is opened by the loader, not through "open") and an "end" line. A forked child starts a record of
its own.

Left out: what an audit hook cannot see: a stat (os.stat, os.path.exists) that neither opens nor lists, a
file a C extension opens itself (other than SQLite's), the file of an extension module imported by a process that
then dies without exiting (it is added at exit only), os.open with dir_fd (named here as if relative to the
working folder). Writing the record may raise nothing into the page: every error here makes it unknown instead.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
EVENTS = {"open", "os.listdir", "os.scandir", "subprocess.Popen", "os.exec", "os.posix_spawn", "os.spawn",
          "os.system", "sqlite3.connect", "sitebuild.reads.end", "os.fork", "os.forkpty"}


def _install(folder):
    import atexit

    state = {"reads": set(), "path": "", "fd": -1, "done": False}
    getcwd, join, fspath, fsdecode, write = os.getcwd, os.path.join, os.fspath, os.fsdecode, os.write

    def start():
        state["path"] = join(folder, f"py.{os.getpid()}.{os.urandom(4).hex()}")
        state["fd"] = os.open(state["path"], os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC, 0o600)

    def emit(kind, value):
        line = f"{kind} {value!r}\n".encode("utf-8", "surrogateescape")
        if write(state["fd"], line) != len(line):
            raise OSError("a short write")

    def read(path):
        if path not in state["reads"]:
            state["reads"].add(path)
            emit("r", path)

    def absolute(path):
        if isinstance(path, int):
            return os.readlink(f"/proc/self/fd/{path}")
        path = fspath(path)
        if isinstance(path, bytes):
            path = fsdecode(path)
        return path if path.startswith("/") else join(getcwd(), path)

    def carried(env):
        if env is None:
            return True
        get = env.get if hasattr(env, "get") else dict(env).get
        value = get("SITEBUILD_READS", get(b"SITEBUILD_READS"))
        paths = get("PYTHONPATH", get(b"PYTHONPATH")) or ""
        paths = fsdecode(paths) if isinstance(paths, bytes) else paths
        return value in (folder, os.fsencode(folder)) and HERE in paths.split(os.pathsep)

    def program(argv, env):
        argv = [argv] if isinstance(argv, (str, bytes)) or not hasattr(argv, "__iter__") else list(argv)
        emit("p", [*(fsdecode(fspath(a)) if not isinstance(a, str) else a for a in argv), carried(env)])

    def finish():
        if os.getpid() != state["pid"] or not state["path"] or state["done"]:
            return
        state["done"] = True  # the hook records nothing while this runs
        try:
            for module in list(sys.modules.values()):
                name = getattr(module, "__file__", None)
                if isinstance(name, str):
                    read(name if name.startswith("/") else join(getcwd(), name))
            write(state["fd"], b"end\n")
        except Exception:  # noqa: BLE001 - a record that misses a module's file must not read as complete
            broken()
            return
        state["done"] = False  # an exec that fails goes on, and so does its record

    def hook(event, args):
        if event not in EVENTS or state["done"]:
            return
        try:
            if event == "open" or event == "os.listdir" or event == "os.scandir":
                path = args[0]
                if path is None:
                    path = "."
                elif isinstance(path, int) and event == "open":
                    return  # an open of a descriptor: whoever opened it was seen
                read(absolute(path))
            elif event == "subprocess.Popen":
                executable, argv, _, env = args
                argv = [argv] if isinstance(argv, (str, bytes)) or not hasattr(argv, "__iter__") else list(argv)
                program([executable if executable is not None else argv[0], *argv[1:]], env)
            elif event == "os.exec" or event == "os.posix_spawn":
                program([args[0], *list(args[1])[1:]], args[2])
                if event == "os.exec":
                    finish()  # exec replaces this process: no exit of its own
            elif event == "os.spawn":
                program([args[1], *list(args[2])[1:]], args[3])
            elif event == "os.system":
                emit("u", f"os.system({args[0]!r})")
            elif event == "sqlite3.connect":
                database = args[0]
                if isinstance(database, (str, bytes)) or hasattr(database, "__fspath__"):
                    name = fspath(database)
                    name = fsdecode(name) if isinstance(name, bytes) else name
                    if name.startswith("file:"):
                        from urllib.parse import unquote, urlsplit

                        name = unquote(urlsplit(name).path)
                    if name and name != ":memory:":
                        read(absolute(name))
            elif event == "sitebuild.reads.end":
                finish()
        except Exception as error:  # noqa: BLE001 - never raise into the page: the record becomes unknown
            try:
                emit("u", f"{event}: {type(error).__name__}")
            except Exception:  # noqa: BLE001 - a record that misses a line must not read as complete: empty it
                broken()

    def broken():
        try:
            os.ftruncate(state["fd"], 0)  # an empty record reads as unknown (audit.py)
            os.close(state["fd"])
        except OSError:
            pass
        state["fd"] = -1
        state["done"] = True  # nothing more is written

    def forked():
        parent = state["fd"]
        state.update(reads=set(), pid=os.getpid(), done=True)  # the hook records nothing while the record opens
        try:
            start()
        except OSError:
            state["path"] = ""
            # The parent's record then says the run's reads are not all known.
            try:  # noqa: SIM105 - no contextlib import in every interpreter of a run
                write(parent, b"u 'a forked child could not start its record'\n")
            except OSError:
                pass
            return
        os.close(parent)  # the parent's record holds the parent's lines only
        state["done"] = False

    state["pid"] = os.getpid()
    start()
    os.register_at_fork(after_in_child=forked)
    atexit.register(finish)
    sys.addaudithook(hook)


def _main():
    sys.path[:] = [entry for entry in sys.path if entry != HERE]
    folder = os.environ.get("SITEBUILD_READS")
    if folder:
        try:  # noqa: SIM105 - no contextlib import in every interpreter of a run
            _install(folder)
        except OSError:
            pass  # no record at all: the run's reads are unknown (audit.py counts the records it expects)
    ours = sys.modules.pop("sitecustomize")
    try:
        import sitecustomize  # noqa: F401 - the next one on sys.path, as Python would have imported it
    except ImportError as error:
        if error.name != "sitecustomize":
            raise
    finally:
        sys.modules.setdefault("sitecustomize", ours)  # the import system takes it back from there


_main()
