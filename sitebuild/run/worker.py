"""The Python interpreter behind one page: runs that page's python blocks, in order, in one namespace.

Started by runner.PageSession as `python -u worker.py REQUEST_FD REPLY_FD` (under reaper.py, which
kills what its blocks leave running once the page's session closes), with stdout and stderr both
pointing at one capture file. For each request (a JSON line: code, a file name for
tracebacks, a workdir relative to the root and a terminal width) it empties the capture file, runs
the code as `__main__` in that folder with COLUMNS set, and answers with a JSON line:
{"raised": "", "token": ...} or {"raised": "<exception line>", "token": ...}, echoing the request's
token, so a block that writes into the reply pipe cannot pass for the worker. The traceback itself
goes to stderr, so it is part of the captured output. Everything the block writes to file
descriptors 1 and 2 is captured: its own prints, prints inside imported code, subprocesses.

A thread that raises fails the block as that exception too (threading.excepthook): the block that was
running when it raised, "ValueError: boom (in thread Thread-1 (work))", or, for a thread an earlier
block started (a daemon thread that outlived it), "... (in thread T, started by <docs/a.md KEY>)". Its
traceback, without the threading module's own frames, goes to stderr like the block's. One that
raises while no block runs is reported by the next block; after the page's last block, by none (as
Python at exit, which does not wait for daemon threads either). What Python cannot raise
(sys.unraisablehook: a thread of _thread.start_new_thread, an exception in __del__) counts the same way.

Left out: any import of the site's code, so a block sees only the standard library and the kit.
"""

from __future__ import annotations

import json
import linecache
import os
import sys
import threading
import traceback
import types
import weakref


def run_block(namespace: dict, code: str, filename: str) -> str:
    """Run one block in the page's namespace; return "" or the exception line it raised."""
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    try:
        exec(compile(code, filename, "exec"), namespace)  # noqa: S102 - running page code is the point
    except BaseException as error:  # SystemExit and KeyboardInterrupt included: a block must not exit
        frames = traceback.extract_tb(error.__traceback__)[1:]  # drop this function's own frame
        sys.stderr.write("Traceback (most recent call last):\n")
        sys.stderr.write("".join(traceback.format_list(frames)))
        lines = "".join(traceback.format_exception_only(type(error), error)).strip()
        sys.stderr.write(lines + "\n")
        return lines.splitlines()[-1] if lines else type(error).__name__  # a SyntaxError's spans several lines
    return ""


class ThreadErrors:
    """The exceptions a page's threads raise, as threading.excepthook sees them, until a block answers for them.

    Use: threading.excepthook = errors.hook; then errors.start(filename) before each block and
    errors.end(threads) after it, which returns the first exception line a thread raised meanwhile.

    Example: errors.end(before) == "ValueError: boom (in thread Thread-1 (work))"
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.block = ""  # the file name of the block now running; "" between blocks
        self.first = ""  # the first thread exception of the running block, as its exception line
        self.pending: list[tuple[str, str]] = []  # (traceback, line) of what raised between blocks
        self.started_by: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # live thread -> its block

    def hook(self, args) -> None:
        """threading.excepthook: write the thread's traceback (its own frames) and keep its exception line."""
        if args.exc_type is SystemExit:
            return  # a thread may end itself with sys.exit(), as Python's own hook allows
        name = args.thread.name if args.thread is not None else "unknown"
        with self.lock:
            origin = self.started_by.get(args.thread, self.block) if args.thread is not None else self.block
            where = f"in thread {name}" if origin == self.block else f"in thread {name}, started by {origin}"
            self._record(f"Exception in thread {name}", where, args)

    def unraisable(self, args) -> None:
        """sys.unraisablehook: what Python could not raise (a _thread thread's exception, a __del__'s) counts
        as a thread's: "ZeroDivisionError: division by zero (ignored in thread started by <lambda>)"."""
        source = getattr(args.object, "__qualname__", None) or type(args.object).__name__  # no repr: no address
        what = (args.err_msg or "Exception ignored in").removeprefix("Exception ").rstrip(": ")
        with self.lock:
            self._record(f"Exception {what} {source}", f"{what} {source}", args)

    def _record(self, title: str, where: str, args) -> None:
        """Write the traceback (without the threading module's frames) and keep the exception line; lock held."""
        frames = [f for f in traceback.extract_tb(args.exc_traceback) if f.filename != threading.__file__]
        line = "".join(traceback.format_exception_only(args.exc_type, args.exc_value)).strip()
        text = f"{title}:\nTraceback (most recent call last):\n{''.join(traceback.format_list(frames))}{line}\n"
        summary = f"{line.splitlines()[-1] if line else args.exc_type.__name__} ({where})"
        if self.block:
            sys.stderr.write(text)
            self.first = self.first or summary
        else:
            self.pending.append((text, summary))

    def start(self, filename: str) -> None:
        """A block starts: write what threads raised since the last one, which this block then answers for."""
        with self.lock:
            self.block, self.first = filename, ""
            for text, summary in self.pending:
                sys.stderr.write(text)
                self.first = self.first or summary
            self.pending = []

    def end(self, before: set[threading.Thread]) -> str:
        """A block ended: note the threads it left running; return its first thread exception line, or ""."""
        with self.lock:
            for thread in set(threading.enumerate()) - before:
                self.started_by.setdefault(thread, self.block)
            self.block, first, self.first = "", self.first, ""
            return first


def wait_for_threads(before: set[threading.Thread]) -> None:
    """Wait for the non-daemon threads a block started, as Python does at exit, so their output is theirs."""
    for thread in set(threading.enumerate()) - before:
        if not thread.daemon and thread is not threading.current_thread():
            thread.join()


def main() -> None:
    requests = os.fdopen(int(sys.argv[1]), "r", encoding="utf-8")
    replies = os.fdopen(int(sys.argv[2]), "w", encoding="utf-8")
    sys.argv = [""]  # as in an interactive session: a block's argparse sees no arguments of the worker's
    root = os.getcwd()
    sys.path[0] = root  # as for `python` started in the repo root, not this folder
    page = types.ModuleType("__main__")
    page.__dict__["__builtins__"] = __builtins__
    sys.modules["__main__"] = page  # classes and dataclasses defined in blocks live in __main__
    errors = ThreadErrors()
    threading.excepthook = errors.hook
    sys.unraisablehook = errors.unraisable
    for request in requests:
        block = json.loads(request)
        sys.stdout.flush()
        os.ftruncate(1, 0)
        os.lseek(1, 0, os.SEEK_SET)  # stdout and stderr share this offset (one open file)
        threads = set(threading.enumerate())
        os.chdir(os.path.join(root, block["workdir"]))
        os.environ["COLUMNS"] = block["columns"]
        errors.start(block["filename"])
        raised = run_block(page.__dict__, block["code"], block["filename"])
        wait_for_threads(threads)
        thread_raised = errors.end(threads)
        raised = raised or thread_raised  # the block's own exception first; a thread's traceback is in the output
        os.chdir(root)
        sys.stdout.flush()
        sys.stderr.flush()
        replies.write(json.dumps({"raised": raised, "token": block["token"]}) + "\n")
        replies.flush()
    sys.stdout.flush()
    sys.audit("sitebuild.reads.end")  # the page is done: its read record is written now (audit.py), not at exit
    os._exit(0)  # the request pipe closed: the page is done. At once, as the kill that ended it before did: no atexit


if __name__ == "__main__":
    main()
