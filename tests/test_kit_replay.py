"""A learner who runs a page's notebook in the kit download, installed as its README says.

The page contract's promise: the Python blocks of a page in one session, the bash blocks from the kit
folder, in page order, only the blocks whose source the page shows (none that a learner cannot copy),
in a fresh install (tests/learner.py, conftest.installed) print what the page shows. Each page's
notebook (sitebuild/publish/notebooks.py, as the site publishes it) holds exactly those blocks, so running it with
nbclient on the install's own kernel checks both the page and the download. Its test count cell runs those
kit test files in the download and must print the page's "N passed": a failing, erroring or skipped test, or a
warning, changes that line. The kit test files no page counts run in test_kit_download.py.
Each notebook's kernel ends with its run: none is left running (nor its CPU left uncounted) until the worker ends.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.learner import KERNELS, PAGES_WITH_BLOCKS, run_notebook

pytestmark = pytest.mark.site


@pytest.mark.parametrize("src_uri", PAGES_WITH_BLOCKS)
def test_the_notebook_of_a_page_prints_in_the_download_what_the_page_shows(src_uri, installed):
    kit, python = installed
    differing = run_notebook(src_uri, kit, kit.parent / KERNELS)
    assert not differing, "\n\n".join(differing)
    assert not children_running(python), "the notebook's kernel is still running after its run"


def children_running(python: Path) -> list[str]:
    """The command lines of this process's children that run python (a kernel of the install), from /proc."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            command = (stat.parent / "cmdline").read_bytes().split(b"\0")
        except OSError:  # it ended meanwhile
            continue
        if int(fields[1]) == os.getpid() and fields[0] != "Z" and os.fsencode(python) in command:
            found.append(b" ".join(command).decode(errors="replace"))
    return found
