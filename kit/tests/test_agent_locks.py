"""Tests of evidencedesk.agent.locks: an exclusive lock that another process sees."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from evidencedesk.agent.locks import locked

# Tries the lock without waiting, from another process, and says what it found.
PROBE = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
try:
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    print("free")
except BlockingIOError:
    print("held")
"""


def probe(path: Path) -> str:
    return subprocess.run([sys.executable, "-c", PROBE, str(path)], capture_output=True, text=True,
                          check=True, timeout=60).stdout.strip()


@pytest.mark.parametrize("target", ["folder", "file"])
def test_another_process_finds_the_lock_held_inside_and_free_after(tmp_path: Path, target: str) -> None:
    path = tmp_path if target == "folder" else tmp_path / "sends.jsonl"
    with locked(path):
        assert probe(path) == "held"
    assert probe(path) == "free"


def test_the_lock_is_let_go_when_the_block_raises(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError), locked(tmp_path):
        raise RuntimeError("a failing save")
    assert probe(tmp_path) == "free"


def test_a_missing_folder_is_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(OSError), locked(tmp_path / "no" / "such" / "file"):
        pass
