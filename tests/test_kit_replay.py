"""A learner who runs a page's notebook in the kit download, installed as its README says.

The page contract's promise: the Python blocks of a page in one session, the bash blocks from the kit
folder, in page order, only the blocks whose source the page shows (none that a learner cannot copy),
in a fresh install (tests/learner.py, conftest.installed) print what the page shows. Each page's
notebook (sitebuild/notebooks.py, as the site publishes it) holds exactly those blocks, so running it with
nbclient on the install's own kernel checks both the page and the download. Its test count cell runs those
kit test files in the download and must print the page's "N passed": a failing, erroring or skipped test, or a
warning, changes that line. The kit test files no page counts run in test_kit_download.py.
"""

from __future__ import annotations

import pytest

from tests.learner import KERNELS, PAGES_WITH_BLOCKS, run_notebook

pytestmark = pytest.mark.site


@pytest.mark.parametrize("src_uri", PAGES_WITH_BLOCKS)
def test_the_notebook_of_a_page_prints_in_the_download_what_the_page_shows(src_uri, installed):
    kit, python = installed
    differing = run_notebook(src_uri, kit, kit.parent / KERNELS)
    assert not differing, "\n\n".join(differing)
