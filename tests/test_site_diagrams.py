"""Mermaid diagrams drawn at build time (sitebuild/publish/diagrams.py, sitebuild/publish/draw.py).

The build inlines each diagram's approved SVG and fails, naming the page and the diagram, when one is
missing or no page needs it; `make accept` draws and drops them. A drawing that could run or load
anything is refused. Every approved drawing of the real site is drawn again in Chromium and must equal
the committed file (Mermaid with deterministicIds, one font and theme: the same source, the same SVG).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sitebuild.publish import diagrams, draw
from tests.conftest import REPO_ROOT, page

MERMAID_FENCES = """\
  - pymdownx.superfences:
      custom_fences:
        - name: mermaid
          class: mermaid
          format: !!python/name:pymdownx.superfences.fence_code_format
"""
FLOW = "```mermaid\nflowchart LR\n    A[\"ask\"] --> B[\"answer\"]\n```\n"
SVG = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" role="img" aria-label="Flowchart: a">'
       '<g class="node"><text>a</text></g>{}</svg>')
REAL_DATA = REPO_ROOT / "data"


def diagram_site(make_site, *markdown: str):
    site = make_site({"index.md": page(*markdown)})
    site.write("mkdocs.yml", site.config.read_text().replace("  - pymdownx.superfences\n", MERMAID_FENCES))
    return site


def test_a_diagram_without_an_approved_drawing_fails_the_build_naming_page_diagram_and_command(make_site):
    site = diagram_site(make_site, "Text.", FLOW)

    built = site.build()

    assert built.code != 0
    assert "docs/index.md: diagram 1 (flowchart LR): no approved drawing data/diagrams/" in built.output, built
    assert "run `make accept`" in built.output, built


def test_accept_draws_it_and_the_build_inlines_it_as_named_svg_without_mermaid(make_site):
    site = diagram_site(make_site, "Text.", FLOW)

    accepted = site.accept()
    built = site.build()
    html = site.html()

    assert accepted.code == 0 and "drawn (flowchart LR)" in accepted.output, accepted
    assert built.code == 0, built
    assert len(re.findall(r'<div class="diagram"[^>]*data-lines="2"><svg ', html)) == 1
    assert 'class="mermaid"' not in html
    assert 'role="img"' in html and 'aria-label="Flowchart: ask, answer' in html
    assert not re.search(r"<script[^>]*mermaid|mermaid\.(initialize|render)", html, re.I)  # nothing draws it again
    [svg] = (site.data / "diagrams").glob("*.svg")
    assert (site.data / "diagrams" / f"{svg.stem}.mmd").read_text() == FLOW.split("\n", 1)[1].rsplit("```", 1)[0]


def test_a_drawing_no_page_needs_fails_the_build_and_accept_removes_it(make_site):
    site = diagram_site(make_site, "Text.", FLOW)
    assert site.accept().code == 0
    site.page("index.md", page("Text.", FLOW.replace("answer", "reply")))

    built = site.build()

    assert built.code != 0
    assert "docs/index.md: diagram 1 (flowchart LR): no approved drawing" in built.output, built
    assert "is the drawing of a diagram no page holds; run `make accept` to remove it" in built.output, built
    accepted = site.accept()
    assert accepted.code == 0 and "removed (no page draws this diagram)" in accepted.output, accepted
    assert len(list((site.data / "diagrams").glob("*.svg"))) == 1 and site.build().code == 0


@pytest.mark.parametrize("bad", [
    '<script>alert(1)</script>',
    '<foreignObject><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject>',
    '<rect onload="alert(1)"/>',
    '<image href="https://example.org/x.png"/>',
    '<rect style="fill: url(https://example.org/x)"/>',
    '<style>@import "https://example.org/x.css";</style>',
])
def test_a_drawing_that_could_run_or_load_anything_is_refused(bad, tmp_path):
    diagram = diagrams.find('<pre class="mermaid"><code>flowchart LR\n  a</code></pre>')[0]
    diagram.svg_path(tmp_path).parent.mkdir()
    diagram.svg_path(tmp_path).write_text(SVG.format(bad))

    inlined = diagrams.inline_page('<pre class="mermaid"><code>flowchart LR\n  a</code></pre>', tmp_path)

    assert len(inlined.problems) == 1 and "diagram 1 (flowchart LR)" in inlined.problems[0], inlined.problems
    assert "<svg" not in inlined.html and "<pre><code>flowchart LR" in inlined.html


def test_a_safe_drawing_is_inlined_and_its_markers_may_point_inside_it(tmp_path):
    diagram = diagrams.find('<pre class="mermaid"><code>flowchart LR\n  a</code></pre>')[0]
    diagram.svg_path(tmp_path).parent.mkdir()
    diagram.svg_path(tmp_path).write_text(SVG.format('<path d="M0 0" marker-end="url(#arrow)"/>'))

    inlined = diagrams.inline_page('<p>x</p><pre class="mermaid"><code>flowchart LR\n  a</code></pre>', tmp_path)

    assert inlined.problems == [] and inlined.html.startswith('<p>x</p><div class="diagram"')


def test_the_digest_follows_the_source_and_the_renderer(monkeypatch):
    source = "flowchart LR\n  a --> b\n"
    before = diagrams.digest(source)
    assert diagrams.digest(source + "  \n") == before  # trailing blank space is not a change
    assert diagrams.digest(source.replace("b", "c")) != before
    monkeypatch.setattr(diagrams, "RENDER_KEY", diagrams.RENDER_KEY + "x")
    assert diagrams.digest(source) != before


def test_every_approved_drawing_is_the_drawing_of_its_source_drawn_again():
    """The committed drawings of the real site: each file is named by its source's digest, and Chromium draws
    that source into exactly the committed SVG (so a drawing is reproducible and no one edited it by hand)."""
    sources = sorted((REAL_DATA / diagrams.FOLDER).glob("*.mmd"))
    assert sources, "the real site has diagrams, each with its source in data/diagrams/"
    found = [diagrams.Diagram(p.read_text(encoding="utf-8"), p.stem) for p in sources]
    assert [d.digest for d in found] == [diagrams.digest(d.source) for d in found]
    assert sorted(p.stem for p in (REAL_DATA / diagrams.FOLDER).glob("*.svg")) == [d.digest for d in found]

    drawn = draw.draw(found)

    for diagram in found:
        committed = diagram.svg_path(REAL_DATA).read_text(encoding="utf-8")
        assert drawn[diagram.digest] == committed, f"data/diagrams/{diagram.digest}.svg differs from its drawing"


def test_the_vendored_mermaid_is_kept_out_of_the_site(real_site: Path):
    assert diagrams.VENDOR.is_file()
    assert not list(real_site.rglob("mermaid*.js")), "no page loads Mermaid, so the site does not publish it"
    pages = list(real_site.rglob("index.html"))
    assert not [p for p in pages if 'class="mermaid"' in p.read_text(encoding="utf-8")]
    assert sum('<div class="diagram"' in p.read_text(encoding="utf-8") for p in pages) >= 10


def test_a_symbol_nothing_uses_is_left_out_and_a_used_one_kept():
    """Mermaid's sequence diagrams define every participant shape; its unused "database" shape's path is
    malformed and Chromium logs an error for it, so the inlined drawing keeps only the symbols it uses."""
    from sitebuild.publish.diagrams import unused_symbols_removed

    svg = ('<svg><defs><symbol id="d-database"><path d="M1 1v-17l.001-.45-.45"/></symbol>'
           '<symbol id="d-actor"><path d="M0 0h1"/></symbol></defs><use href="#d-actor"/></svg>')
    kept = unused_symbols_removed(svg)
    assert "d-database" not in kept and "v-17l" not in kept
    assert '<symbol id="d-actor"><path d="M0 0h1"/></symbol>' in kept
