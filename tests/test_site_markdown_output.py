"""What an output="markdown" output may put on a page (issue 26, cases 7 and 8).

7. Nothing in it makes a reader's browser load anything: every form of image (Markdown's, reference-style,
   raw <img>, a badge inside a link, one in a heading) is dropped, and so is every other tag or attribute
   that loads (picture, video, iframe, SVG image and use, style=, input type=image, link).
8. It is Markdown like the author's: a link to a page becomes the page's URL, a link to a missing page or
   anchor fails the strict build with MkDocs' own message, and a printed heading is an anchor prose can
   link to (with updatetoc and idprefix honoured).

The pages that build cleanly share one fixture site, accepted once and built once (`shown`).
"""

from __future__ import annotations

import html as html_lib
import re
from pathlib import Path

import pytest

from tests.conftest import create_site, fence, page

pytestmark = pytest.mark.site

HOST = "images.example"  # no page may name it once built: any mention would be a request to it


def markdown_block(*lines: str, **options: str) -> str:
    """A python block printing each line, its output rendered as Markdown."""
    code = "\n".join(f"print({line!r})" for line in lines)
    return fence(code, output="markdown", show="output", **options)


IMAGE_FORMS = {  # the forms that reached the page before the fix
    "markdown-image": ["![a chart](chart.png) and ![remote](https://images.example/remote.png)"],
    "reference-image": ["![a logo][logo]", "", "[logo]: https://images.example/logo.png"],
    "raw-img": ['<img src="https://images.example/raw.png" alt="raw">', "", "<img src=x.png>"],
    "badge-in-link": ["[![build](https://images.example/badge.svg)](https://example.org/ci)"],
    "image-in-heading": ["## Results ![icon](https://images.example/icon.png)"],
}
OTHER_LOADS = {  # forms the sanitizer already dropped before the fix, kept so they stay dropped
    "picture": ['<picture><source srcset="https://images.example/p.webp"><img src="p.png"></picture>'],
    "video": ['<video poster="https://images.example/v.jpg" src="https://images.example/v.mp4"></video>'],
    "svg-image-use": ['<svg><image href="https://images.example/s.png"/>'
                      '<use href="https://images.example/sprite.svg#i"/></svg>'],
    "style": ['<p style="background: url(https://images.example/bg.png)">styled</p>',
              "<style>body { background: url(https://images.example/bg2.png) }</style>"],
    "embeds": ['<iframe src="https://images.example/frame"></iframe>', '<input type="image" src="https://images.example/i">',
               '<link rel="stylesheet" href="https://images.example/s.css">', '<object data="https://images.example/o">'],
}
IMAGE_PAGES = {f"{name}.md": page(markdown_block(*lines, "form shown"))
               for name, lines in {**IMAGE_FORMS, **OTHER_LOADS}.items()}


@pytest.fixture(scope="module")
def images(tmp_path_factory):
    """IMAGE_PAGES accepted once and built once (strict), which must pass: the Site."""
    site = create_site(tmp_path_factory.mktemp("markdown-images") / "site", IMAGE_PAGES)
    accepted = site.accept()
    assert accepted.code == 0, accepted
    built = site.build()
    assert built.code == 0, built
    return site


def article(html: str) -> str:
    return html[html.index("<article"): html.index("</article>")]


@pytest.mark.parametrize("name", [*IMAGE_FORMS, *OTHER_LOADS])
def test_nothing_in_a_markdown_output_makes_the_browser_load_anything(name, images):
    html = article(images.html(f"{name}.md"))

    assert "form shown" in html  # the output itself is on the page
    tags = re.findall(r"<[a-zA-Z][^>]*>", html)
    loads = r"<(img|picture|source|video|audio|iframe|object|embed|image|use|link|style)\b"
    loading = [t for t in tags if re.match(loads, t) or re.search(r"\s(src|srcset|poster|style|data)=", t)]
    assert not loading, loading
    assert HOST not in html and "url(" not in html


# 8. Links and headings, as MkDocs treats the author's ---------------------------------------------------

LINKED_PAGES = {
    "index.md": page("The home page."),
    "other.md": page("Back to [the printed results](linked.md#printed-results).\n\n## Other heading\n",
                     title="Other"),
    "linked.md": page(
        markdown_block("[home](index.md), [a heading elsewhere](other.md#other-heading), [this page](linked.md)",
                       "", "## Printed results", "", "[up to the results](#printed-results)"),
        "Prose links to [the printed results](#printed-results).\n",
        markdown_block("## Prefixed", id="prefixed", idprefix="pre-"),
        markdown_block("## Kept out of the contents", id="untold", updatetoc="no"),
        "And to [the prefixed one](#pre-prefixed) and [the untold one](#kept-out-of-the-contents).\n",
        fence("print('[as text](index.md) ![as text](x.png)')"),
        title="Linked"),
    "guide/deep.md": page(markdown_block("[home](../index.md) and [other](../other.md#other-heading)"),
                          title="Deep"),
}


@pytest.fixture(scope="module")
def linked(tmp_path_factory):
    """LINKED_PAGES accepted, then built once (strict): (the Site, the build run), each test checks its part."""
    site = create_site(tmp_path_factory.mktemp("markdown-links") / "site", LINKED_PAGES)
    accepted = site.accept()
    assert accepted.code == 0, accepted
    return site, site.build()


