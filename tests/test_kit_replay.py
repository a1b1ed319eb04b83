"""A learner who runs a page's notebook in the kit download, installed as its README says.

The page contract's promise: the Python blocks of a page in one session, the bash blocks from the kit
folder, in page order, only the blocks whose source the page shows (none that a learner cannot copy),
in a fresh install (tests/learner.py, conftest.installed) print what the page shows. Each page's
notebook (sitebuild/notebooks.py, as the site publishes it) holds exactly those blocks, so running it with
nbclient on the install's own kernel checks both the page and the download. Test counts are checked against
the one run of the kit's tests instead (test_kit_download.py), not run again here.
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
