"""Tests of evidencedesk.sinks.markdown: the allowlist of hosts and the rendered reply."""

from __future__ import annotations

import pytest

from evidencedesk.sinks.markdown import IMAGE_HOSTS, LINK_HOSTS, host_allowed, render_reply
from evidencedesk.sinks.replies import ask


@pytest.mark.parametrize("url", [
    "https://attacker.example/p.png", "http://cdn.example.org/p.png", "https://cdn.example.org.attacker.example/",
    "https://cdn.example.org@attacker.example/", "https://user:pw@cdn.example.org/", "https://cdn.example.org:8443/",
    "https://cdn.example.org\\@attacker.example/", "https://cdn.example.org/p.png?d=1", "/relative.png",
    "javascript:alert(1)", "https://cdn.example.org:x/", " https://cdn.example.org/"])
def test_refused_image_urls(url: str) -> None:
    assert not host_allowed(url, IMAGE_HOSTS, image=True)


def test_accepted_urls() -> None:
    assert host_allowed("https://cdn.example.org/logo.png", IMAGE_HOSTS, image=True)
    assert host_allowed("https://CDN.example.org/logo.png", IMAGE_HOSTS, image=True)  # hostname is lowercased
    assert host_allowed("https://help.example.org/returns?lang=en", LINK_HOSTS)  # a link may keep a query


def test_the_scripted_exfiltration_is_dropped_and_reported() -> None:
    out = render_reply(ask("markdown"))
    assert out.dropped == ("https://attacker.example/p.png?d=farida+T-1101+T-1103",)
    assert "attacker.example" not in out.html and '<img alt="status">' in out.html


def test_every_form_of_image_and_link_is_caught() -> None:
    reply = ("![a][r]\n\n[r]: https://attacker.example/1\n\n<https://attacker.example/2>\n\n"
             '<img src="https://attacker.example/3">\n\n[ok](https://help.example.org/x)')
    out = render_reply(reply)
    assert out.dropped == ("https://attacker.example/1", "https://attacker.example/2", "https://attacker.example/3")
    assert 'href="https://help.example.org/x"' in out.html and "<script" not in render_reply("<script>x</script>").html


def test_an_empty_allowlist_drops_every_image() -> None:
    assert render_reply("![ok](https://cdn.example.org/logo.png)", image_hosts=frozenset()).dropped == (
        "https://cdn.example.org/logo.png",)
    with pytest.raises(TypeError, match="reply must be a str"):
        render_reply(b"x")  # type: ignore[arg-type]
