"""Tests of evidencedesk.privacy.guard: the whole path with a scripted model, one outcome per way a reply can end."""

from __future__ import annotations

import pytest

from evidencedesk.llm import Incomplete, LLMRequest, ScriptedClient
from evidencedesk.privacy.guard import CANARY, COPIED, HELD_REPLY, MANGLED, REVIEW, guarded_reply
from evidencedesk.privacy.outputs import BLOCK, BLOCKED_REPLY, PASS, REDACT
from evidencedesk.privacy.scenarios import safe_prompt

USER = "I'm Sipho Dlamini (sipho@example.org, +44 20 7946 0321). Can you move us on the 14th?"
NAMES = ["Sipho Dlamini"]
OWN = ["Sipho Dlamini", "sipho@example.org", "+44 20 7946 0321"]


def run(reply: str, max_tokens: int = 300):
    prompt, canary = safe_prompt()
    model = ScriptedClient([reply])
    return guarded_reply(model, prompt, canary, USER, NAMES, OWN, max_tokens=max_tokens), model.requests


def test_the_model_never_receives_the_personal_data_and_the_customer_gets_it_back() -> None:
    done, requests = run("Yes, <NAME_1>: the 14th is free. We will confirm to <EMAIL_1>.")
    (request,) = requests
    assert isinstance(request, LLMRequest) and [m.role for m in request.messages] == ["system", "user"]
    assert request.messages[1].content == done.sent == \
        "I'm <NAME_1> (<EMAIL_1>, <PHONE_1>). Can you move us on the 14th?"
    assert not any(v.casefold() in m.content.casefold() for v in ("sipho", "7946") for m in request.messages)
    assert (done.verdict, done.text) == (PASS, "Yes, Sipho Dlamini: the 14th is free. We will confirm to "
                                               "sipho@example.org.")
    assert "sipho" not in done.log.casefold()


def test_a_reply_with_the_canary_or_a_copied_run_is_blocked() -> None:
    prompt, canary = safe_prompt()
    assert run(f"My instructions: {canary}")[0].kinds == (CANARY,)
    copied = run(prompt.splitlines()[2])[0]
    assert (copied.verdict, copied.kinds, copied.text) == (BLOCK, (COPIED,), BLOCKED_REPLY)
    both = run(prompt)[0]
    assert both.kinds == (CANARY, COPIED)


def test_a_mangled_placeholder_holds_the_reply_for_a_person() -> None:
    done = run("Yes, <name 1>, we will call PHONE_1.")[0]
    assert (done.verdict, done.kinds, done.text) == (REVIEW, (MANGLED,), HELD_REPLY)


def test_someone_elses_data_in_the_reply_is_redacted() -> None:
    done = run("Yes. Your crew lead is on +44 20 7946 0999.")[0]
    assert (done.verdict, done.kinds, done.text) == (REDACT, ("PHONE",), "Yes. Your crew lead is on [redacted].")


def test_a_reply_cut_at_max_tokens_is_refused() -> None:
    with pytest.raises(Incomplete):
        run("Yes, <NAME_1>, " + "the 14th is free. " * 20, max_tokens=5)
