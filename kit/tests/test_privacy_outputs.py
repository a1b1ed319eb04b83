"""Tests of evidencedesk.privacy.outputs: block on secrets, redact others' personal data, a log line with neither."""

from __future__ import annotations

import pytest

from evidencedesk.privacy.outputs import BLOCK, BLOCKED_REPLY, KEY, PASS, REDACT, SECRET_VALUE, check_output
from evidencedesk.security import SIMULATED_SECRET


def test_a_clean_reply_passes_as_its_visible_form() -> None:
    check = check_output("Your move is on Friday at 08:00.\u200b")
    assert (check.verdict, check.kinds, check.text) == (PASS, (), "Your move is on Friday at 08:00.")


def test_the_readers_own_data_passes_in_any_case_or_grouping() -> None:
    reply = "We wrote to SIPHO@example.org and will call +44 (0)20 7946 0321? No: +44 20 7946 0321."
    check = check_output(reply, allowed=["sipho@example.org", "+44 20 79460321"])
    assert check.verdict == REDACT and check.kinds == ("PHONE",)  # "+44 (0)20 ..." has other digits: not theirs
    assert "SIPHO@example.org" in check.text and "+44 20 7946 0321" in check.text


def test_other_peoples_data_is_redacted() -> None:
    check = check_output("Mbali Khumalo (mbali@example.com, 4111 1111 1111 1111) moved.", ["Mbali Khumalo"])
    assert check.verdict == REDACT and check.kinds == ("NAME", "EMAIL", "CARD")
    assert check.text == "[redacted] ([redacted], [redacted]) moved."


@pytest.mark.parametrize("secret, kind", [(SIMULATED_SECRET, KEY), (SIMULATED_SECRET.upper(), KEY),
                                          ("password: hunter22", SECRET_VALUE), ("api_key=abc123def", SECRET_VALUE)])
def test_a_secret_blocks_the_reply(secret: str, kind: str) -> None:
    check = check_output(f"Use {secret} and mail a@example.org")
    assert check.verdict == BLOCK and check.kinds == (kind, "EMAIL") and check.text == BLOCKED_REPLY


def test_the_log_holds_no_secret_and_no_personal_data_even_the_readers_own() -> None:
    reply = f"Key {SIMULATED_SECRET}, a@example.org, +44 20 7946 0321, Sipho, token: abc123"
    check = check_output(reply, ["Sipho"], allowed=["a@example.org", "Sipho"])
    assert check.log == "Key [redacted], [redacted], [redacted], [redacted], token: [redacted]"


def test_bad_input_is_named() -> None:
    with pytest.raises(TypeError, match="text must be a str"):
        check_output(3)  # type: ignore[arg-type]
