"""An exclusive lock on a file or a folder, shared by every process on the machine (fcntl.flock).

Two processes that each hold locked(path) never run their critical sections at the same time; a
second one waits until the first lets go. The lock belongs to the open file, so it is released
when the block ends, when the process exits, or when it crashes: a dead process never leaves a
stale lock behind. checkpoint.py locks the checkpoint's folder while it compares and replaces a
file; sendlog.py locks its log while it checks a key and sends.
Left out: Windows (fcntl is POSIX only), network file systems whose flock is not shared between
machines, and timeouts (a lock is held only for a few file operations).
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def locked(path: str | Path) -> Iterator[None]:
    """Hold an exclusive flock on path (an existing folder, or a file, created empty if missing).

    Args: path (str or Path). Raises: OSError when path cannot be opened (no such folder, no permission).
    Example: with locked(folder): ...  # no other process holding locked(folder) runs now
    """
    path = Path(path)
    flags = os.O_RDONLY if path.is_dir() else os.O_RDWR | os.O_CREAT
    fd = os.open(path, flags, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # waits for any other holder; released by close, even on a crash
        yield
    finally:
        os.close(fd)
