"""MkDocs' own link handling, applied to what a block prints as Markdown (output="markdown").

MkDocs rewrites and validates the links of the author's Markdown with two treeprocessors it registers
on each page's Markdown instance before converting the page (mkdocs/structure/pages.py):
- "relpath" (_RelativePathTreeprocessor): a link to a page becomes the page's URL; a link to a missing
  page is MkDocs' warning "... is not found among documentation files"; a link with an anchor is kept,
  and Page.validate_anchor_links checks it once every page is rendered;
- "mkdocs_extract_anchors" (_ExtractAnchorsTreeprocessor): the ids the page holds, which those anchors
  are checked against.

A block's output is converted apart (markdown-exec's MarkdownConverter copies the page's extensions,
and these two are not extensions but processors MkDocs adds to each page) and its HTML is stashed raw,
so neither ever sees it. page_filter() hands every link and id of the cleaned output to those same two
instances: links are rewritten and validated by MkDocs' own code, with its messages and its validation
levels (a warning, so a strict build fails and `make serve` shows it), and ids join the page's anchors.

Left out: links in outputs shown as text (output="text"), which stay escaped text.
"""

from __future__ import annotations

from collections.abc import Callable

RELPATH = "relpath"  # the names MkDocs 1.6 registers them under (Page.render)
ANCHORS = "mkdocs_extract_anchors"


def page_filter(md) -> Callable[[str, str, str], str | None] | None:
    """An nh3 attribute filter that treats an output's links and ids as MkDocs treats the page's own.

    Args:
        md: the Markdown instance MkDocs is converting the page with (a fence formatter's md).

    Returns:
        filter(tag, attribute, value) -> value: an <a> href comes back as MkDocs rewrites it (a page's URL;
        an external or unknown link unchanged, after MkDocs logged its warning), an id is recorded as an
        anchor of the page. None when md is not a page MkDocs is rendering (no relpath processor).

    Example: page_filter(md)("a", "href", "index.md") == "./"  # on another page: "../"
    """
    if RELPATH not in md.treeprocessors or ANCHORS not in md.treeprocessors:
        return None
    relpath, anchors = md.treeprocessors[RELPATH], md.treeprocessors[ANCHORS]

    def treat(tag: str, attribute: str, value: str) -> str | None:
        if attribute == "id":
            anchors.present_anchor_ids.add(value)
        elif tag == "a" and attribute == "href":
            return relpath.path_to_url(value)
        return value

    return treat
