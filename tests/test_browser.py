"""The built site in a browser: every page of the nav, at 1280 and 390 px wide, in headless Chromium.

On each page: no console errors; no request to another host; every diagram drawn as SVG, legibly;
every collapsed box (the answers, the pass checklist) collapsed, opening on a click; no element wider
than the viewport, except inside something that scrolls (code, a diagram); on a course page, the
chrome's figures as the nav says; no serious or critical axe-core violation (WCAG's rules, run by the
axe-core that axe-playwright-python bundles, from the venv: nothing fetched) at either width in the
light and in the dark scheme (switched as the header's toggle does, without a reload); and at 1280 px
at most 5% of the page's code and output boxes scrolling sideways (the ones that do are named). Then the
site's search finds a term from each page. What the reader gets besides (the syllabus, the kit box,
excerpts, progress, the keyboard, notebooks, the phone): test_browser_reader.py.

Chromium: Debian's /usr/bin/chromium where it is installed (CI installs it: .ci/run), else the one
Playwright downloads (`.venv/bin/python -m playwright install chromium`). Without either, the tests
fail and say how to get one. A failing page leaves a full-page screenshot in test-results/browser/
(git-ignored). To stay fast, one browser and one tab serve the whole module, on one built site, and
each page is loaded once: at one width, then resized to the other, each width seen light and dark by
switching the colour scheme, with axe-core put into that load once (pages alternate which width
they load at, so both widths are also seen from a fresh load).
"""

from __future__ import annotations

import functools
import html
import http.server
import json
import re
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

import pytest
from axe_playwright_python.base import AXE_SCRIPT
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, sync_playwright

from sitebuild.course.coursenav import nav_pages, page_url, read_config

pytestmark = pytest.mark.site

ROOT = Path(__file__).resolve().parents[1]
CONFIG = read_config(ROOT / "mkdocs.yml")
PAGES = nav_pages(CONFIG["nav"])
WIDTHS = (1280, 390)
HEIGHT = 900
SCREENSHOTS = ROOT / "test-results" / "browser"
DEBIAN_CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",  # WebRTC too goes through the (dead) proxy
]
NO_CHROMIUM = (
    "The browser tests need Chromium, and none was found. Install Debian's (`sudo apt-get install chromium`, "
    "which gives /usr/bin/chromium) or Playwright's own (`.venv/bin/python -m playwright install chromium`)."
)
LOCAL_HOSTS = {"127.0.0.1", "localhost"}
WAIT_MS = 15_000  # a bound on waiting for diagrams and search results, never an assertion about speed
MIN_DIAGRAM_SCALE = 0.69  # a diagram keeps 70% of its natural size or more (its SVG's min-width, diagrams.py)
SCHEMES = {"light": "default", "dark": "slate"}  # the reader's system setting: Material's scheme it selects
BLOCKING_IMPACTS = ("serious", "critical")  # axe-core's two highest impacts; no page may have any
MAX_SCROLLING_CODE = 0.05  # at most this fraction of a page's code and output boxes scroll sideways at 1280 px
WIDE = 1280
MIN_CODE_PX = 12.5  # the smallest computed code font at 1280 px
CODE_FONTS = ("() => [...document.querySelectorAll('article pre > code')]"
              ".map(c => parseFloat(getComputedStyle(c).fontSize))")


# The built site, served, and one browser ---------------------------------------------------------------


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass


@pytest.fixture(scope="module")
def site(real_site: Path) -> Path:
    """The real site, as the strict build of the whole test run made it (conftest.real_site)."""
    return real_site


