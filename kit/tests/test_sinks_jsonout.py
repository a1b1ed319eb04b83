"""Tests of evidencedesk.sinks.jsonout: strict JSON and a strict pydantic model; no eval."""

from __future__ import annotations

import ast

import pytest

from evidencedesk.sinks.jsonout import MAX_REPLY_CHARS, ActionRefused, TicketAction, parse_action
from evidencedesk.sinks.replies import ask


def test_the_scripted_action_parses() -> None:
    assert parse_action(ask("json")) == TicketAction(ticket="T-1101", action="escalate", priority=2)


@pytest.mark.parametrize(("reply", "problem"), [
    ("{'ticket': 'T-1101', 'action': 'close', 'priority': 3}", "not strict JSON"),
    ('{"ticket": "T-1101", "action": "close", "priority": NaN}', "NaN"),
    ('{"ticket": "T-1101", "action": "close", "priority": 3, "priority": 1}', "repeated key"),
    ('{"ticket": "T-1101", "action": "close", "priority": "3"}', "priority"),
    ('{"ticket": "T-1101", "action": "close", "priority": 9}', "priority"),
    ('{"ticket": "T-1101", "action": "close", "priority": true}', "priority"),
    ('{"ticket": "T-1101", "action": "drop_table", "priority": 3}', "action"),
    ('{"ticket": "../x", "action": "close", "priority": 3}', "ticket"),
    ('{"ticket": "T-1101", "action": "close", "priority": 3, "notify": "all"}', "notify"),
    ("[1, 2]", "reply"), ("x" * (MAX_REPLY_CHARS + 1), "at most")])
def test_refused_replies_name_the_problem(reply: str, problem: str) -> None:
    with pytest.raises(ActionRefused, match=problem):
        parse_action(reply)


def test_literal_eval_accepts_what_the_model_refuses() -> None:
    odd = "{'ticket': ('T-1101',), 'action': {'close'}, 'priority': True}"
    assert ast.literal_eval(odd) == {"ticket": ("T-1101",), "action": {"close"}, "priority": True}
    with pytest.raises(ActionRefused):
        parse_action(odd)


def test_the_action_is_frozen_and_a_non_string_is_refused() -> None:
    action = parse_action(ask("json"))
    with pytest.raises(ValueError):
        action.priority = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        parse_action(b"{}")  # type: ignore[arg-type]
