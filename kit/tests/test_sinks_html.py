"""Tests of evidencedesk.sinks.html: string building leaves tags live; MarkupSafe and nh3 do not."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evidencedesk.sinks.html import reply_as_html, reply_as_text, reply_html_unsafe
from evidencedesk.sinks.replies import ask

ATTACK = ask("html")


def test_string_building_keeps_the_script_and_the_handler() -> None:
    page = reply_html_unsafe(ATTACK)
    assert "<script>" in page and 'onerror="alert(document.cookie)"' in page


def test_escaping_leaves_no_tag() -> None:
    page = reply_as_text(ATTACK)
    inner = page.removeprefix('<div class="reply">').removesuffix("</div>")
    assert "<" not in inner and ">" not in inner and "&lt;script&gt;" in inner


def test_escaping_does_not_make_a_url_safe() -> None:
    assert reply_as_text("javascript:alert(1)") == '<div class="reply">javascript:alert(1)</div>'


def test_sanitising_keeps_formatting_and_drops_the_rest() -> None:
    assert reply_as_html(ATTACK) == '<div class="reply">Your repair T-1101 is booked for Monday. </div>'
    assert reply_as_html("<b>ok</b> <i>x</i>") == '<div class="reply"><b>ok</b> <i>x</i></div>'
    assert reply_as_html('<a href="https://help.example.org/x">h</a>') == (
        '<div class="reply"><a href="https://help.example.org/x" rel="noopener noreferrer">h</a></div>')
    assert "img" not in reply_as_html('<img src="https://attacker.example/?d=1">')


@given(st.text(max_size=200))
def test_no_generated_text_gets_a_tag_through_escaping(text: str) -> None:
    inner = reply_as_text(text).removeprefix('<div class="reply">').removesuffix("</div>")
    assert "<" not in inner and ">" not in inner


def test_a_non_string_is_refused() -> None:
    for render in (reply_html_unsafe, reply_as_text, reply_as_html):
        with pytest.raises(TypeError, match="reply must be a str"):
            render(None)  # type: ignore[arg-type]
