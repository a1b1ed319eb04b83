"""A learner who runs a page's shown blocks in the kit download, installed as its README says.

The page contract's promise: the Python blocks of a page in one session, the bash blocks from the kit
folder, in page order, only the blocks whose source the page shows (none that a learner cannot copy),
in a fresh install (tests/learner.py, conftest.installed) print what the page shows. Test counts are
checked against the one run of the kit's tests instead (test_kit_download.py), not run again here.
"""

from __future__ import annotations

import pytest

from sitebuild.verify import run_blocks
from tests.learner import PAGES_WITH_BLOCKS, count_files, differences, shown_blocks

pytestmark = pytest.mark.site


@pytest.mark.parametrize("src_uri", PAGES_WITH_BLOCKS)
def test_the_shown_blocks_of_a_page_print_in_the_download_what_the_page_shows(src_uri, installed):
    kit, python = installed
    shown, approved = shown_blocks(src_uri)
    assert shown, f"{src_uri} shows no block a learner can run"
    ran = [block for block in shown if not count_files(block)]
    results = run_blocks(ran, kit, f"docs/{src_uri}", 120, python=str(python))
    differing = differences(src_uri, ran, results, approved)
    assert not differing, "\n\n".join(differing)
