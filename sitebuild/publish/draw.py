"""Draw Mermaid diagrams into the SVG the site inlines: the vendored Mermaid, once per diagram, in Chromium.

Each diagram is drawn in a fresh tab of headless Chromium (Playwright; Debian's /usr/bin/chromium
when installed, else Playwright's own), with diagrams.MERMAID_CONFIG and Math.random seeded
(diagrams.SEEDED_RANDOM), then tidied in Python so that
the file is small and the same on every run: Mermaid's data-* attributes go (they hold its layout
input), numbers are rounded to 2 decimals, and the <svg> gets role="img", an aria-label
(diagrams.accessible_name) and a minimum width of 70% of its natural width. The result passes
diagrams.check_svg or is refused.

Used by `make accept` (the hook, for the diagrams without an approved drawing) and by the test that
draws every approved diagram again. `make site` never draws: it only inlines approved drawings.

Left out: which diagrams a page needs and inlining them (diagrams.py).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from pathlib import Path

from sitebuild.publish.diagrams import (
    MERMAID_CONFIG,
    MIN_SCALE,
    SEEDED_RANDOM,
    SVG_NS,
    VENDOR,
    Diagram,
    accessible_name,
    check_svg,
)

DEBIAN_CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
VIEWPORT = {"width": 1280, "height": 900}
NUMBER = re.compile(r"-?\d+\.\d+(?:e-?\d+)?")
NUMERIC_ATTRIBUTES = {"d", "points", "transform", "viewBox", "x", "y", "x1", "x2", "y1", "y2", "width", "height",
                      "cx", "cy", "r", "rx", "ry", "dx", "dy", "refX", "refY", "style"}
NO_CHROMIUM = ("Drawing diagrams needs Chromium: install Debian's (`sudo apt-get install chromium`) or Playwright's "
               "(`.venv/bin/python -m playwright install chromium`)")


class DrawError(RuntimeError):
    """Chromium could not be started, or Mermaid could not draw a diagram."""


def _round(match: re.Match) -> str:
    value = round(float(match.group(0)), 2)
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def tidy(svg: str, diagram: Diagram) -> str:
    """Mermaid's SVG as the site keeps it: small, stable, named, with a minimum width.

    Args:
        svg: what mermaid.render returned; diagram: the diagram it draws.

    Returns:
        The SVG text (UTF-8, no XML declaration).

    Raises:
        diagrams.DiagramError: the drawing holds something check_svg refuses.

    Example: tidy(mermaid_svg, diagram).startswith("<svg")
    """
    ET.register_namespace("", SVG_NS)
    root = ET.fromstring(svg)
    for element in root.iter():
        for name in [n for n in element.attrib if n.startswith("data-")]:
            del element.attrib[name]
        for name in NUMERIC_ATTRIBUTES & set(element.attrib):
            element.attrib[name] = NUMBER.sub(_round, element.attrib[name])
        if element.attrib.get("style", None) in ("", ";"):
            del element.attrib["style"]
    width = float(root.attrib["viewBox"].split()[2])
    root.attrib["style"] = f"max-width: {_round_px(width)}px; min-width: {_round_px(width * MIN_SCALE)}px;"
    root.attrib["role"] = "img"
    root.attrib["aria-label"] = accessible_name(root, diagram.source)
    root.attrib.pop("aria-roledescription", None)
    text = ET.tostring(root, encoding="unicode")
    check_svg(text, f"the drawing of {diagram.first_line!r}")
    return text + "\n"


def _round_px(value: float) -> str:
    return str(round(value))


def draw(diagrams: Iterable[Diagram]) -> dict[str, str]:
    """Draw each diagram with the vendored Mermaid in headless Chromium.

    Args:
        diagrams: the diagrams; each is drawn once, in a fresh tab, with the id "d" + its digest.

    Returns:
        {digest: tidied SVG}.

    Raises:
        DrawError: no Chromium, or Mermaid failed on a diagram (its first line and Mermaid's message).

    Example: draw([Diagram(src, digest(src))])[digest(src)].startswith("<svg")
    """
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    todo = {d.digest: d for d in diagrams}
    if not todo:
        return {}
    script = VENDOR.read_text(encoding="utf-8")
    drawn = {}
    with sync_playwright() as playwright:
        options = {"args": CHROMIUM_ARGS}
        if DEBIAN_CHROMIUM.is_file():
            options["executable_path"] = str(DEBIAN_CHROMIUM)
        try:
            browser = playwright.chromium.launch(**options)
        except PlaywrightError as error:
            raise DrawError(f"{NO_CHROMIUM}; launching it failed: {error.message}") from None
        try:
            for key, diagram in sorted(todo.items()):
                page = browser.new_page(viewport=VIEWPORT)
                page.set_content("<!doctype html><html><head><meta charset='utf-8'></head><body></body></html>")
                page.add_script_tag(content=SEEDED_RANDOM)
                page.add_script_tag(content=script)
                try:
                    svg = page.evaluate(
                        "async ([config, id, source]) => { mermaid.initialize(config);"
                        " return (await mermaid.render(id, source)).svg; }",
                        [MERMAID_CONFIG, f"d{key}", diagram.source])
                except PlaywrightError as error:
                    raise DrawError(f"Mermaid could not draw the diagram {diagram.first_line!r}: "
                                    f"{error.message.splitlines()[0]}") from None
                finally:
                    page.close()
                drawn[key] = tidy(svg, diagram)
        finally:
            browser.close()
    return drawn


def write(data_dir: Path, diagrams: Iterable[Diagram]) -> list[str]:
    """Draw the diagrams and write each one's drawing and source into data/diagrams/.

    Args:
        data_dir: the approved outputs' folder; diagrams: those to draw.

    Returns:
        One line per file written, for the accept command to print.

    Raises:
        DrawError: see draw.

    Example: write(Path("data"), [diagram])  # ["data/diagrams/0123456789abcdef.svg: drawn (flowchart LR)"]
    """
    unique = {d.digest: d for d in diagrams}
    drawn = draw(unique.values())
    written = []
    for key, diagram in sorted(unique.items()):
        diagram.svg_path(data_dir).parent.mkdir(parents=True, exist_ok=True)
        diagram.source_path(data_dir).write_text(diagram.source, encoding="utf-8")
        diagram.svg_path(data_dir).write_text(drawn[key], encoding="utf-8")
        written.append(f"{diagram.svg_path(data_dir).name}: drawn ({diagram.first_line})")
    return written
