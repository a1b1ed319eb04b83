"""Tests of evidencedesk.privacy.canary: the canary found in disguise, copied runs counted, and what neither finds."""

from __future__ import annotations

import base64
import re

import pytest

from evidencedesk.privacy.canary import CANARY_HEX, RUN_WORDS, canary_leaked, copied_runs, make_canary, with_canary

PROMPT = "You are the booking assistant of a removals firm. Answer questions about the customer's own move only."


def test_a_canary_is_stable_per_id_and_differs_between_ids() -> None:
    first = make_canary("desk-v1")
    assert first == make_canary("desk-v1") != make_canary("desk-v2")
    assert first.startswith("cnry-") and len(first) == 5 + CANARY_HEX


def test_with_canary_puts_it_on_the_first_line() -> None:
    canary = make_canary("desk-v1")
    assert with_canary(PROMPT, canary).splitlines() == [f"Prompt reference: {canary}", PROMPT]
    for bad in ("", "  "):
        with pytest.raises(ValueError, match="non-empty"):
            with_canary(bad, canary)
    with pytest.raises(ValueError, match="from make_canary"):
        with_canary(PROMPT, "cnry-xyz")


@pytest.mark.parametrize("shown", ["{c}", "{C}", "{spaced}", "{zw}", "ref: {c}."])
def test_the_canary_is_found_in_case_spacing_or_hidden_characters(shown: str) -> None:
    canary = make_canary("desk-v1")
    text = shown.format(c=canary, C=canary.upper(), spaced=" ".join(canary), zw="\u200b".join(canary))
    assert canary_leaked(text, canary)


def test_what_a_canary_cannot_find() -> None:
    canary = make_canary("desk-v1")
    assert not canary_leaked(base64.b64encode(canary.encode()).decode(), canary)
    assert not canary_leaked("I was told to help with removals and to keep to the customer's own move.", canary)
    assert not canary_leaked(canary[:-1], canary)


def test_copied_runs_count_the_prompts_word_runs_a_reply_repeats() -> None:
    words = len(re.findall(r"\w+", PROMPT))  # "customer's" is two words, as copied_runs reads it
    assert copied_runs(PROMPT, PROMPT) == words - RUN_WORDS + 1
    nine_words = "I help with moves: answer questions about the customer's own move only."
    assert copied_runs(nine_words, PROMPT) == 2
    assert copied_runs("I answer questions about your own move.", PROMPT) == 0  # a paraphrase
    assert copied_runs(PROMPT.upper(), PROMPT) == words - RUN_WORDS + 1


def test_bad_input_is_named() -> None:
    with pytest.raises(ValueError, match="prompt_id"):
        make_canary("")
    with pytest.raises(TypeError, match="text must be a str"):
        canary_leaked(None, "cnry-0")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="at least 3 words"):
        copied_runs("a", "b", run=2)