@pytest.fixture(scope="module")
def base_url(site: Path) -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def closed_port() -> int:
    """A local TCP port that nothing listens on (one the system just handed out, then closed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def browser():
    playwright = sync_playwright().start()
    # Every request to another host goes to a proxy that is not there, so it fails on this machine and never
    # reaches the network; the tab records it (Tab.foreign). The served site, on 127.0.0.1, bypasses it.
    # (A Playwright route would refuse such requests too, but it sends every request through Python: slower.)
    proxy = {"server": f"http://127.0.0.1:{closed_port()}", "bypass": ",".join(sorted(LOCAL_HOSTS))}
    options = {"args": CHROMIUM_ARGS, "proxy": proxy}
    if DEBIAN_CHROMIUM.is_file():
        options["executable_path"] = str(DEBIAN_CHROMIUM)
    elif not Path(playwright.chromium.executable_path).is_file():
        playwright.stop()
        pytest.fail(NO_CHROMIUM, pytrace=False)
    try:
        chromium = playwright.chromium.launch(**options)
    except PlaywrightError as error:
        playwright.stop()
        pytest.fail(f"{NO_CHROMIUM}\nLaunching it failed: {error.message}", pytrace=False)
    yield chromium
    chromium.close()
    playwright.stop()


@dataclass
class Tab:
    """The browser tab, and what it saw since the last visit began."""

    page: Page
    errors: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)

    @property
    def width(self) -> int:
        return self.page.viewport_size["width"]

    def visit(self, url: str, width: int) -> None:
        self.errors.clear()
        self.foreign.clear()
        self.page.set_viewport_size({"width": width, "height": HEIGHT})
        self.page.goto(url, wait_until="load")


def _is_local(url: str) -> bool:
    parsed = urlparse(url)
    return parsed.scheme in ("data", "blob", "about") or parsed.hostname in LOCAL_HOSTS


@pytest.fixture(scope="module")
def tab(browser) -> Iterator[Tab]:
    context = browser.new_context(viewport={"width": WIDTHS[0], "height": HEIGHT})
    tab = Tab(context.new_page())

    context.on("request", lambda request: None if _is_local(request.url) else tab.foreign.append(request.url))
    tab.page.on("console", lambda message: tab.errors.append(message.text) if message.type == "error" else None)
    tab.page.on("pageerror", lambda error: tab.errors.append(f"uncaught: {error}"))
    yield tab
    context.close()


@contextmanager
def screenshot_on_failure(tab: Tab, name: str) -> Iterator[None]:
    """Run the body; if an assertion fails, save a full-page screenshot of the tab first."""
    try:
        yield
    except (AssertionError, PlaywrightError):  # a failed check, or a wait that timed out
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name.strip('/').replace('/', '_') or 'home'}-{tab.width}px.png"
        tab.page.screenshot(path=str(path), full_page=True)
        raise


# What a page should show, from the nav and the built files ------------------------------------------------


@dataclass(frozen=True)
class Expected:
    """The chrome a course page should show, worked out from the nav alone."""

    course: str
    chapter: str
    number: int
    count: int


def expected_chrome(nav: list, courses: dict[str, str]) -> dict[str, Expected]:
    """{src_uri: Expected} for every page inside a top-level section of the nav."""
    found = {}

    def pages_in(items: list) -> list[tuple[str, str]]:  # (src_uri, chapter) in order
        out = []
        for item in items:
            if isinstance(item, str):  # a page without a title
                out.append((item, ""))
                continue
            [(title, value)] = item.items()
            out += [(value, "")] if isinstance(value, str) else [(src, title) for src, _ in pages_in(value)]
        return out

    for entry in nav:
        [(section, value)] = entry.items() if isinstance(entry, dict) else [("", entry)]
        if isinstance(value, list):
            pages = pages_in(value)
            for number, (src, chapter) in enumerate(pages, start=1):
                found[src] = Expected(courses.get(section, section), chapter, number, len(pages))
    return found


EXPECTED = expected_chrome(CONFIG["nav"], CONFIG["extra"].get("courses", {}))
CHROME_FIGURE = re.compile(r'<span data-chrome="(read|left)">(\d+) min')


def built_figures(site: Path, src_uri: str) -> dict[str, int]:
    """The reading time and minutes left a built page's HTML states ({} outside a course)."""
    text = (site / page_url(src_uri) / "index.html").read_text(encoding="utf-8")
    return {name: int(value) for name, value in CHROME_FIGURE.findall(text)}


def diagram_count(site: Path, src_uri: str) -> int:
    return (site / page_url(src_uri) / "index.html").read_text(encoding="utf-8").count('<div class="diagram"')


# Checks run inside the page ------------------------------------------------------------------------------

