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

from sitebuild.coursenav import course_pages, page_url
from sitebuild.excerpts import kit_excerpts
from sitebuild.notebooks import read_page
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


@pytest.fixture(params=COMBOS, ids=[f"{w}px-{s}" for w, s in COMBOS])
def reader(request, browser) -> Iterator[Tab]:  # noqa: F811 - the fixture of test_browser.py
    width, scheme = request.param
    context = browser.new_context(viewport={"width": width, "height": HEIGHT}, color_scheme=scheme)
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


def test_the_syllabus_shows_each_page_of_the_course_with_its_minutes_and_marks_this_one(reader, base_url, site):  # noqa: F811
    page = reader.page
    for here in (PAGES[1], PAGES[-1]):
        visit(reader, base_url, here.src_uri)
        with screenshot_on_failure(reader, f"syllabus-{page_url(here.src_uri)}"):
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


# The browser looks at the first and last page of each course and one page in between; that the chrome on
# every page holds the right links and boxes is read from the built HTML (test_every_course_page_...).
LOOKED_AT = list(dict.fromkeys([p for p in PAGES if p.number in (1, p.count)] + [PAGES[1]]))


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


def test_the_first_page_of_each_course_has_the_kit_box_and_every_page_links_to_it(reader, base_url):  # noqa: F811
    page = reader.page
    for here in LOOKED_AT:
        visit(reader, base_url, here.src_uri)
        with screenshot_on_failure(reader, f"kit-{page_url(here.src_uri)}"):
            first = next(p for p in PAGES if p.course == here.course)
            link = page.locator('[data-chrome="kit"]')
            assert link.is_visible()
            assert link.evaluate("a => a.href") == base_url + page_url(first.src_uri) + "#get-the-kit"
            box = page.locator("#get-the-kit")
            if here != first:
                assert box.count() == 0
                continue
            assert box.is_visible()
            text = box.inner_text()
            assert "evidencedesk-kit/" in text and 'pip install -e ".[test]"' in text and "Bash" in text
            download = box.locator("a[download]").evaluate("a => a.href")
            status = page.evaluate("url => fetch(url).then(r => r.status)", download)
            assert download.endswith("downloads/evidencedesk-kit.zip") and status == 200
            legible(reader, "#get-the-kit p:not(.admonition-title)")


def test_kit_excerpts_are_python_titled_with_their_file_numbered_and_never_wrapped(reader, base_url):  # noqa: F811
    page = reader.page
    for src_uri in ("beginner/provider-neutral-llm-clients.md", "advanced/agent-loops-state-memory.md"):
        expected = [e for s in read_page(ROOT, src_uri) if s.block.language == "bash"
                    for e in kit_excerpts(s.block.code, s.output, ROOT) or []]
        visit(reader, base_url, src_uri)
        with screenshot_on_failure(reader, f"excerpts-{page_url(src_uri)}"):
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


def test_progress_is_honest_and_kept_in_the_browser(reader, base_url):  # noqa: F811
    page = reader.page
    here = PAGES[1]
    visit(reader, base_url, here.src_uri)
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
        assert page.locator(".md-sidebar--primary a.md-nav__link.is-read").count() >= 1
        assert page.evaluate("document.cookie") == ""
        stored = json.loads(page.evaluate("localStorage.getItem('evidencedesk-progress')"))
        assert list(stored["read"]) == [page_url(here.src_uri)]
        page.goto(base_url, wait_until="load")
        assert page.locator("[data-progress-continue-title]").inner_text() == "Continue where you left off"
        resume = page.locator("[data-progress-continue-link]")
        assert resume.inner_text() == here.title
        assert resume.evaluate("a => a.href") == base_url + page_url(here.src_uri)
        assert page.locator(f'[data-progress-entry="{page_url(here.src_uri)}"]').evaluate(
            "e => e.classList.contains('is-read')")
        legible(reader, "[data-progress-continue] p:not(.admonition-title)")


def test_the_last_page_of_each_course_says_it_is_complete_and_where_to_go_next(reader, base_url):  # noqa: F811
    page = reader.page
    sections = list(dict.fromkeys(p.course for p in PAGES))
    for here in LOOKED_AT:
        visit(reader, base_url, here.src_uri)
        box = page.locator('[data-chrome="complete"]')
        if here.number != here.count:
            assert box.count() == 0, here.title
            continue
        with screenshot_on_failure(reader, f"complete-{page_url(here.src_uri)}"):
            assert box.is_visible() and "Course complete" in box.inner_text()
            following = sections.index(here.course) + 1
            target = (page_url(next(p for p in PAGES if p.course == sections[following]).src_uri)
                      if following < len(sections) else "")
            assert page.locator('[data-chrome="next-course"]').evaluate("a => a.href") == base_url + target
            legible(reader, '[data-chrome="complete"] p:not(.admonition-title)')


def test_on_a_phone_diagrams_fit_or_say_they_scroll_and_table_cells_keep_words_whole(reader, base_url, site):  # noqa: F811
    page = reader.page
    for src_uri in ("advanced/agent-loops-state-memory.md", "beginner/safe-failure-security-regression-tests.md"):
        visit(reader, base_url, src_uri)
        diagrams = (site / page_url(src_uri) / "index.html").read_text(encoding="utf-8").count('<pre class="mermaid">')
        with screenshot_on_failure(reader, f"phone-{page_url(src_uri)}"):
            page.wait_for_function(f"() => document.querySelectorAll('div.mermaid + .diagram-scroll-hint').length === "
                                   f"{diagrams}", timeout=WAIT_MS)
            page.wait_for_function("() => [...document.querySelectorAll('div.mermaid')].every(d => "
                                   "d.nextElementSibling.hidden === (d.scrollWidth <= d.clientWidth + 1))",
                                   timeout=WAIT_MS)
            for diagram in page.locator("article div.mermaid").evaluate_all("""els => els.map(d => ({
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


def test_every_course_page_links_its_notebook_and_script(reader, base_url):  # noqa: F811
    page = reader.page
    for here in (PAGES[0], PAGES[-1]):
        visit(reader, base_url, here.src_uri)
        with screenshot_on_failure(reader, f"notebook-{page_url(here.src_uri)}"):
            notebook = page.locator('[data-chrome="notebook"]').evaluate("a => a.href")
            script = page.locator('[data-chrome="script"]').evaluate("a => a.href")
            assert notebook.endswith(".ipynb") and script.endswith(".py")
            book = page.evaluate("url => fetch(url).then(r => r.json())", notebook)
            code = [c for c in book["cells"] if c["cell_type"] == "code"]
            shown = read_page(ROOT, here.src_uri)
            assert len(code) == len(shown) and book["nbformat"] == 4
            text = page.evaluate("url => fetch(url).then(r => r.text())", script)
            assert re.search(rf"^{re.escape(here.title)}: every block", text.removeprefix('"""'))
