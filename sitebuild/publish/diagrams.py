"""Mermaid diagrams as inline SVG: each page's diagrams are drawn once, approved, and inlined by the build.

A ```mermaid fence (or a block's output="markdown" that prints one) reaches the page's HTML as
<pre class="mermaid"><code>SOURCE</code></pre>. The build (hook.on_page_content) swaps each for the
approved drawing of that SOURCE, data/diagrams/<digest>.svg, where the digest is a SHA-256 of the
source and of how it is drawn (RENDER_KEY: Mermaid's version and configuration), so that a changed
source or renderer needs a new drawing. Next to each drawing, <digest>.mmd keeps the source it was
drawn from, for review in `git diff` and for the test that draws it again.

A drawing is checked every time it is inlined (check_svg): only the SVG elements and attributes
Mermaid writes, no script, no event handler, no link, nothing that loads (url() only to the
drawing's own #ids). It is named for assistive technology (role="img", aria-label: Mermaid's
accTitle where the source has one, else the kind of diagram and its first labels).

Left out: drawing itself, which needs Chromium (sitebuild/publish/draw.py, run by `make accept`); the
page's other HTML; deciding which printed diagrams are safe to draw (mdoutput.py).
"""

from __future__ import annotations

import hashlib
import html
import json
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

MERMAID_VERSION = "11.17.2"
VENDOR = Path(__file__).resolve().parent / "vendor" / f"mermaid-{MERMAID_VERSION}.min.js"
# How every diagram is drawn: Mermaid's own ids made from a seed (deterministicIds), labels as SVG text
# (no foreignObject with HTML), one theme and one font, so the same source gives the same SVG.
MERMAID_CONFIG = {
    "startOnLoad": False,
    "securityLevel": "strict",
    "deterministicIds": True,
    "htmlLabels": False,
    "flowchart": {"htmlLabels": False},
    "theme": "default",
    "fontFamily": "Helvetica, Arial, sans-serif",
    "handDrawnSeed": 1,
}
# Some shapes (stadiums, hexagons, state boxes) are drawn by rough.js, which draws its strokes with Math.random:
# the tab's Math.random is this seeded generator (mulberry32), so every drawing of a source is the same.
SEEDED_RANDOM = (
    "(() => { let s = 1; Math.random = () => { s = (s + 0x6D2B79F5) | 0; let t = Math.imul(s ^ (s >>> 15), 1 | s);\n"
    "t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t; return ((t ^ (t >>> 14)) >>> 0) / 4294967296; }; })();"
)
RENDER_KEY = json.dumps({"mermaid": MERMAID_VERSION, "config": MERMAID_CONFIG, "post": 1, "random": SEEDED_RANDOM},
                        sort_keys=True)
FOLDER = "diagrams"  # under data/
SOURCE = re.compile(r'<pre class="mermaid"><code>(.*?)</code></pre>', re.S)
SVG_NS = "http://www.w3.org/2000/svg"
# What Mermaid writes for flowcharts, state, sequence and xy charts, and nothing that runs or loads.
TAGS = frozenset({
    "svg", "g", "defs", "style", "title", "desc", "marker", "symbol", "path", "rect", "circle", "ellipse",
    "line", "polyline", "polygon", "text", "tspan", "linearGradient", "stop", "filter", "feDropShadow",
})
ATTRIBUTES = frozenset({
    "alignment-baseline", "aria-label", "aria-labelledby", "aria-describedby", "aria-roledescription", "class",
    "clip-rule", "cx", "cy", "d", "dominant-baseline", "dx", "dy", "fill", "fill-opacity", "fill-rule",
    "flood-color", "flood-opacity", "font-family", "font-size", "font-style", "font-weight", "gradientUnits",
    "height", "id", "marker-end", "marker-start", "markerHeight", "markerUnits", "markerWidth", "name", "offset",
    "opacity", "orient", "points", "r", "refX", "refY", "role", "rx", "ry", "stdDeviation", "stop-color",
    "stop-opacity", "stroke", "stroke-dasharray", "stroke-linecap", "stroke-linejoin", "stroke-opacity",
    "stroke-width", "style", "text-anchor", "transform", "viewBox", "width", "x", "x1", "x2", "y", "y1", "y2",
})
URL = re.compile(r"url\s*\(\s*['\"]?([^)'\"]*)", re.I)
LOADS = re.compile(r"@import|expression\s*\(|javascript:", re.I)
MIN_SCALE = 0.7  # a diagram never shrinks below 70% of its natural width: on a narrow screen it scrolls
LABELS_IN_NAME = 6
KINDS = {"flowchart": "Flowchart", "graph": "Flowchart", "stateDiagram": "State diagram",
         "sequenceDiagram": "Sequence diagram", "xychart": "Chart", "classDiagram": "Class diagram"}


