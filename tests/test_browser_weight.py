"""What a reader downloads: every page of the nav, loaded cold in Chromium, weighs at most 1.6 MB.

Each page is loaded in a fresh browser context (an empty cache, as a first visit) at 1280 px, and the
server counts the bytes of every file it sends for it (bodies, uncompressed: Python's http.server does
not compress, so the figure is an upper bound on what a compressing host sends). The count ends once
the search worker has fetched the search index (Material fetches it on every page, last) and the
network is idle. Diagrams are inline SVG drawn at build time (sitebuild/publish/diagrams.py): no page loads
Mermaid (3.57 MB of JavaScript).
"""

from __future__ import annotations

import functools
import http.server
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sitebuild.course.coursenav import page_url
from tests.test_browser import PAGES, browser, site  # noqa: F401 - one browser, the real site

pytestmark = pytest.mark.site

MAX_PAGE_BYTES = 1_600_000  # 1.6 MB, per page, on a cold load
SEARCH_INDEX = "/search/search_index.json"
WAIT_S = 120  # a bound on waiting for the search index, never an assertion about speed


class CountingHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the site and records (path, bytes sent) for every file it sends."""

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass

    def copyfile(self, source, outputfile) -> None:
        data = source.read()
        self.server.sent.append((self.path, len(data)))
        outputfile.write(data)


@pytest.fixture(scope="module")
def server(site: Path) -> Iterator[http.server.ThreadingHTTPServer]:  # noqa: F811 - the fixture's value
    served = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(CountingHandler, directory=str(site)))
    served.sent = []
    thread = threading.Thread(target=served.serve_forever, daemon=True)
    thread.start()
    yield served
    served.shutdown()
    served.server_close()


def cold_load(browser, server, path: str) -> list[tuple[str, int]]:  # noqa: F811 - the fixture's value
    """Load the page at path in a fresh context (empty cache) at 1280 px; return [(path, bytes)] the server sent."""
    server.sent.clear()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(f"http://127.0.0.1:{server.server_address[1]}/{path}", wait_until="load")
        deadline = time.monotonic() + WAIT_S  # a bound on the wait only
        while not any(p == SEARCH_INDEX for p, _ in server.sent) and time.monotonic() < deadline:
            page.wait_for_timeout(100)
        page.wait_for_load_state("networkidle")
        return list(server.sent)
    finally:
        context.close()


@pytest.mark.parametrize("src_uri", PAGES)
def test_every_page_weighs_at_most_1_6_mb_on_a_cold_load(browser, server, src_uri: str) -> None:  # noqa: F811
    sent = cold_load(browser, server, page_url(src_uri))

    total = sum(size for _, size in sent)
    heaviest = ", ".join(f"{p} {size:,}" for p, size in sorted(sent, key=lambda item: -item[1])[:4])
    assert any(p == SEARCH_INDEX for p, _ in sent), f"the search index was not fetched within {WAIT_S} s: {sent}"
    assert not [p for p, _ in sent if "mermaid" in p.lower()], "a page loads Mermaid"
    assert total <= MAX_PAGE_BYTES, f"{src_uri}: {total:,} bytes on a cold load, over {MAX_PAGE_BYTES:,}: {heaviest}"
