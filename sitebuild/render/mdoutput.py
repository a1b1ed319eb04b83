"""An output="markdown" output as the page shows it: Markdown rendered, cleaned, its links and headings handed on.

The output is converted with the page's own Markdown extensions (markdown-exec's MarkdownConverter),
then cleaned by nh3 (the Ammonia HTML sanitizer) to the tags and attributes Markdown itself writes:
raw HTML it printed (<script>, onerror=...) and links to javascript: URLs never reach the page.
Nothing in it may make a reader's browser load anything (LOADING_TAGS, LOADING_ATTRIBUTES): images,
whether Markdown's, reference-style or raw <img>, <picture>, <video>, <iframe>, SVG's <image> and
<use>, <link>, <style>, style= and srcset= are all dropped, whatever host they name.

Every attribute that survives passes through the Sink's filter (the hook's: sitebuild/render/pagelinks.py
rewrites and validates links as MkDocs does for the author's Markdown, and records ids as anchors);
the headings, cleaned to plain text, go to markdown-exec's InsertHeadings, so that the page's table of
contents lists them (updatetoc), as it lists the author's.

Left out: anything MkDocs-specific (pagelinks.py); drawing code boxes (render.py); running anything.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from xml.etree.ElementTree import Element

import nh3
from markdown.util import AtomicString
from markdown_exec import InsertHeadings, MarkdownConverter, RemoveHeadings

# Tags that make a browser fetch something (or embed a document) with no click: never in an output.
LOADING_TAGS = frozenset({
    "img", "picture", "source", "video", "audio", "track", "iframe", "frame", "frameset", "object", "embed",
    "applet", "image", "use", "feimage", "link", "style", "meta", "base", "script", "noscript", "template",
    "portal", "area", "map",
})
# What Markdown's own HTML needs (headings with permalinks, tables, task lists, diagrams, highlighted code),
# minus whatever loads. input and label are Material's task-list checkboxes: an input keeps only type,
# checked and disabled, so <input type="image"> has no src to load.
MARKDOWN_TAGS = (nh3.ALLOWED_TAGS | {"input", "label", "svg", "path"}) - LOADING_TAGS
MARKDOWN_ATTRIBUTES = {
    **{tag: names for tag, names in nh3.ALLOWED_ATTRIBUTES.items() if tag in MARKDOWN_TAGS},
    "*": {"class", "id", "title"},
    "a": {"href"},
    "input": {"checked", "disabled"},  # type: only checkbox (INPUT_TYPES)
    "ol": {"start"},
    "td": {"align", "colspan", "rowspan"},
    "th": {"align", "colspan", "rowspan"},
}
# Attributes that load (style holds url(...)); only a link's href, followed on a click, is kept.
LOADING_ATTRIBUTES = {"src", "srcset", "poster", "data", "href", "xlink:href", "style", "background", "action",
                      "formaction", "codebase", "dynsrc", "lowsrc", "ping"}
assert not MARKDOWN_TAGS & LOADING_TAGS
assert not {name for tag, names in MARKDOWN_ATTRIBUTES.items() if tag != "a" for name in names} & LOADING_ATTRIBUTES
URL_SCHEMES = {"http", "https", "mailto"}
INPUT_TYPES = {"input": {"type": {"checkbox"}}}  # a task list's; <input type="image"> loses its type
# A Mermaid diagram is drawn in the reader's browser, and its source can load: an image shape (img:), a
# style or themeCSS with url() or @import, an init directive, an HTML label. Such a printed diagram is
# shown as its source, never drawn.
MERMAID = re.compile(r'<pre class="mermaid"><code>(.*?)</code></pre>', re.S)
MERMAID_LOADS = re.compile(r"img\s*:|url\s*\(|@import|%%\s*\{|&lt;\s*img|//|\\", re.I)

AttributeFilter = Callable[[str, str, str], "str | None"]
HEADING = re.compile(r"<h([1-6])\b([^>]*)>(.*?)</h\1>", re.S)
PERMALINK = re.compile(r'<a class="headerlink"[^>]*>.*?</a>', re.S)
ID = re.compile(r'\sid="([^"]*)"')
# Material finds its configuration, search, drawer and palette by ids that start with "__" (querySelector
# ("#__config") and the like, in its bundle): a printed element with such an id would come first and steer them.
THEME_ID_PREFIX = "__"


@dataclass
class Sink:
    """What rendering one block's Markdown output hands on, besides its HTML.

    Attributes:
        attribute_filter: called as nh3 calls it, (tag, attribute, value) -> new value or None, for every
            attribute that survives cleaning; None keeps them as they are.
        headings: the output's headings as (level, id, plain text), for the page's table of contents.
        ids: every id the output holds, heading ids included, in order.
    """

    attribute_filter: AttributeFilter | None = None
    headings: list[tuple[int, str, str]] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)


def render_markdown(output: str, md, id_prefix: str = "", sink: Sink | None = None) -> str:
    """Render a block's Markdown output as the page's Markdown would, then clean it.

    Args:
        output: what the block printed; md: the page's markdown.Markdown instance (its extensions are reused).
        id_prefix: put before every id the output holds (and before its links to them); "" for none.
        sink: receives the output's headings and ids, and filters its attributes (None: a new one, dropped).

    Returns:
        The cleaned HTML.

    Example: render_markdown("## Hi ![x](x.png)", md)  # '<h2 id="hi">Hi </h2>' (with the toc extension)
    """
    sink = sink if sink is not None else Sink()
    converter = MarkdownConverter(md, update_toc=False)  # the headings go to the page below, cleaned
    rendered = str(converter.convert(output, id_prefix=id_prefix))

    def keep(tag: str, attribute: str, value: str) -> str | None:
        if sink.attribute_filter is not None:
            value = sink.attribute_filter(tag, attribute, value)
        if attribute == "id" and value:
            sink.ids.append(value)
            if value.startswith(THEME_ID_PREFIX):
                return None  # the theme's own ids (#__config, #__search, ...): dropped, and theme_ids fails the page
        return value

    cleaned = nh3.clean(rendered, tags=MARKDOWN_TAGS, attributes=MARKDOWN_ATTRIBUTES, attribute_filter=keep,
                        tag_attribute_values=INPUT_TYPES, link_rel=None, url_schemes=URL_SCHEMES)
    cleaned = MERMAID.sub(lambda m: f"<pre><code>{m.group(1)}</code></pre>" if MERMAID_LOADS.search(m.group(1))
                          else m.group(0), cleaned)
    for level, attributes, inner in HEADING.findall(cleaned):
        if found := ID.search(attributes):
            text = html.unescape(re.sub(r"<[^>]+>", "", PERMALINK.sub("", inner))).strip()
            sink.headings.append((int(level), html.unescape(found.group(1)), text))
    return cleaned


def report_headings(md, stashed: str, headings: list[tuple[int, str, str]]) -> None:
    """List a fence's printed headings in the page's table of contents (markdown-exec's updatetoc).

    markdown-exec's InsertHeadings puts copies of the headings next to the stashed fence, where the toc
    extension lists them (and MkDocs sees their ids), and its RemoveHeadings takes the copies out again.
    The copies hold plain text, so nothing but the cleaned text reaches the table of contents.

    Args:
        md: the page's Markdown instance; stashed: the fence's HTML exactly as its formatter returns it;
        headings: Sink.headings.

    Example: report_headings(md, fence_html, [(2, "results", "Results")])
    """
    if not headings:
        return
    if InsertHeadings.name not in md.treeprocessors:
        # After prettify (10), which would leave a newline behind in the fence's paragraph, and right before
        # toc and MkDocs' anchors (5); the copies are plain text, so the inline processor (20) has nothing to do.
        md.treeprocessors.register(InsertHeadings(md), InsertHeadings.name, priority=6)
        md.treeprocessors.register(RemoveHeadings(md), RemoveHeadings.name, priority=4)  # right after toc
    elements = []
    for level, anchor, text in headings:
        element = Element(f"h{level}", {"id": anchor})
        element.text = AtomicString(text)
        elements.append(element)
    md.treeprocessors[InsertHeadings.name].headings.setdefault(stashed, []).extend(elements)


def theme_ids(printed: list[tuple[str, str]]) -> list[str]:
    """Ids of Markdown outputs that the theme uses (they start with THEME_ID_PREFIX): dropped, and each a problem.

    Args:
        printed: (block label, id) of every id the page's Markdown outputs hold (Sink.ids).

    Returns:
        One problem per such id, naming the block and the id.

    Example: theme_ids([("block 1 (python, line 3)", "__config")])  # one problem
    """
    return [f"{label}: its Markdown output holds the id '{anchor}'; ids that start with '{THEME_ID_PREFIX}' are the "
            "theme's (its configuration, search and drawer are found by them), so it is dropped: rename it"
            for label, anchor in dict.fromkeys(p for p in printed if p[1].startswith(THEME_ID_PREFIX))]


def id_clashes(printed: list[tuple[str, str]], page_html: str) -> list[str]:
    """Ids of Markdown outputs that a page holds more than once, where a link reaches only the first.

    The toc extension keeps the author's headings apart from each other and from printed headings it
    lists (updatetoc), but not from a printed heading it does not see (updatetoc="no") or from two blocks'.

    Args:
        printed: (block label, id) of every id the page's Markdown outputs hold (Sink.ids); page_html: the page.

    Returns:
        One problem per clashing id, naming the block and the id.

    Example: id_clashes([("block 1 (python, line 3)", "a")], '<h2 id="a"></h2><h2 id="a"></h2>')  # one problem
    """
    problems, seen = [], set()
    for label, anchor in printed:
        tags = re.findall(rf'<[a-zA-Z][^<>]*\sid="{re.escape(html.escape(anchor))}"', page_html)  # tags, not code
        if anchor not in seen and not anchor.startswith(THEME_ID_PREFIX) and len(tags) > 1:
            problems.append(f"{label}: its Markdown output holds the id '{anchor}', which the page holds again, "
                            f"so a link to '#{anchor}' reaches only the first; give the block an idprefix")
        seen.add(anchor)
    return problems
