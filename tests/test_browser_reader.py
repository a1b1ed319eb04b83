"""What a reader finds besides the page itself, in headless Chromium, at 1280 and 390 px, light and dark.

The syllabus (Material's navigation with each page's minutes, the current page marked; both courses on
the home page), the "Get the kit" box on each course's first page and the link to it from every page,
kit excerpts shown as Python with their file and line numbers, progress kept in the browser (Mark as
read, continue where you left off, the course complete box), diagrams and tables on a phone, and each
page's notebook and script. Each combination of width and colour scheme gets a fresh browser context,
so it starts with no stored progress. Text this chrome adds must be legible in both schemes (contrast
of at least 4.5:1, WCAG's AA level for body text, against the background it sits on).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urljoin

import pytest

from sitebuild.course.coursenav import course_pages, page_url
from sitebuild.publish.notebooks import read_page
from sitebuild.render.excerpts import kit_excerpts
from tests.learner import CONFIG, ROOT
from tests.test_browser import (  # noqa: F401 - base_url, browser and site are fixtures
    CHROME_FIGURE,
    HEIGHT,
    SETTLED,
    WAIT_MS,
    WIDTHS,
    Tab,
    base_url,
    browser,
    screenshot_on_failure,
    site,
)

pytestmark = pytest.mark.site

SCHEMES = ("light", "dark")
COMBOS = [(width, scheme) for width in WIDTHS for scheme in SCHEMES]
PAGES = course_pages(CONFIG["nav"])
NAMES = CONFIG["extra"].get("courses", {})
MIN_CONTRAST = 4.5

CONTRAST = """(el) => {
  const rgba = (c) => { const m = c.match(/[\\d.]+/g).map(Number); return m.length === 3 ? [...m, 1] : m; };
  const over = (top, under) => top.slice(0, 3).map((v, i) => v * top[3] + under[i] * (1 - top[3]));
  const layers = [];
  for (let a = el; a; a = a.parentElement) {
    const bg = rgba(getComputedStyle(a).backgroundColor);
    if (bg[3] > 0) layers.push(bg);
    if (bg[3] === 1) break;
  }
  let back = [255, 255, 255];
  for (const layer of layers.reverse()) back = over(layer, back);
  const fore = over(rgba(getComputedStyle(el).color), back);
  const linear = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
  const lum = (c) => { const [r, g, b] = c.map(linear); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const [l1, l2] = [lum(fore), lum(back)].sort((a, b) => b - a);
  return (l1 + 0.05) / (l2 + 0.05);
}"""


# Nothing here searches, and Material's search worker rebuilds the site's whole index on every page load
# (about 0.45 CPU-s a load): in these tests it gets a worker that does nothing. The real worker, on every
# page, and search itself are test_browser.py's (each page's load, and test_search_finds_a_term_from_each_page).
NO_SEARCH_INDEX = """(() => {
  const Real = window.Worker;
  window.Worker = function (url, options) {
    const idle = URL.createObjectURL(new Blob([""], {type: "text/javascript"}));
    return new Real(String(url).includes("/workers/search") ? idle : url, options);
  };
})();"""


@pytest.fixture(params=COMBOS, ids=[f"{w}px-{s}" for w, s in COMBOS])
def reader(request, browser) -> Iterator[Tab]:  # noqa: F811 - the fixture of test_browser.py
    width, scheme = request.param
    context = browser.new_context(viewport={"width": width, "height": HEIGHT}, color_scheme=scheme)
    context.add_init_script(NO_SEARCH_INDEX)
    tab = Tab(context.new_page())
    tab.page.on("console", lambda message: tab.errors.append(message.text) if message.type == "error" else None)
    tab.page.on("pageerror", lambda error: tab.errors.append(f"uncaught: {error}"))
    yield tab
    assert tab.errors == [], "console errors"
    context.close()


def visit(tab: Tab, base: str, src_uri: str) -> None:
    tab.page.goto(base + page_url(src_uri), wait_until="load")


def legible(tab: Tab, selector: str) -> None:
    for n, contrast in enumerate(tab.page.locator(selector).evaluate_all(f"els => els.map({CONTRAST})")):
        assert contrast >= MIN_CONTRAST, f"{selector} #{n + 1}: contrast {contrast:.2f} is under {MIN_CONTRAST}"


def minutes(site_dir: Path, src_uri: str) -> int:  # noqa: F811
    text = (site_dir / page_url(src_uri) / "index.html").read_text(encoding="utf-8")
    return int(dict(CHROME_FIGURE.findall(text))["read"])


def test_the_home_page_presents_both_courses_from_the_nav(reader, base_url, site):  # noqa: F811
    page = reader.page
    page.goto(base_url, wait_until="load")
    with screenshot_on_failure(reader, "home-syllabus"):
        for section in dict.fromkeys(p.course for p in PAGES):
            course = [p for p in PAGES if p.course == section]
            box = page.locator(f'[data-syllabus-course="{NAMES.get(section, section)}"]')
            assert box.is_visible()
            total = sum(minutes(site, p.src_uri) for p in course)
            assert f"{len(course)} page{'s' if len(course) != 1 else ''} · {total} min" in box.inner_text()
            for chapter in dict.fromkeys(p.chapter for p in course):
                assert chapter in box.inner_text()
            entries = box.locator("[data-progress-entry]")
            assert entries.count() == len(course)
            for n, entry in enumerate(course):
                text = entries.nth(n).inner_text()
                assert entry.title in text and f"{minutes(site, entry.src_uri)} min" in text
        start = page.locator("[data-progress-continue-link]")
        assert start.inner_text() == PAGES[0].title  # nothing read yet: start at the beginning
        legible(reader, ".course-syllabus__minutes")
        legible(reader, ".course-syllabus__figures")


def test_progress_is_honest_and_kept_in_the_browser(reader, base_url):  # noqa: F811
    """Marked read: kept under the page's address without its #fragment, ticked on the syllabus entries (the
    navigation's pages, the home page's list) and never on the page's own headings; "Continue" then leads to
    the first unread page after the last one marked read."""
    page = reader.page
    here = PAGES[1]
    reader.page.goto(base_url + page_url(here.src_uri) + "#course-chrome", wait_until="load")  # in at a #fragment
    with screenshot_on_failure(reader, "progress"):
        bar = page.locator('[data-chrome="progress"]')
        assert (bar.evaluate("b => b.value"), bar.evaluate("b => b.max")) == (here.number - 1, here.count)
        mark = page.locator("[data-progress-mark]").first
        assert mark.get_attribute("aria-pressed") == "false"
        mark.click()
        assert mark.get_attribute("aria-pressed") == "true"
        page.reload(wait_until="load")
        assert page.locator("[data-progress-mark]").first.get_attribute("aria-pressed") == "true"
        assert page.locator('[data-chrome="read-count"]').inner_text() == f"· 1 of {here.count} marked read"
        headings = page.locator("a.md-nav__link[href^='#']")
        assert headings.count() > 0, "the page's table of contents is in the page"
        assert page.locator("a.md-nav__link.is-read[href^='#']").count() == 0, "a heading of the page is ticked"
        ticked = page.locator(".md-sidebar--primary a.md-nav__link.is-read").evaluate_all(
            "links => links.map(a => new URL(a.href).pathname)")
        assert ticked and set(ticked) == {"/" + page_url(here.src_uri)}, ticked
        assert page.evaluate("document.cookie") == ""
        stored = json.loads(page.evaluate("localStorage.getItem('evidencedesk-progress')"))
        assert list(stored["read"]) == [page_url(here.src_uri)]
        page.goto(base_url, wait_until="load")
        assert page.locator(f'[data-progress-entry="{page_url(here.src_uri)}"]').evaluate(
            "e => e.classList.contains('is-read')")
        assert page.locator("[data-progress-entry].is-read").count() == 1
        assert page.locator("[data-progress-continue-title]").inner_text() == "Continue where you left off"
        resume = page.locator("[data-progress-continue-link]")
        following = PAGES[2]
        assert (resume.inner_text(), resume.evaluate("a => a.href")) == (following.title,
                                                                         base_url + page_url(following.src_uri))
        legible(reader, "[data-progress-continue] p:not(.admonition-title)")
        # The page after it read too (as a reader marks it on another visit): "Continue" skips it.
        page.evaluate("""key => {
          const stored = JSON.parse(localStorage.getItem('evidencedesk-progress'));
          stored.read[key] = 'read elsewhere';
          localStorage.setItem('evidencedesk-progress', JSON.stringify(stored));
        }""", page_url(following.src_uri))
        page.reload(wait_until="load")
        assert resume.evaluate("a => a.href") == base_url + page_url(PAGES[3].src_uri)


# Each combination of width and scheme loads each page it looks at once, and runs on that load every check
# that concerns the page: the first and last page of each course and one page between (the kit box and
# its link, course complete, the notebook and script links, the syllabus), the two pages with kit
# excerpts, and the two whose diagrams and tables are widest on a phone. That the chrome of every page
# holds the right links and boxes is read from the built HTML (test_every_course_page_links_the_kit_...).
LOOKED_AT = list(dict.fromkeys([p for p in PAGES if p.number in (1, p.count)] + [PAGES[1]]))
EXCERPT_PAGES = ("beginner/provider-neutral-llm-clients.md", "advanced/agent-loops-state-memory.md")
PHONE_PAGES = ("advanced/agent-loops-state-memory.md", "beginner/safe-failure-security-regression-tests.md")
NOTEBOOK_PAGES = (PAGES[0].src_uri, PAGES[-1].src_uri)
SYLLABUS_PAGES = (PAGES[1].src_uri, PAGES[-1].src_uri)
KEYBOARD_PAGE = PAGES[1].src_uri
BY_SRC = {p.src_uri: p for p in PAGES}
TOURED = list(dict.fromkeys([p.src_uri for p in LOOKED_AT] + [*EXCERPT_PAGES, *PHONE_PAGES, *NOTEBOOK_PAGES,
                                                               *SYLLABUS_PAGES]))


def built_page(folder: Path, src_uri: str) -> str:
    """The built HTML of a page of the site in folder."""
    return (folder / page_url(src_uri) / "index.html").read_text(encoding="utf-8")


def test_every_course_page_links_the_kit_and_only_first_and_last_pages_hold_their_boxes(site):  # noqa: F811
    for here in PAGES:
        html = built_page(site, here.src_uri)
        first = next(p for p in PAGES if p.course == here.course)
        kit = re.search(r'<a [^>]*data-chrome="kit" href="([^"]*)"', html)
        assert kit, here.title
        assert urljoin("/" + page_url(here.src_uri), kit.group(1)) == "/" + page_url(first.src_uri) + "#get-the-kit"
        assert ('id="get-the-kit"' in html) == (here == first), here.title
        assert ('data-chrome="complete"' in html) == (here.number == here.count), here.title


@pytest.mark.parametrize("src_uri", TOURED)
def test_what_a_reader_finds_on_the_page(reader, base_url, site, src_uri):  # noqa: F811
    """One load of the page, then each check that concerns it; the syllabus last, since it opens the drawer."""
    here = BY_SRC[src_uri]
    visit(reader, base_url, src_uri)
    with screenshot_on_failure(reader, f"reader-{page_url(src_uri)}"):
        if here in LOOKED_AT:
            check_the_kit_box_and_the_link_to_it(reader, base_url, here)
            check_course_complete_and_where_it_leads(reader, base_url, here)
        if src_uri in EXCERPT_PAGES:
            check_kit_excerpts_are_python_titled_numbered_and_never_wrapped(reader, src_uri)
        if src_uri in PHONE_PAGES:
            check_diagrams_fit_or_say_they_scroll_and_table_cells_keep_words_whole(reader, site, src_uri)
        if src_uri in NOTEBOOK_PAGES:
            check_the_notebook_and_script_links(reader, here)
        if src_uri == KEYBOARD_PAGE:
            check_the_keyboard_stays_on_screen_and_skips_to_the_chrome(reader)
        if src_uri in SYLLABUS_PAGES:
            check_the_syllabus_shows_each_page_with_its_minutes_and_marks_this_one(reader, site, here)


def check_the_kit_box_and_the_link_to_it(reader, base_url, here) -> None:  # noqa: F811 - a parameter
    """The first page of each course has the kit box (download, install, where Bash runs); every page links it."""
    page = reader.page
    first = next(p for p in PAGES if p.course == here.course)
    link = page.locator('[data-chrome="kit"]')
    assert link.is_visible()
    assert link.evaluate("a => a.href") == base_url + page_url(first.src_uri) + "#get-the-kit"
    box = page.locator("#get-the-kit")
    if here != first:
        assert box.count() == 0
        return
    assert box.is_visible()
    text = box.inner_text()
    assert "evidencedesk-kit/" in text and 'pip install -e ".[test]"' in text and "Bash" in text
    download = box.locator("a[download]").evaluate("a => a.href")
    status = page.evaluate("url => fetch(url).then(r => r.status)", download)
    assert download.endswith("downloads/evidencedesk-kit.zip") and status == 200
    legible(reader, "#get-the-kit p:not(.admonition-title)")


def check_course_complete_and_where_it_leads(reader, base_url, here) -> None:  # noqa: F811 - a parameter
    """The last page of each course says the course is complete and links the next course, or home."""
    page = reader.page
    box = page.locator('[data-chrome="complete"]')
    if here.number != here.count:
        assert box.count() == 0, here.title
        return
    assert box.is_visible() and "Course complete" in box.inner_text()
    sections = list(dict.fromkeys(p.course for p in PAGES))
    following = sections.index(here.course) + 1
    target = (page_url(next(p for p in PAGES if p.course == sections[following]).src_uri)
              if following < len(sections) else "")
    assert page.locator('[data-chrome="next-course"]').evaluate("a => a.href") == base_url + target
    legible(reader, '[data-chrome="complete"] p:not(.admonition-title)')


def check_kit_excerpts_are_python_titled_numbered_and_never_wrapped(reader, src_uri) -> None:
    """Each `sed -n` excerpt of a kit file is Python, titled with its file, numbered as in it, never wrapped."""
    page = reader.page
    expected = [e for s in read_page(ROOT, src_uri) if s.block.language == "bash"
                for e in kit_excerpts(s.block.code, s.output, ROOT) or []]
    boxes = page.locator("article .kit-excerpt").evaluate_all("""els => els.map(box => {
      const code = box.querySelector('pre > code');
      return {title: box.querySelector('.filename').textContent, text: code.textContent,
              python: box.classList.contains('language-python'),
              tokens: code.querySelectorAll('.k, .nf, .s2').length,
              white: getComputedStyle(code).whiteSpace,
              numbers: [...code.querySelectorAll('[data-linenos]')].map(n => Number(n.dataset.linenos)),
              gaps: [...code.querySelectorAll('.kit-excerpt__gap')].map(
                g => getComputedStyle(g, '::before').content),
              tall: [...code.querySelectorAll('.kit-excerpt__line:not(.kit-excerpt__gap)')].filter(l =>
                l.getBoundingClientRect().height > 1.5 * parseFloat(getComputedStyle(code).lineHeight)
              ).length};
    })""")
    assert len(boxes) == len(expected)
    for box, excerpt in zip(boxes, expected, strict=True):
        assert box["title"] == excerpt.path and box["python"] and box["tokens"] > 0
        assert box["text"] == "".join(line + "\n" for _, line in excerpt.lines), "the printed text changed"
        assert box["numbers"] == [n for n, _ in excerpt.lines]
        assert len(box["gaps"]) == len(excerpt.gaps()) and all("not shown" in g for g in box["gaps"])
        assert box["white"] == "pre" and box["tall"] == 0, "an excerpt line wraps"
    legible(reader, "article .kit-excerpt .filename")


def check_diagrams_fit_or_say_they_scroll_and_table_cells_keep_words_whole(reader, site, src_uri) -> None:  # noqa: F811
    """Every diagram fits the width or shows that it scrolls; table cells break between words, never inside."""
    page = reader.page
    diagrams = (site / page_url(src_uri) / "index.html").read_text(encoding="utf-8").count('<div class="diagram"')
    page.wait_for_function(f"() => document.querySelectorAll('div.diagram + .diagram-scroll-hint').length === "
                           f"{diagrams}", timeout=WAIT_MS)
    page.wait_for_function("() => [...document.querySelectorAll('div.diagram')].every(d => "
                           "d.nextElementSibling.hidden === (d.scrollWidth <= d.clientWidth + 1))",
                           timeout=WAIT_MS)
    for diagram in page.locator("article div.diagram").evaluate_all("""els => els.map(d => ({
        fits: d.scrollWidth <= d.clientWidth + 1, scrolls: getComputedStyle(d).overflowX,
        hint: !d.nextElementSibling.hidden && d.nextElementSibling.getBoundingClientRect().height > 0}))"""):
        assert diagram["fits"] or (diagram["scrolls"] == "auto" and diagram["hint"]), diagram
    split = page.locator("article td code").evaluate_all("els => els.filter(c => c.getClientRects().length > 1)"
                                                         ".map(c => c.textContent)")
    assert split == [], f"identifiers broken across lines in a table at {reader.width} px"
    styles = page.locator("article td").evaluate_all(
        "els => [...new Set(els.map(t => getComputedStyle(t).wordBreak + '/' + "
        "getComputedStyle(t).overflowWrap))]")
    assert all(s == "normal/normal" for s in styles), styles
    if page.locator(".diagram-scroll-hint:not([hidden])").count():
        legible(reader, ".diagram-scroll-hint:not([hidden])")


def check_the_notebook_and_script_links(reader, here) -> None:
    """The chrome links the page as a notebook (its shown blocks as cells) and as a script."""
    page = reader.page
    notebook = page.locator('[data-chrome="notebook"]').evaluate("a => a.href")
    script = page.locator('[data-chrome="script"]').evaluate("a => a.href")
    assert notebook.endswith(".ipynb") and script.endswith(".py")
    book = page.evaluate("url => fetch(url).then(r => r.json())", notebook)
    code = [c for c in book["cells"] if c["cell_type"] == "code"]
    shown = read_page(ROOT, here.src_uri)
    assert len(code) == len(shown) and book["nbformat"] == 4
    text = page.evaluate("url => fetch(url).then(r => r.text())", script)
    assert re.search(rf"^{re.escape(here.title)}: every block", text.removeprefix('"""'))