def hrefs(html: str) -> dict[str, str]:
    """{link text: href} of the links in the page's article."""
    return {reader_text(text): href for href, text in re.findall(r'<a href="([^"]*)"[^>]*>(.*?)</a>', article(html))}


def reader_text(fragment: str) -> str:
    return html_lib.unescape(re.sub(r"<[^>]+>", "", fragment)).strip()


def test_a_printed_link_to_a_page_becomes_the_pages_url(linked):
    linked, _ = linked
    links = hrefs(linked.html("linked.md"))

    assert links["home"] == "../"
    assert links["a heading elsewhere"] == "../other/#other-heading"
    assert links["this page"] == "./"
    assert (linked.out / "other" / "index.html").is_file() and 'id="other-heading"' in linked.html("other.md")


def test_a_printed_relative_link_from_a_page_in_a_folder_resolves_from_that_folder(linked):
    linked, _ = linked
    links = hrefs(linked.html("guide/deep.md"))

    assert links["home"] == "../../" and links["other"] == "../../other/#other-heading"


def test_a_printed_heading_is_an_anchor_prose_on_its_page_and_on_others_can_link_to(linked):
    linked, built = linked
    html = article(linked.html("linked.md"))

    assert built.code == 0 and "WARNING" not in built.output, built  # MkDocs found every anchor, under strict
    for anchor in ("printed-results", "pre-prefixed", "kept-out-of-the-contents"):
        assert html.count(f'id="{anchor}"') == 1, anchor
    assert hrefs(linked.html("linked.md"))["the printed results"] == "#printed-results"
    assert hrefs(linked.html("other.md"))["the printed results"] == "../linked/#printed-results"


def test_printed_headings_join_the_table_of_contents_unless_updatetoc_is_no(linked):
    linked, _ = linked
    html = linked.html("linked.md")
    toc = html[html.index('<nav class="md-nav md-nav--secondary"'):html.index("<article")]

    assert 'href="#printed-results"' in toc and 'href="#pre-prefixed"' in toc
    assert "kept-out-of-the-contents" not in toc


def test_links_in_a_text_output_stay_escaped_text(linked):
    linked, _ = linked
    html = article(linked.html("linked.md"))

    assert "[as text](index.md) ![as text](x.png)" in html_lib.unescape(html)
    assert "as text</a>" not in html


BROKEN_PAGES = {  # page: (its Markdown, MkDocs' own message about it)
    "missing-page.md": (page(markdown_block("[gone](missing.md)")),
                        "Doc file 'missing-page.md' contains a link 'missing.md', but the target is not found among "
                        "documentation files."),
    "missing-anchor.md": (page(markdown_block("[nowhere](index.md#nowhere)")),
                          "Doc file 'missing-anchor.md' contains a link 'index.md#nowhere', but the doc 'index.md' "
                          "does not contain an anchor '#nowhere'."),
    "missing-own-anchor.md": (page(markdown_block("## Printed", "", "[gone](#not-printed)")),
                              "Doc file 'missing-own-anchor.md' contains a link '#not-printed', but there is no such "
                              "anchor on this page."),
    "clash.md": (page(markdown_block("## Results", updatetoc="no"), "## Results\n"),
                 "its Markdown output holds the id 'results', which the page holds again"),
}


@pytest.fixture(scope="module")
def broken(tmp_path_factory):
    """A site whose every page holds one broken printed link (or a clashing id), built once (strict)."""
    pages = {"index.md": page("Home."), **{name: markdown for name, (markdown, _) in BROKEN_PAGES.items()}}
    site = create_site(tmp_path_factory.mktemp("markdown-broken") / "site", pages)
    site.accept()  # approves every output; the clash fails the page there too
    built = site.build()
    assert "has no approved output" not in built.output, built
    return built


@pytest.mark.parametrize("name", BROKEN_PAGES)
def test_a_broken_printed_link_fails_the_strict_build_with_mkdocs_own_message(name, broken):
    assert broken.code != 0 and BROKEN_PAGES[name][1] in broken.output, broken


def test_a_printed_mermaid_diagram_that_could_load_is_shown_as_its_source(make_site):
    site = make_site({"index.md": page(
        markdown_block("```mermaid", "flowchart TB", '    A@{ img: "https://images.example/m.png", label: "a" }', "```",
                       "", "```mermaid", "flowchart TB", '    B["drawn"] --> C["fine"]', "```"))})
    site.write("mkdocs.yml", site.config.read_text().replace("  - pymdownx.superfences\n", """\
  - pymdownx.superfences:
      custom_fences:
        - name: mermaid
          class: mermaid
          format: !!python/name:pymdownx.superfences.fence_code_format
"""))
    assert site.accept().code == 0
    built = site.build()
    html = article(site.html())

    assert built.code == 0, built
    assert html.count('class="diagram"') == 1 and "drawn" in html  # the harmless one is still a diagram (an SVG)
    assert re.search(r'<pre><code>flowchart TB\n\s+A@\{ img: "https://images\.example', html), html


def test_contributing_names_the_new_message():
    text = (Path(__file__).resolve().parents[1] / "CONTRIBUTING.md").read_text(encoding="utf-8")

    assert "which the page holds again" in text and "not found among documentation files" in text
