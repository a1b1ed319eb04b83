"""A real `mkdocs serve`: after an edit to kit code a page imports, the served page shows the new output."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, fence, page, subprocess_env

pytestmark = pytest.mark.site

WAIT = 60  # seconds: a bound on each wait for the server, not a measure of its speed


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def fetch(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.read().decode("utf-8")
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return ""


def wait_for(url: str, text: str, server: subprocess.Popen, log) -> str:
    """Poll url until its page holds text; fail after WAIT seconds or if the server ends."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        html = fetch(url)
        if text in html:
            return html
        assert server.poll() is None, f"mkdocs serve ended (exit code {server.returncode}):\n{log.read_text()}"
        time.sleep(0.25)
    pytest.fail(f"the served page never showed {text!r} within {WAIT} s; server log:\n{log.read_text()}")


@contextlib.contextmanager
def serving(site, log: Path):
    """`mkdocs serve` of a fixture site as `make serve` runs it, on a free port; yields (url, server), then stops it."""
    port = free_port()
    command = [sys.executable, "-m", "mkdocs", "serve", "-f", str(site.config), "--no-strict", "--livereload",
               "--dev-addr", f"127.0.0.1:{port}"]  # as `make serve` runs it
    with log.open("w") as out:
        server = subprocess.Popen(command, cwd=REPO_ROOT, env=subprocess_env(), stdin=subprocess.DEVNULL,
                                  stdout=out, stderr=subprocess.STDOUT)
    try:
        yield f"http://127.0.0.1:{port}/", server
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def test_serve_shows_the_new_output_after_a_kit_edit(make_site, tmp_path):
    site = make_site(
        {"index.md": page(fence("from fixturekit import greeting\nprint(greeting())"))},
        {"fixturekit/__init__.py": "def greeting():\n    return 'greeting version 1'\n"},
    )
    # the kit of this fixture site: watched by serve, and an input of its blocks' cache key
    site.options(block_inputs="[fixturekit]")
    site.write("mkdocs.yml", site.config.read_text() + "watch:\n  - fixturekit\n")
    log = tmp_path / "serve.log"
    with serving(site, log) as (url, server):
        first = wait_for(url, "greeting version 1", server, log)
        assert "has no approved output yet" in first  # serve shows the failure and goes on

        site.write("fixturekit/__init__.py", "def greeting():\n    return 'greeting version 2'\n")

        second = wait_for(url, "greeting version 2", server, log)
        assert "greeting version 1" not in second
    assert not (site.root / "fixturekit" / "__pycache__").exists()