# Where the focused element is: its box, and what it is, for the message.
FOCUSED = """() => { const el = document.activeElement; const r = el.getBoundingClientRect();
  return {left: r.left, right: r.right, width: r.width, height: r.height, body: el === document.body,
          what: el.tagName.toLowerCase() + (el.className ? "." + String(el.className).split(" ")[0] : "") + " "
                + (el.textContent || el.getAttribute("aria-label") || "").trim().slice(0, 40)}; }"""
MAX_TABS = 400  # a bound on the walk (the page has fewer focusable things), never an assertion about speed


def check_the_keyboard_stays_on_screen_and_skips_to_the_chrome(reader) -> None:
    """Tab walks the whole page (header, article, footer) and every element it focuses is on screen, the
    closed drawer's included (none: it takes no focus while closed); "Skip to content" lands on the course
    chrome above the title."""
    page = reader.page
    page.evaluate("() => { document.activeElement.blur(); window.scrollTo(0, 0); }")
    page.keyboard.press("Tab")
    first = page.evaluate(FOCUSED)
    assert "md-skip" in first["what"], f"the first Tab stop is {first['what']!r}, not 'Skip to content'"
    page.keyboard.press("Enter")
    page.wait_for_function("() => location.hash !== ''", timeout=WAIT_MS)
    landed = page.evaluate("() => location.hash")
    assert landed == "#course-chrome", f"'Skip to content' lands on {landed}, not on the course chrome"
    page.keyboard.press("Tab")  # the next stop after the chrome's own start is inside the chrome
    inside = page.evaluate("() => !!document.activeElement.closest('[data-chrome=chrome]')")
    assert inside, f"after 'Skip to content' Tab goes to {page.evaluate(FOCUSED)['what']!r}, not into the chrome"
    page.evaluate("() => { document.activeElement.blur(); history.replaceState(null, '', location.pathname); }")
    off_screen = []
    for _ in range(MAX_TABS):
        page.keyboard.press("Tab")
        where = page.evaluate(FOCUSED)
        if where["body"]:
            break
        if where["right"] <= 0 or where["left"] >= reader.width or where["width"] == 0 or where["height"] == 0:
            off_screen.append(f"{where['what']!r} at x={where['left']:.0f}..{where['right']:.0f}")
    else:
        raise AssertionError(f"Tab did not get round the page in {MAX_TABS} presses")
    assert off_screen == [], f"at {reader.width} px Tab focuses things off screen: " + "; ".join(off_screen[:10])


