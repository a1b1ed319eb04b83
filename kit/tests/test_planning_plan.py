"""Tests of evidencedesk.planning.plan: the typed plan, what the planner and writer see, the writer's worst case."""

from __future__ import annotations

import json

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from evidencedesk.budget import worst_case_cost
from evidencedesk.calling.structured import schema_text, structured_request
from evidencedesk.llm import request_tokens
from evidencedesk.planning.plan import (
    MAX_STEPS,
    PLANNER_RULES,
    WORST_RESULT,
    Answer,
    Plan,
    Problem,
    Ref,
    Step,
    planner_request,
    tool_lines,
    writer_request,
    writer_worst,
)
from evidencedesk.planning.scenarios import lab
from evidencedesk.tools import MAX_RESULT_CHARS
from evidencedesk.usage import load_prices

GOOD = {"steps": [{"id": "s1", "tool": "get_ticket", "arguments": {"ticket_id": "T-602"}},
                  {"id": "s2", "tool": "get_contact", "arguments": {"ticket_id": "T-602"}},
                  {"id": "s3", "tool": "send_email_draft",
                   "arguments": {"to": {"from": "s2", "field": "on_file"},
                                 "subject": {"from": "s1", "field": "subject"},
                                 "body": "Thanks.", "idempotency_key": "t-602-ack-1"}}]}
PLAN = Plan.model_validate(GOOD)


def test_a_good_plan_keeps_literals_and_references_apart() -> None:
    step = PLAN.step("s3")
    found = [(name, ref.step, ref.field) for name, ref in step.refs()]
    assert found == [("to", "s2", "on_file"), ("subject", "s1", "subject")]
    assert step.arguments["body"] == "Thanks." and PLAN.step("s9") is None
    assert json.loads(PLAN.model_dump_json(by_alias=True)) == GOOD  # a reference is written back with "from"


@pytest.mark.parametrize("change, where", [
    ({"steps": []}, "steps"),
    ({"steps": GOOD["steps"] * 5}, "steps"),  # 15 steps: more than MAX_STEPS
    ({"reasoning": "first the ticket"}, "reasoning"),
    ({"steps": [{"id": "1", "tool": "get_ticket"}]}, "steps.0.id"),
    ({"steps": [{"id": "s1", "tool": "get_ticket", "why": "x"}]}, "steps.0.why"),
    ({"steps": [{"id": "s1", "tool": "get_ticket", "arguments": {"Ticket-Id": "T-601"}}]},
     "steps.0.arguments.Ticket-Id"),
    ({"steps": [{"id": "s1", "tool": "get_ticket", "arguments": {"n": 1.5}}]}, "steps.0.arguments.n"),
    ({"steps": [{"id": "s1", "tool": "get_ticket", "arguments": {"n": None}}]}, "steps.0.arguments.n"),
    ({"steps": [{"id": "s1", "tool": "x", "arguments": {"a": {"from": "s1", "field": "id", "as": "y"}}}]},
     "steps.0.arguments.a"),
    ({"steps": [{"id": "s1", "tool": "x", "arguments": {"a": {"from": "step one", "field": "id"}}}]},
     "steps.0.arguments.a"),
])
def test_the_plan_is_strict_and_closed(change: dict, where: str) -> None:
    with pytest.raises(ValidationError) as exc:
        Plan.model_validate({**GOOD, **change})
    assert any(".".join(str(p) for p in e["loc"]).startswith(where) for e in exc.value.errors())


def test_step_ids_must_be_unique() -> None:
    with pytest.raises(ValidationError, match="step ids must be unique; repeated: s1"):
        Plan.model_validate({"steps": [GOOD["steps"][0], GOOD["steps"][0]]})


def test_the_schema_a_model_sees_holds_descriptions_not_docstrings() -> None:
    schema = json.loads(schema_text(Plan))
    assert schema["description"] == "Every tool call of the run, in the order they run."
    assert "Example:" not in schema_text(Plan) and "Raises" not in schema_text(Answer)
    assert schema["$defs"]["Ref"]["required"] == ["from", "field"]


