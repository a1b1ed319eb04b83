"""Tests of evidencedesk.planning.checks: each refusal before step 1, all of them together, and the budget."""

from __future__ import annotations

from decimal import Decimal

import pytest

from evidencedesk.budget import worst_case_cost
from evidencedesk.planning.checks import (
    CODES,
    UNTRUSTED_SOURCE,
    WRITE_NOT_LAST,
    Room,
    budget_problems,
    check_plan,
    flow_problems,
    tool_problems,
)
from evidencedesk.planning.plan import Plan, writer_worst
from evidencedesk.planning.scenarios import lab
from evidencedesk.usage import load_prices

PRICES = load_prices()
ROOM = Room(10, 7, Decimal("0.05"), PRICES)
GOAL = "Read T-602 and reply to it."


def plan(*steps: tuple[str, str, dict]) -> Plan:
    def value(v: object) -> object:
        return {"from": v[0], "field": v[1]} if isinstance(v, tuple) else v
    return Plan.model_validate({"steps": [{"id": i, "tool": t, "arguments": {k: value(v) for k, v in a.items()}}
                                          for i, t, a in steps]})


def reply(to: tuple[str, str] | str = ("s2", "on_file"), after: tuple = ()) -> Plan:
    email = {"to": to, "subject": ("s1", "subject"), "body": "Thanks.", "idempotency_key": "t-602-ack-1"}
    return plan(("s1", "get_ticket", {"ticket_id": "T-602"}), ("s2", "get_contact", {"ticket_id": "T-602"}),
                ("s3", "send_email_draft", email), *after)


GATE = lab(task="reply", grant=True)[0].gate


def codes(problems: list) -> list[tuple[str, str]]:
    return [(p.step, p.code) for p in problems]


def test_a_good_plan_has_no_problem() -> None:
    assert check_plan(reply(), GATE, "reply", writer_worst(GOAL, reply(), "fake-agent-1", 300), ROOM) == []


@pytest.mark.parametrize("task, steps, expected", [
    ("triage", (("s1", "refund_customer", {"ticket_id": "T-601"}),), [("s1", "not_allowed")]),
    ("triage", (("s1", "send_email_draft", {}),), [("s1", "not_allowed")]),  # real, but not for triage
    ("triage", (("s1", "get_ticket", {"ticket_id": "601"}),), [("s1", "invalid_arguments")]),
    ("triage", (("s1", "get_ticket", {"ticket_id": "T-601", "urgent": True}),), [("s1", "invalid_arguments")]),
    ("triage", (("s1", "get_ticket", {}),), [("s1", "invalid_arguments")]),  # missing, and no reference fills it
    ("triage", (("s1", "get_ticket", {"ticket_id": "T-601"}), ("s2", "get_ticket", {"ticket": ("s1", "id")})),
     [("s2", "invalid_arguments"), ("s2", "invalid_arguments")]),  # no such argument, and ticket_id missing
])
def test_tools_and_literal_arguments(task: str, steps: tuple, expected: list) -> None:
    assert codes(tool_problems(plan(*steps), GATE, task)) == expected


def test_a_reference_fills_an_argument_the_schema_would_miss() -> None:
    assert tool_problems(reply(), GATE, "reply") == []  # to and subject are not literals, so not "missing"


def test_a_write_must_be_the_last_step() -> None:
    late = reply(after=(("s4", "lookup_document", {"doc_id": "kc-returns-v3"}),))
    assert codes(tool_problems(late, GATE, "reply")) == [("s3", WRITE_NOT_LAST)]


def test_the_recipient_may_come_only_from_the_address_on_file() -> None:
    assert codes(flow_problems(reply(to=("s2", "reply_to")))) == [("s3", UNTRUSTED_SOURCE)]
    assert codes(flow_problems(reply(to=("s1", "body")))) == [("s3", UNTRUSTED_SOURCE)]
    assert flow_problems(reply(to="kwame@example.org")) == []  # a literal came from the goal, not a tool
    assert flow_problems(reply(to=("s2", "reply_to")), guarded=frozenset()) == []  # the rule turned off


def test_budget_counts_tool_calls_model_calls_and_worst_cost() -> None:
    implied = writer_worst(GOAL, reply(), "fake-agent-1", 300)
    worst = sum(worst_case_cost(r, PRICES) for r in implied)
    assert budget_problems(reply(), implied, Room(3, 2, worst, PRICES)) == []  # exactly enough is enough
    tight = Room(2, 1, worst - Decimal("0.000001"), PRICES)
    assert [p.code for p in budget_problems(reply(), implied, tight)] == ["call_limit", "step_budget", "cost_budget"]


def test_the_worst_case_grows_with_the_steps() -> None:
    short, long = reply(), plan(*[(f"s{n}", "get_ticket", {"ticket_id": "T-601"}) for n in range(1, 9)])
    cost = [sum(worst_case_cost(r, PRICES) for r in writer_worst(GOAL, p, "fake-agent-1", 300)) for p in (short, long)]
    assert cost[0] < cost[1]


def test_every_problem_is_reported_in_check_order() -> None:
    bad = plan(("s1", "refund_customer", {}), ("s2", "send_email_draft", {"to": ("s3", "reply_to"), "subject": "x",
                                                                          "body": "y", "idempotency_key": "key-00001"}),
               ("s3", "get_contact", {"ticket_id": "T-602"}))
    found = check_plan(bad, GATE, "reply", writer_worst(GOAL, bad, "fake-agent-1", 300), Room(2, 7, Decimal(1), PRICES))
    assert [p.code for p in found] == ["not_allowed", "write_not_last", "later_step", "untrusted_source", "call_limit"]
    assert all(p.code in CODES for p in found)