TOO_WIDE = """() => {
  const limit = window.innerWidth + 1, found = [];
  const clipped = (el) => {
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      if (getComputedStyle(a).overflowX !== "visible") return true;
    }
    return false;
  };
  for (const el of document.body.querySelectorAll("*")) {
    const r = el.getBoundingClientRect(), style = getComputedStyle(el);
    if (r.width === 0 || style.visibility === "hidden" || r.right <= limit || clipped(el)) continue;
    found.push(`${el.tagName.toLowerCase()}.${[...el.classList].join(".")} right edge at ${Math.round(r.right)} px`);
  }
  const page = document.documentElement.scrollWidth;
  if (page > limit) found.push(`the page scrolls sideways: ${page} px wide`);
  return found;
}"""

CHROME = """() => {
  const get = (name) => document.querySelector(`[data-chrome="${name}"]`);
  if (!get("chrome")) return null;
  const bar = get("progress");
  return {course: get("course").textContent.trim(), chapter: get("chapter") ? get("chapter").textContent.trim() : "",
          page: get("page").textContent.trim(), read: get("read").textContent.trim(),
          left: get("left").textContent.trim(), value: bar.value, max: bar.max,
          barWidth: bar.getBoundingClientRect().width};
}"""


# The layout has settled once no CSS transition or animation runs (Material animates the search field, and
# a resize starts transitions). Each is finished at once (its end state, as a reader sees it a moment later),
# rather than waited for; one that cannot finish (an endless animation) keeps the wait going.
SETTLED = """() => {
  for (const animation of document.getAnimations()) {
    try { animation.finish(); } catch (endless) {}
  }
  return document.getAnimations().every(a => a.playState !== 'running');
}"""

OPEN_EACH_BOX = """() => [...document.querySelectorAll("article details")].map((box) => {
  const summary = box.querySelector(":scope > summary");
  const before = box.open;
  summary.click();
  const body = box.querySelector(":scope > :not(summary):not([hidden])");  // a verified block's mark is hidden
  const shown = !!body && body.getBoundingClientRect().height > 0;
  return {title: summary.textContent.trim(), before, after: box.open, shown};
})"""


# axe-core, put into the page once per load, then run on the page as it stands (every box open).
AXE = """async (options) => {
  const results = await axe.run(document, options);
  return results.violations.map((v) => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => n.target.join(" ") + ": " + (n.failureSummary || "").split("\\n").slice(1).join(" "))}));
}"""

# Each code or output box (Material's <pre><code>, which is what scrolls), and whether it scrolls sideways.
SCROLLING_CODE = """() => [...document.querySelectorAll("article pre > code")].map((code) => {
  const box = code.closest(".highlight");
  const kind = box ? [...box.classList].filter((c) => c.startsWith("language-")).join(" ") : "";
  const title = box && box.querySelector(".filename") ? box.querySelector(".filename").textContent : kind;
  const longest = code.textContent.split("\\n").reduce((a, b) => (b.length > a.length ? b : a), "");
  return {scrolls: code.scrollWidth > code.clientWidth + 1, title, wide: code.scrollWidth, room: code.clientWidth,
          longest: longest.trim().slice(0, 60)};
})"""


def serious_violations(tab: Tab) -> list[str]:
    """axe-core's serious and critical violations on the page as it stands: one line per rule, with its nodes."""
    if not tab.page.evaluate("() => typeof window.axe === 'object'"):
        tab.page.evaluate(AXE_SCRIPT)
    found = tab.page.evaluate(AXE, {"resultTypes": ["violations"]})
    return [f"{v['id']} ({v['impact']}: {v['help']}) on {len(v['nodes'])}: " + " | ".join(v["nodes"][:3])
            for v in found if v["impact"] in BLOCKING_IMPACTS]


def scrolling_code(tab: Tab) -> tuple[int, list[str]]:
    """(how many code and output boxes the page has, a line for each that scrolls sideways)."""
    boxes = tab.page.evaluate(SCROLLING_CODE)
    return len(boxes), [f"{b['title']} ({b['wide']} px in {b['room']}): {b['longest']!r}"
                        for b in boxes if b["scrolls"]]


