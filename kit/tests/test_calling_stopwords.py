"""Tests of evidencedesk.calling.stopwords: every real stop word maps to one kit reason or to none, with a source."""

from __future__ import annotations

import pytest

from evidencedesk.calling.stopwords import READ_ON, SOURCES, STOP_WORDS, StopWord, markdown_table, reason_for
from evidencedesk.llm import CONTENT_FILTER, LENGTH, STOP, STOP_REASONS, TOOL_CALLS


def test_every_api_is_listed_with_a_current_host_and_each_value_once() -> None:
    hosts = {"openai": "https://developers.openai.com/api/", "anthropic": "https://platform.claude.com/docs/",
             "gemini": "https://ai.google.dev/"}
    assert all(url.startswith(hosts[api.split("-")[0]]) for api, url in SOURCES.items())
    assert len({(w.api, w.value) for w in STOP_WORDS}) == len(STOP_WORDS)
    assert {w.api for w in STOP_WORDS} == set(SOURCES) and READ_ON == "2026-12-03"


def test_each_kit_reason_has_a_word_at_every_provider_that_reports_it() -> None:
    for reason in STOP_REASONS:
        assert {w.api.split("-")[0] for w in STOP_WORDS if w.reason == reason} >= {"openai", "anthropic"}, reason
    assert not [w for w in STOP_WORDS if w.api == "gemini" and w.reason == TOOL_CALLS]  # Gemini's calls say STOP


@pytest.mark.parametrize(("api", "value", "reason"), [
    ("openai-chat", "stop", STOP), ("openai-chat", "length", LENGTH), ("openai-responses", "max_output_tokens", LENGTH),
    ("anthropic", "max_tokens", LENGTH), ("anthropic", "refusal", CONTENT_FILTER), ("anthropic", "pause_turn", ""),
    ("gemini", "STOP", STOP), ("gemini", "MALFORMED_FUNCTION_CALL", ""), ("gemini", "SPII", CONTENT_FILTER),
    ("gemini", "UNEXPECTED_TOOL_CALL", ""), ("openai-responses", "failed", ""),
])
def test_reason_for_reads_the_table(api: str, value: str, reason: str) -> None:
    assert reason_for(api, value) == reason


def test_an_unlisted_word_or_bad_row_is_an_error_never_a_guess() -> None:
    with pytest.raises(KeyError, match="'end_turn' is not in STOP_WORDS"):
        reason_for("openai-chat", "end_turn")
    with pytest.raises(KeyError, match="'LANGUAGE' is not in STOP_WORDS"):
        reason_for("gemini", "LANGUAGE")  # documented, left out: refused until someone maps it
    with pytest.raises(ValueError, match="api must be one of"):
        StopWord("mistral", "finish_reason", "stop", STOP, "")
    with pytest.raises(ValueError, match="reason must be"):
        StopWord("gemini", "finishReason", "OTHER", "other", "")


def test_the_markdown_table_has_one_linked_row_per_word() -> None:
    lines = markdown_table().splitlines()
    assert len(lines) == 2 + len(STOP_WORDS) and all(f"]({SOURCES[w.api]})" in line for w, line in
                                                      zip(STOP_WORDS, lines[2:], strict=True))
