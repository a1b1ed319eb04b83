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

import re

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
SHOWN = {
    **{f"{name}.md": page(markdown_block(*lines, "form shown")) for name, lines in {**IMAGE_FORMS, **OTHER_LOADS}.items()},
}


@pytest.fixture(scope="module")
def shown(tmp_path_factory):
    """The fixture site with every page above, accepted once and built once (strict): the Site."""
    site = create_site(tmp_path_factory.mktemp("markdown-output") / "site", SHOWN)
    accepted = site.accept()
    assert accepted.code == 0, accepted
    built = site.build()
    assert built.code == 0, built
    return site


def article(html: str) -> str:
    return html[html.index("<article"): html.index("</article>")]


@pytest.mark.parametrize("name", [*IMAGE_FORMS, *OTHER_LOADS])
def test_nothing_in_a_markdown_output_makes_the_browser_load_anything(name, shown):
    html = article(shown.html(f"{name}.md"))

    assert "form shown" in html  # the output itself is on the page
    tags = re.findall(r"<[a-zA-Z][^>]*>", html)
    loading = [t for t in tags if re.match(r"<(img|picture|source|video|audio|iframe|object|embed|image|use|link|style)\b", t)
               or re.search(r"\s(src|srcset|poster|style|data)=", t)]
    assert not loading, loading
    assert HOST not in html and "url(" not in html
