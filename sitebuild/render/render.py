"""Render a block's source and output as HTML, the way Material shows a code block.

Both boxes come from the same highlighter superfences uses for any fence (so titles, highlighted
lines and line numbers look as Material documents them), called directly: an output is handed to
the highlighter as text and comes back escaped. It is never put into a Markdown fence or parsed as
Markdown, so nothing it holds (backtick runs, `</code>`, HTML, Markdown) can end its box or reach
the page as markup. Only an output the author marks output="markdown" is rendered as Markdown.

An output="markdown" output is rendered and cleaned by mdoutput.py; a fence it prints is shown as
code here, never run.

Left out: running or verifying anything (verify.py); this module only draws.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from sitebuild.find import fences
from sitebuild.find.blocks import FALSE, Block
from sitebuild.render import excerpts, mdoutput

TITLES = {"python": "Python", "bash": "Bash"}
CODE = re.compile(r"(<code>)(.*?)(</code></pre>)", re.S)


SEARCH_BOX = re.compile(r'^(<div class="language-[^"]*")')


def code_box(md, code: str, language: str, title: str, hl_lines: str = "", linenums: str = "") -> str:
    """One code box as superfences would render a fence: highlighted, escaped, titled.

    Args:
        md: the page's markdown.Markdown instance (superfences' preprocessor holds the highlighter settings).
        code: the text to show; language: a Pygments language name ("text" for none).
        title: shown above the box; hl_lines: e.g. "1 3-4"; linenums: the first line's number.

    Returns:
        HTML of a `div.highlight` with a `span.filename` title.

    Example: code_box(md, "<b>", "text", "Output")  # holds "&lt;b&gt;", never <b>
    """
    options = {"title": title}
    if hl_lines:
        options["hl_lines"] = hl_lines.strip()
    if linenums:
        options["linenums"] = linenums
    fences = md.preprocessors["fenced_code_block"]
    box = fences.highlight(src=code, language=language, options=options, md=md, classes=[], id_value="", attrs={})
    # Left out of the search index (Material's data-search-exclude), which every page fetches: with the boxes'
    # text it was 1.57 MB, and a page over 1.6 MB on a cold load. Prose and inline code stay searchable.
    return SEARCH_BOX.sub(r"\1 data-search-exclude", box, count=1)


def failure_box(title: str, detail: str = "", md=None) -> str:
    """A red admonition naming a failure, with the diff (highlighted as one) or the output below it, escaped."""
    body = ""
    if detail:
        language = "diff" if detail.startswith("--- approved") else "text"
        escaped = f"<pre><code>{html.escape(detail)}</code></pre>"
        body = code_box(md, detail, language, "") if md is not None else escaped
    title_html = re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(title))  # `make accept` as code
    return f'<div class="admonition failure"><p class="admonition-title">{title_html}</p>{body}</div>\n'


def _tabbed(key: str, first: tuple[str, str], second: tuple[str, str]) -> str:
    """Material's content tabs (pymdownx.tabbed, alternate style), with ids unique to the block."""
    name = f"__sitebuild_{key}"
    checked = ('checked="checked" ', "")
    inputs = "".join(f'<input {checked[n - 1]}id="{name}_{n}" name="{name}" type="radio" />' for n in (1, 2))
    labels = "".join(
        f'<label for="{name}_{n}">{html.escape(title)}</label>' for n, (title, _) in enumerate((first, second), 1)
    )
    blocks = "".join(f'<div class="tabbed-block">{body}</div>' for _, body in (first, second))
    return (f'<div class="tabbed-set tabbed-alternate" data-tabs="1:2">{inputs}<div class="tabbed-labels">{labels}'
            f'</div><div class="tabbed-content">{blocks}</div></div>')


def _printed_fence(fence: fences.Fence, md) -> str:
    """A fence that a block's Markdown output printed: shown as code, never run."""
    return code_box(md, fence.code, fence.language, "")


