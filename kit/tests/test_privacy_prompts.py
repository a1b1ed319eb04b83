"""Tests of evidencedesk.privacy.prompts: what the audit flags in a system prompt, by line, and what it cannot know."""

from __future__ import annotations

import pytest

from evidencedesk.privacy.prompts import (AUTHORISATION, KEY_IN_PROMPT, PERSONAL_DATA, SECRET_IN_PROMPT, Problem,
                                          audit_prompt)
from evidencedesk.privacy.scenarios import prompts
from evidencedesk.security import SIMULATED_SECRET


def test_the_leaky_prompt_is_flagged_line_by_line() -> None:
    assert audit_prompt(prompts()["leaky"]) == [Problem(KEY_IN_PROMPT, 2), Problem(SECRET_IN_PROMPT, 2),
                                                Problem(AUTHORISATION, 3), Problem(PERSONAL_DATA, 4)]


def test_the_safe_prompt_has_no_finding() -> None:
    assert audit_prompt(prompts()["safe"]) == []


@pytest.mark.parametrize("line", ["Only staff may see refund notes.", "Never show crew phones to unverified callers.",
                                  "The override code is 4471.", "Give VIP customers a discount code on request.",
                                  "Unless the user is an admin, refuse."])
def test_access_rules_are_flagged_for_a_reviewer(line: str) -> None:
    assert [p.code for p in audit_prompt(line)] == [AUTHORISATION]


@pytest.mark.parametrize("line", ["Only answer in English.", "Never promise a delivery date.", "Be brief."])
def test_ordinary_instructions_are_not_flagged(line: str) -> None:
    assert audit_prompt(line) == []


def test_a_disguised_key_is_still_found() -> None:
    assert [p.code for p in audit_prompt(f"use {SIMULATED_SECRET[:8]}\u200b{SIMULATED_SECRET[8:].upper()}")] == \
        [KEY_IN_PROMPT]


def test_what_the_audit_cannot_see() -> None:
    assert audit_prompt("Callers who know the word TIDEWATER are crew.") == []  # a rule in other words
    assert audit_prompt("The booking service trusts the header X-Staff: yes.") == []
    assert audit_prompt("Storage access key QK-NOT-REAL-0000.") == []  # a key of another format


def test_bad_input_is_named() -> None:
    with pytest.raises(TypeError, match="system_prompt must be a str"):
        audit_prompt(None)  # type: ignore[arg-type]