def diagrams_as_svg(tab: Tab) -> list[tuple[float, float]]:
    """(drawn width, natural width) of the inline SVG in each diagram (drawn at build time: publish/diagrams.py)."""
    return [(d["drawn"], d["natural"]) for d in tab.page.locator("article div.diagram").evaluate_all(
        """els => els.map(d => { const svg = d.querySelector(':scope > svg');
            return svg ? {drawn: svg.getBoundingClientRect().width, natural: svg.viewBox.baseVal.width}
                       : {drawn: 0, natural: 0}; })""")]


# The tests ----------------------------------------------------------------------------------------------


def use_scheme(tab: Tab, scheme: str) -> None:
    """Switch the page to light or dark as the header's toggle does (Material sets the body's scheme; it follows
    the system's setting only on a load), and wait until it settles."""
    tab.page.evaluate("s => document.body.setAttribute('data-md-color-scheme', s)", SCHEMES[scheme])
    tab.page.wait_for_function(SETTLED, timeout=WAIT_MS)


def check_accessible_in_both_schemes(tab: Tab) -> None:
    """No serious or critical axe-core violation, light and dark, at the tab's width, then back to light."""
    for scheme in SCHEMES:
        use_scheme(tab, scheme)
        violations = serious_violations(tab)
        assert violations == [], f"axe-core at {tab.width} px, {scheme}:\n" + "\n".join(violations)
    use_scheme(tab, "light")


def check_code_fits(tab: Tab) -> None:
    """At 1280 px, at most MAX_SCROLLING_CODE of the page's code and output boxes scroll sideways, and no code is
    set under MIN_CODE_PX (code made small enough to fit is not legible code)."""
    count, scrolling = scrolling_code(tab)
    fraction = len(scrolling) / count if count else 0.0
    assert fraction <= MAX_SCROLLING_CODE, (
        f"{len(scrolling)} of {count} code and output boxes ({fraction:.0%}) scroll sideways at {tab.width} px:\n"
        + "\n".join(scrolling))
    sizes = tab.page.evaluate(CODE_FONTS)
    assert not sizes or min(sizes) >= MIN_CODE_PX, f"code set at {min(sizes)} px at {tab.width} px, under {MIN_CODE_PX}"


def check_layout(tab: Tab, site: Path, src_uri: str) -> None:
    """The checks that depend on the width: diagrams, overflow, accessibility, code that fits, the chrome."""
    page = tab.page
    for number, (drawn, natural) in enumerate(diagrams_as_svg(tab) if diagram_count(site, src_uri) else [], 1):
        assert natural > 0, f"diagram {number} was not drawn as SVG"
        assert drawn >= MIN_DIAGRAM_SCALE * natural, f"diagram {number} drawn {drawn:.0f} px wide of {natural:.0f}"
    too_wide = page.evaluate(TOO_WIDE)
    assert not too_wide, f"at {tab.width} px, wider than the viewport (every box open): " + "; ".join(too_wide)
    check_accessible_in_both_schemes(tab)
    if tab.width == WIDE:
        check_code_fits(tab)
    chrome = page.evaluate(CHROME)
    expected = EXPECTED.get(src_uri)
    if expected is None:
        assert chrome is None, "a page outside the courses shows course chrome"
        return
    assert chrome is not None, "a course page shows no course chrome"
    assert (chrome["course"], chrome["chapter"]) == (expected.course, expected.chapter)
    assert chrome["page"] == f"Page {expected.number} of {expected.count}"
    assert (chrome["value"], chrome["max"]) == (expected.number - 1, expected.count)  # the pages before this one
    assert chrome["barWidth"] > 0
    figures = built_figures(site, src_uri)
    assert chrome["read"] == f"{figures['read']} min read" and figures["read"] >= 1
    later = [src for src, e in EXPECTED.items() if e.course == expected.course and e.number == expected.number + 1]
    after = built_figures(site, later[0])["left"] if later else 0
    assert chrome["left"] == f"{figures['read'] + after} min left in the course", (figures, after)