def test_a_reference_is_written_with_from() -> None:
    assert Ref.model_validate({"from": "s1", "field": "subject"}).step == "s1"
    with pytest.raises(ValidationError):
        Ref.model_validate({"step": "s1", "field": "subject"})
    assert Step.model_validate({"id": "s1", "tool": "get_ticket"}).arguments == {} and MAX_STEPS == 12


def test_tool_lines_show_arguments_results_and_writes() -> None:
    agent, _ = lab(task="reply", grant=True)
    assert tool_lines(agent.gate, "reply") == [
        "get_contact(ticket_id) -> ticket_id, reply_to, on_file",
        "get_ticket(ticket_id) -> id, status, subject, body",
        "lookup_document(doc_id) -> id, title, text",
        "send_email_draft(to, subject, body, idempotency_key) -> queued, idempotency_key (a write)",
    ]
    assert tool_lines(agent.gate, "nothing") == []


def test_the_planner_sees_trusted_rules_and_untrusted_goal_and_plan() -> None:
    agent, _ = lab()
    request = planner_request("Check T-601.", tool_lines(agent.gate, "triage"), "fake-agent-1", 300,
                              "The previous plan failed at step s2 (lookup_document) with not_found.", PLAN)
    system, user = request.messages
    assert PLANNER_RULES in system.content and "failed at step s2" in system.content
    assert "Check T-601." not in system.content
    assert '<goal source="user-input">' in user.content and '<previous_plan source="model:planner">' in user.content
    assert "<result" not in user.content and request.max_tokens == 300


def test_the_writer_sees_each_result_as_an_untrusted_block() -> None:
    request = writer_request("Check T-601.", [("s1", "get_ticket", '{"id": "T-601"}')], "fake-agent-1", 300)
    assert '<result source="tool:get_ticket:s1">\n{"id": "T-601"}\n</result>' in request.messages[1].content


def test_the_worst_writer_request_is_the_asked_one_and_its_repair() -> None:
    first, repair = writer_worst("Check T-601.", PLAN, "fake-agent-1", 300)
    longest = [(s.id, s.tool, WORST_RESULT) for s in PLAN.steps]
    asked = writer_request("Check T-601.", longest, "fake-agent-1", 300)
    assert first == structured_request(asked, Answer, native=False)
    assert repair.messages[:-1] == first.messages and "- and 999999 more" in repair.messages[-1].content
    assert request_tokens(repair) > request_tokens(first) and WORST_RESULT == "&" * MAX_RESULT_CHARS


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.lists(st.text(max_size=MAX_RESULT_CHARS), min_size=3, max_size=3), st.text(min_size=1, max_size=300))
@example(["&" * MAX_RESULT_CHARS, "<" * MAX_RESULT_CHARS, "\uff1c" * MAX_RESULT_CHARS], "g")  # escaped: 4-5 chars each
def test_no_result_text_makes_the_writer_cost_more_than_its_worst_case(texts: list[str], goal: str) -> None:
    prices = load_prices()
    results = [(s.id, s.tool, t) for s, t in zip(PLAN.steps, texts, strict=True)]
    asked = structured_request(writer_request(goal, results, "fake-agent-1", 300), Answer, native=False)
    assert worst_case_cost(asked, prices) <= worst_case_cost(writer_worst(goal, PLAN, "fake-agent-1", 300)[0], prices)


def test_answers_cite_step_ids_and_problems_read_as_one_line() -> None:
    assert Answer.model_validate({"answer": "T-601 is open.", "sources": ["s1"]}).sources == ["s1"]
    with pytest.raises(ValidationError):
        Answer.model_validate({"answer": "T-601 is open.", "sources": ["o1"]})
    assert str(Problem("", "call_limit", "11 tool calls")) == "plan call_limit: 11 tool calls"
    assert str(Problem("s2", "cycle", "s2 needs s1 needs s2")) == "s2 cycle: s2 needs s1 needs s2"