def excerpt_box(md, excerpt: excerpts.Excerpt) -> str:
    """A kit excerpt (excerpts.py) as a Python box titled with its file: each line numbered as in the file
    (Material's inline line numbers, which copying leaves out) and, after a gap, marked with how many lines
    of the file are not shown (a data-gap attribute that extra.css draws; the text itself is the output's).

    Example: excerpt_box(md, Excerpt("kit/a.py", ((3, "x = 1"),)))  # holds data-linenos="3 "
    """
    box = code_box(md, "\n".join(text for _, text in excerpt.lines), "python", excerpt.path)
    if not excerpt.numbered:
        return box.replace('class="language-python highlight', 'class="language-python highlight kit-excerpt', 1)
    gaps, width = excerpt.gaps(), len(str(excerpt.lines[-1][0]))

    def numbered(match: re.Match) -> str:
        lines = match.group(2).split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        shown = []
        for index, (line, (number, _)) in enumerate(zip(lines, excerpt.lines, strict=False)):
            skipped = gaps.get(index)
            gap = (f' kit-excerpt__gap" data-gap="{skipped} line{"s" if skipped > 1 else ""} of the file not shown'
                   if skipped else "")
            shown.append(f'<span class="kit-excerpt__line{gap}"><span class="linenos" '
                         f'data-linenos="{str(number).rjust(width)} "></span>{line}\n</span>')
        return match.group(1) + "".join(shown) + match.group(3)

    box = CODE.sub(numbered, box, count=1)
    return box.replace('class="language-python highlight', 'class="language-python highlight kit-excerpt', 1)


def output_html(block: Block, output: str, md, sink: mdoutput.Sink | None = None, root: Path | None = None) -> str:
    """The block's output: escaped text in an "Output" box (highlighted as the result option says), or,
    for output="markdown", rendered Markdown cleaned of any HTML Markdown itself would not write
    (mdoutput.render_markdown; sink receives its headings, when updatetoc is on, and its ids). A bash block
    that prints kit source with `sed -n` (excerpts.py; root: the site root, None to not look) shows it as
    Python, one box per file, titled with the file."""
    if block.output_format == "markdown":
        sink = sink if sink is not None else mdoutput.Sink()
        headings = len(sink.headings)
        with fences.handling(_printed_fence):
            rendered = mdoutput.render_markdown(output, md, block.options.get("idprefix", ""), sink)
        if block.options.get("updatetoc", "yes").lower() in FALSE:
            del sink.headings[headings:]
        return rendered
    found = (excerpts.kit_excerpts(block.code, output, root, block.workdir)
             if root is not None and block.language == "bash" and "result" not in block.options else None)
    if found:
        return "".join(excerpt_box(md, excerpt) for excerpt in found)
    return code_box(md, output, block.options.get("result", "text"), "Output")


def block_html(block: Block, output: str, md, sink: mdoutput.Sink | None = None, root: Path | None = None) -> str:
    """A block as the page shows it: its source and output laid out as its show and source options say.

    Args:
        block: the block; output: what it printed (cleaned); md: the page's Markdown instance.
        sink: for output="markdown", filters its attributes and receives its headings and ids (mdoutput.Sink).
        root: the site root, where a kit excerpt's files are read (output_html); None shows every output as text.

    Returns:
        HTML; "" for show="none".
    """
    if block.show == "none":
        return ""
    shown_output = output_html(block, output, md, sink, root) if output else ""
    if block.show == "output":
        return shown_output
    title = block.options.get("title", TITLES[block.language])
    hl_lines, linenums = block.options.get("hl_lines", ""), block.options.get("linenums", "")
    if block.layout == "console":
        text = block.shown_code + ("\n" + output if output else "")
        return code_box(md, text, block.options.get("result", block.language), title, hl_lines, linenums)
    source = code_box(md, block.shown_code, block.language, title, hl_lines, linenums)
    tabs = block.options.get("tabs", "Source|Result").replace("\\|", "\x00").split("|")
    source_tab, result_tab = (t.replace("\x00", "|").strip() for t in tabs)
    layouts = {
        "above": lambda: source + shown_output,
        "below": lambda: shown_output + source,
        "block": lambda: source + f'<div class="result">{shown_output}</div>',
        "material-block": lambda: source + f'<div class="result">{shown_output}</div>',
        "tabbed-left": lambda: _tabbed(block.key, (source_tab, source), (result_tab, shown_output)),
        "tabbed-right": lambda: _tabbed(block.key, (result_tab, shown_output), (source_tab, source)),
    }
    return layouts[block.layout]()