class DiagramError(ValueError):
    """A drawing that is not a safe, well-formed SVG of the kind this module inlines."""


@dataclass(frozen=True)
class Diagram:
    """One diagram on a page: its Mermaid source and where its approved drawing lives."""

    source: str
    digest: str

    def svg_path(self, data_dir: Path) -> Path:
        return data_dir / FOLDER / f"{self.digest}.svg"

    def source_path(self, data_dir: Path) -> Path:
        return data_dir / FOLDER / f"{self.digest}.mmd"

    @property
    def first_line(self) -> str:
        return next((line.strip() for line in self.source.splitlines() if line.strip()), "")


def digest(source: str) -> str:
    """The key of a diagram's drawing: 16 hex digits of SHA-256 over RENDER_KEY and the source.

    Args:
        source: the Mermaid source, as the fence holds it (trailing whitespace is ignored).

    Returns:
        16 lowercase hex digits.

    Example: len(digest("flowchart LR\\n  A --> B")) == 16
    """
    text = RENDER_KEY + "\n" + source.rstrip() + "\n"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def find(page_html: str) -> list[Diagram]:
    """Every Mermaid diagram in a page's HTML, in page order.

    Args:
        page_html: the page's HTML as Markdown rendered it (a fence is <pre class="mermaid"><code>).

    Returns:
        One Diagram per fence, repeated when the page repeats a diagram.

    Example: find('<pre class="mermaid"><code>flowchart LR\\n</code></pre>')[0].first_line == "flowchart LR"
    """
    found = []
    for match in SOURCE.finditer(page_html):
        source = html.unescape(match.group(1)).rstrip() + "\n"
        found.append(Diagram(source, digest(source)))
    return found


def check_svg(svg: str, where: str) -> ET.Element:
    """Parse a drawing and refuse anything but the SVG this module inlines.

    Args:
        svg: the SVG text; where: what to name in an error (a file, or a page and diagram).

    Returns:
        The parsed <svg> element.

    Raises:
        DiagramError: not XML, not one <svg>, an element or attribute outside TAGS and ATTRIBUTES (a script,
            a foreignObject, an event handler, a link), or CSS that loads (url() to anything but #id, @import).

    Example: check_svg('<svg xmlns="http://www.w3.org/2000/svg"><path d="M0 0"/></svg>', "x").tag
    """
    try:
        root = ET.fromstring(svg)
    except ET.ParseError as error:
        raise DiagramError(f"{where}: the drawing is not well-formed SVG ({error})") from None
    if root.tag != f"{{{SVG_NS}}}svg":
        raise DiagramError(f"{where}: expected one <svg> element, found <{root.tag}>")
    for element in root.iter():
        namespace, _, tag = element.tag.rpartition("}")
        if namespace != "{" + SVG_NS or tag not in TAGS:
            raise DiagramError(f"{where}: <{tag}> is not allowed in a drawing (allowed: {', '.join(sorted(TAGS))})")
        texts = [value for name, value in element.attrib.items() if _attribute_ok(name, where, tag)]
        if tag == "style":
            if "<" in (element.text or ""):
                raise DiagramError(f"{where}: <style> holds markup")
            texts.append(element.text or "")
        for text in texts:
            if LOADS.search(text) or any(not target.startswith("#") for target in URL.findall(text)):
                raise DiagramError(f"{where}: <{tag}> holds CSS or a URL that could load something: {text[:80]!r}")
    return root


def _attribute_ok(name: str, where: str, tag: str) -> bool:
    if name not in ATTRIBUTES:
        raise DiagramError(f"{where}: the attribute {name}= on <{tag}> is not allowed in a drawing")
    return True


def accessible_name(root: ET.Element, source: str) -> str:
    """What a screen reader announces for a drawing: Mermaid's accTitle, or the kind and its first labels.

    Args:
        root: the drawing's <svg>; source: its Mermaid source.

    Returns:
        One line of text, e.g. "Flowchart: goal + state, model proposes, code checks, …".

    Example: accessible_name(check_svg(svg, "x"), "flowchart LR\\n  A --> B")
    """
    title = root.find(f"{{{SVG_NS}}}title")
    if title is not None and (title.text or "").strip():
        return " ".join(title.text.split())
    keyword = (source.split() or [""])[0].split("-")[0]
    kind = KINDS.get(keyword, "Diagram")
    labels: list[str] = []
    nodes = [g for g in root.iter(f"{{{SVG_NS}}}g") if "node" in g.get("class", "").split()]
    for text in [t for g in nodes for t in g.iter(f"{{{SVG_NS}}}text")] + list(root.iter(f"{{{SVG_NS}}}text")):
        label = " ".join(" ".join(text.itertext()).split())  # the nodes' labels first, then the edges' and others
        if label and label not in labels:
            labels.append(label)
    shown = ", ".join(labels[:LABELS_IN_NAME]) + (", …" if len(labels) > LABELS_IN_NAME else "")
    return f"{kind}: {shown}" if shown else kind


