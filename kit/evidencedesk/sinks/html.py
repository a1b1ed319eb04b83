"""A model's reply in a web page: escaped or sanitised by a library, never built into HTML as a string.

Three ways to put a reply into a page. reply_html_unsafe() pastes it into markup with an f-string, so
any tag the reply holds (a <script>, an <img onerror=...>) reaches the browser as HTML: the wrong way,
kept to show the attack. reply_as_text() escapes it with MarkupSafe (the escaping Jinja2 uses): every
"<", ">", "&", and quote becomes an entity, so the browser shows the reply as text. reply_as_html() keeps
a few formatting tags and drops the rest with nh3 (Python bindings to the Rust sanitiser Ammonia), with
an allowlist of tags, attributes and URL schemes. Both are for one context: HTML element content (and,
for MarkupSafe, a quoted attribute value). Left out: JavaScript, CSS and URL contexts, where HTML
escaping does not make a value safe, and a Content-Security-Policy header, the browser's second layer.
Sources (read 2026-12-03): https://markupsafe.palletsprojects.com/, https://nh3.readthedocs.io/.
"""

from __future__ import annotations

import nh3
from markupsafe import Markup

WRAPPER = '<div class="reply">{}</div>'  # where a reply sits on the help desk's page
ALLOWED_TAGS = frozenset({"p", "br", "b", "i", "em", "strong", "code", "ul", "ol", "li", "a"})
ALLOWED_ATTRIBUTES = {"a": frozenset({"href"})}  # nothing else: no style, no on* handlers, no src
URL_SCHEMES = frozenset({"https"})  # a link may only be https: no javascript:, data: or http:


def _text(reply: object) -> str:
    if not isinstance(reply, str):
        raise TypeError(f"reply must be a str, got {type(reply).__name__}")
    return reply


def reply_html_unsafe(reply: str) -> str:
    """The wrong way, kept to show the attack: the reply pasted into markup as a string.

    Args: reply (str). Returns: str, HTML in which every tag of the reply is live. Raises: TypeError.
    Example: reply_html_unsafe("<b>hi</b>") -> '<div class="reply"><b>hi</b></div>'
    """
    return WRAPPER.format(_text(reply))


def reply_as_text(reply: str) -> str:
    """The reply shown as text: MarkupSafe's Markup.format escapes the value it inserts.

    "&", "<", ">", '"' and "'" become entities, so no tag of the reply is live. Safe inside element content
    and inside a quoted attribute value; not in a script, a style, an unquoted attribute or a URL.
    Args: reply (str). Returns: str. Raises: TypeError for a non-str.
    Example: reply_as_text("<b>hi</b>") -> '<div class="reply">&lt;b&gt;hi&lt;/b&gt;</div>'
    """
    return str(Markup(WRAPPER).format(_text(reply)))


def reply_as_html(reply: str) -> str:
    """The reply with a few formatting tags kept and everything else removed by nh3 (Ammonia).

    Tags outside ALLOWED_TAGS are dropped (their text kept; a script's or style's content removed), every
    attribute but an https href on a link is dropped, and a link gets rel="noopener noreferrer".
    Args: reply (str). Returns: str. Raises: TypeError for a non-str.
    Example: reply_as_html('<b onclick="x()">hi</b>') -> '<div class="reply"><b>hi</b></div>'
    """
    clean = nh3.clean(_text(reply), tags=set(ALLOWED_TAGS), url_schemes=set(URL_SCHEMES),
                      attributes={tag: set(names) for tag, names in ALLOWED_ATTRIBUTES.items()})
    return WRAPPER.format(clean)