def check_the_syllabus_shows_each_page_with_its_minutes_and_marks_this_one(reader, site, here) -> None:  # noqa: F811
    """The navigation lists the course's pages with their minutes and marks this one (in the drawer on a phone)."""
    page = reader.page
    if reader.width < 1220:  # a phone or tablet: the syllabus is in the drawer
        page.locator('label.md-header__button[for="__drawer"]').click()
        page.wait_for_function("() => document.getElementById('__drawer').checked", timeout=WAIT_MS)
    # the current page's entry: its link, or on a phone the label that opens its contents (Material's)
    active = page.locator(".md-sidebar--primary .md-nav__link--active >> visible=true")
    active.first.wait_for(state="visible", timeout=WAIT_MS)
    assert here.title in active.first.inner_text()
    course = [p for p in PAGES if p.course == here.course]
    links = page.locator(".md-sidebar--primary .md-nav__link >> visible=true")
    for other in course:
        link = links.filter(has_text=other.title).first
        assert link.is_visible(), f"{other.title} is not in the syllabus of {here.title}"
        assert f"{minutes(site, other.src_uri)} min" in link.inner_text()
    page.wait_for_function(SETTLED, timeout=WAIT_MS)
    legible(reader, ".md-sidebar--primary .md-nav__link--active .md-ellipsis >> visible=true")