@pytest.mark.parametrize("src_uri", PAGES)
def test_page_renders_cleanly_at_both_widths(tab: Tab, base_url: str, site: Path, src_uri: str) -> None:
    widths = WIDTHS if PAGES.index(src_uri) % 2 == 0 else WIDTHS[::-1]
    tab.visit(base_url + page_url(src_uri), widths[0])
    page = tab.page
    with screenshot_on_failure(tab, page_url(src_uri)):
        assert page.locator("article div.diagram > svg[role=img][aria-label]").count() == diagram_count(site, src_uri)
        # A click on a box's title opens it (the same click a reader makes, dispatched in the page).
        for box in page.evaluate(OPEN_EACH_BOX):
            assert not box["before"], f"the box {box['title']!r} starts open; answers and checklists start collapsed"
            assert box["after"] and box["shown"], f"the box {box['title']!r} did not open on a click"
        for width in widths:
            page.set_viewport_size({"width": width, "height": HEIGHT})
            page.wait_for_function(SETTLED, timeout=WAIT_MS)
            check_layout(tab, site, src_uri)
        assert tab.foreign == [], "requests to other hosts"  # first: each also logs a console error
        assert tab.errors == [], "console errors"


LUNR_STOP_WORDS = {"because", "however", "neither"}  # lunr's English stop words of 7 letters or more


def search_terms(site: Path) -> dict[str, str]:
    """A word for each nav page that only that page holds, from the built search index: {src_uri: word}."""
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    words: dict[str, list[str]] = {}
    for doc in index["docs"]:
        location = doc["location"].split("#")[0]
        text = html.unescape(re.sub(r"<[^>]+>", " ", doc["title"] + " " + doc["text"])).lower()
        words.setdefault(location, []).extend(re.findall(r"\b[a-z]{7,}\b", text))
    terms = {}
    for src in PAGES:
        others = {w for location, found in words.items() if location != page_url(src) for w in found}
        unique = [w for w in words.get(page_url(src), []) if w not in others and w not in LUNR_STOP_WORDS]
        assert unique, f"{src} holds no word of its own to search for"
        terms[src] = unique[0]
    return terms


@pytest.mark.parametrize("width", WIDTHS)
def test_search_finds_a_term_from_each_page(tab: Tab, base_url: str, site: Path, width: int) -> None:
    tab.visit(base_url, width)
    page = tab.page
    with screenshot_on_failure(tab, "search"):
        opener = page.locator('label.md-header__button[for="__search"]')
        if opener.is_visible():  # a narrow screen: the search field opens from the header
            opener.click()
        field_ = page.locator("input.md-search__input")
        for src, term in search_terms(site).items():
            field_.fill(term)
            field_.press("End")  # Material searches on keyup
            page.wait_for_function(
                "target => [...document.querySelectorAll('.md-search-result__item a')]"
                ".some(a => a.href.split('#')[0] === target)",
                arg=base_url + page_url(src),
                timeout=WAIT_MS,
            )
        assert tab.foreign == [], "requests to other hosts"  # first: each also logs a console error
        assert tab.errors == [], "console errors"


def test_a_request_to_another_host_is_recorded_and_never_leaves_the_machine(tab: Tab, base_url: str) -> None:
    tab.visit(base_url, WIDTHS[0])
    failures = []
    tab.page.context.on("requestfailed", lambda request: failures.append((request.url, request.failure)))
    outcome = tab.page.evaluate("""async () => {
      const image = new Promise((done) => { const i = new Image(); i.onerror = () => done("refused");
                                            i.onload = () => done("loaded"); i.src = "http://203.0.113.7/x.png"; });
      const fetched = await fetch("https://example.org/probe").then(() => "answered", () => "refused");
      return [fetched, await image];
    }""")
    assert outcome == ["refused", "refused"]
    assert tab.foreign == ["https://example.org/probe", "http://203.0.113.7/x.png"]
    assert sorted(failures) == [("http://203.0.113.7/x.png", "net::ERR_PROXY_CONNECTION_FAILED"),
                                ("https://example.org/probe", "net::ERR_PROXY_CONNECTION_FAILED")]


def test_no_page_loads_mermaid(site: Path) -> None:
    for src in PAGES:
        text = (site / page_url(src) / "index.html").read_text(encoding="utf-8")
        assert not re.search(r"<script[^>]*mermaid|mermaid\.(initialize|render)", text, re.I), \
            f"{src} loads Mermaid; its diagrams are inline SVG drawn at build time"
    assert not list(site.rglob("mermaid*")), "the vendored Mermaid is not published with the site"
