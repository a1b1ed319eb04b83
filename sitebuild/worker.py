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
    for request in requests:
        block = json.loads(request)
        sys.stdout.flush()
        os.ftruncate(1, 0)
        os.lseek(1, 0, os.SEEK_SET)  # stdout and stderr share this offset (one open file)
        threads = set(threading.enumerate())
        os.chdir(os.path.join(root, block["workdir"]))
        os.environ["COLUMNS"] = block["columns"]
        raised = run_block(page.__dict__, block["code"], block["filename"])
        wait_for_threads(threads)
        os.chdir(root)
        sys.stdout.flush()
        sys.stderr.flush()
        replies.write(json.dumps({"raised": raised, "token": block["token"]}) + "\n")
        replies.flush()


if __name__ == "__main__":
    main()