def inline_html(diagram: Diagram, svg: str, where: str) -> str:
    """The HTML that stands for one diagram on the page: its checked drawing in a box that scrolls when too wide.

    Args:
        diagram: the diagram; svg: its approved drawing; where: the page and diagram, for errors.

    Returns:
        <div class="diagram"> holding the <svg> (role="img", aria-label; data-lines: the source's non-blank
        lines, which the reading time counts as code), then a hint, hidden until the diagram is wider than the
        column (overrides/main.html shows it).

    Raises:
        DiagramError: see check_svg.

    Example: inline_html(diagram, svg, "docs/index.md, diagram 1").startswith('<div class="diagram"')
    """
    check_svg(svg, where)
    svg = unused_symbols_removed(svg.strip())
    lines = sum(1 for line in diagram.source.splitlines() if line.strip())  # read as code (chrome.py)
    return (f'<div class="diagram" tabindex="0" data-search-exclude data-lines="{lines}">{svg}</div>'
            '<p class="diagram-scroll-hint" hidden>⟷ The diagram is wider than the screen: scroll it sideways.</p>')


SYMBOL = re.compile(r'<symbol\b[^>]*\bid="([^"]+)"[^>]*>.*?</symbol>', re.S)


def unused_symbols_removed(svg: str) -> str:
    """svg without the <symbol> elements nothing in it uses (no href to "#id"). Mermaid's sequence diagrams
    define every participant shape whether used or not, and its "database" shape's path data is malformed:
    Chromium logs a console error for it even unused (Mermaid 11.17.2).

    Example: unused_symbols_removed('<svg><symbol id="a"><path/></symbol></svg>') == '<svg></svg>'
    """
    def keep(match: re.Match) -> str:
        return match.group(0) if f'#{match.group(1)}"' in svg else ""
    return SYMBOL.sub(keep, svg)


@dataclass
class PageDiagrams:
    """What inlining one page's diagrams found: the HTML, the diagrams it needed, and the problems."""

    html: str
    needed: list[Diagram]
    problems: list[str]


def inline_page(page_html: str, data_dir: Path, data_label: str = "data") -> PageDiagrams:
    """Swap every diagram on a page for its approved drawing.

    Args:
        page_html: the page's HTML; data_dir: the approved outputs' folder; data_label: how to name it in messages.

    Returns:
        PageDiagrams. A diagram whose drawing is missing or unsafe stays as its source (a code box), and a
        problem names the diagram's number and first line (the caller names the page), the file, and the
        command that draws it.

    Example: inline_page(html, Path("data")).problems == []
    """
    needed: list[Diagram] = []
    problems: list[str] = []

    def swap(match: re.Match) -> str:
        diagram = find(match.group(0))[0]
        needed.append(diagram)
        number = len(needed)
        where = f"diagram {number} ({diagram.first_line})"
        path = diagram.svg_path(data_dir)
        if not path.is_file():
            problems.append(f"{where}: no approved drawing {data_label}/{FOLDER}/{path.name} for its source (new or "
                            "changed); run `make accept`, which draws it with the vendored Mermaid in Chromium, "
                            f"then review and commit {data_label}/{FOLDER}/")
            return f"<pre><code>{match.group(1)}</code></pre>"
        try:
            return inline_html(diagram, path.read_text(encoding="utf-8"), f"{where}, {data_label}/{FOLDER}/{path.name}")
        except DiagramError as error:
            problems.append(f"{error}; run `make accept` to draw it again")
            return f"<pre><code>{match.group(1)}</code></pre>"

    return PageDiagrams(SOURCE.sub(swap, page_html), needed, problems)


def stale(data_dir: Path, needed: set[str]) -> list[Path]:
    """The approved drawings (and their sources) in data/diagrams/ that no page needs.

    Args:
        data_dir: the approved outputs' folder; needed: the digests the site's pages need.

    Returns:
        Their paths, sorted.

    Example: stale(Path("data"), {"0123456789abcdef"}) == []
    """
    folder = data_dir / FOLDER
    files = sorted(folder.iterdir()) if folder.is_dir() else []
    return [path for path in files if path.stem not in needed or path.suffix not in (".svg", ".mmd")]
