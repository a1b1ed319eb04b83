"""Records what one Python process of a page's run read, with an audit hook (sys.addaudithook); stdlib only.

sitebuild/audit.py puts this folder on PYTHONPATH and names a record folder in SITEBUILD_READS for every process
of a page's run, so Python's site module imports this file at the start of each interpreter the run starts (the
page's worker, `python -m pytest` in a bash block, a subprocess a test starts). It then takes its own folder off
sys.path (sys.path is as it would be without it), installs the hook and imports the next sitecustomize, if any.

The hook keeps, as absolute paths: each file opened ("open": open(), os.open, the import system's reads of
sources and bytecode), each folder listed ("os.listdir", "os.scandir": the import system's look-ups, glob,
os.walk, pathlib), each SQLite database connected to; and each program the process started ("subprocess.Popen",
"os.exec", "os.posix_spawn", "os.spawn"), with whether its environment still carries this record (audit.py
decides which programs are known). "os.system" and a folder named only by a descriptor that cannot be read back
make the record unknown. At exit (atexit), before an exec, or when the worker says its page is done (the audit
event "sitebuild.reads.end", since it leaves with os._exit), it writes its record: one JSON file, whose path
it created empty at the start, so a process that ends without writing (killed, os._exit, a forked child) leaves
an empty file that reads as incomplete. A forked child starts a record of its own.

Left out: what an audit hook cannot see: a stat (os.stat, os.path.exists) that neither opens nor lists, a
file a C extension opens itself (other than SQLite's), os.open with dir_fd (named here as if relative to the
working folder). Writing the record may raise nothing into the page: every error here makes it unknown instead.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
EVENTS = {"open", "os.listdir", "os.scandir", "subprocess.Popen", "os.exec", "os.posix_spawn", "os.spawn",
          "os.system", "sqlite3.connect", "sitebuild.reads.end", "os.fork", "os.forkpty"}


def _install(folder):
    import atexit

    state = {"reads": set(), "programs": [], "unknown": [], "path": "", "done": False}
    getcwd, join, fspath, fsdecode = os.getcwd, os.path.join, os.fspath, os.fsdecode

    def start():
        state["path"] = join(folder, f"py.{os.getpid()}.{os.urandom(4).hex()}")
        with open(state["path"], "x"):  # noqa: SIM115 - empty until the record is written
            pass

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
        state["programs"].append([*(fsdecode(fspath(a)) if not isinstance(a, str) else a for a in argv),
                                  carried(env)])

    def finish():
        if os.getpid() != state["pid"] or not state["path"]:
            return
        state["done"] = True
        try:
            import json

            for module in list(sys.modules.values()):
                name = getattr(module, "__file__", None)
                if isinstance(name, str):
                    state["reads"].add(name if name.startswith("/") else join(getcwd(), name))
            text = json.dumps({"reads": sorted(state["reads"]), "programs": state["programs"],
                               "unknown": state["unknown"], "end": True})
            with open(state["path"], "w", encoding="utf-8") as record:
                record.write(text)
        except Exception:  # noqa: BLE001 - a record that cannot be written stays empty: unknown
            pass
        finally:
            state["done"] = False

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
                state["reads"].add(absolute(path))
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
                state["unknown"].append(f"os.system({args[0]!r})")
            elif event == "sqlite3.connect":
                database = args[0]
                if isinstance(database, (str, bytes)) or hasattr(database, "__fspath__"):
                    name = fspath(database)
                    name = fsdecode(name) if isinstance(name, bytes) else name
                    if name.startswith("file:"):
                        from urllib.parse import unquote, urlsplit

                        name = unquote(urlsplit(name).path)
                    if name and name != ":memory:":
                        state["reads"].add(absolute(name))
            elif event == "sitebuild.reads.end":
                finish()
        except Exception as error:  # noqa: BLE001 - never raise into the page: the record becomes unknown
            state["unknown"].append(f"{event}: {type(error).__name__}")

    def forked():
        state.update(reads=set(), programs=[], unknown=[], pid=os.getpid())
        try:
            start()
        except OSError:
            state["path"] = ""

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
