"""Tests of evidencedesk.planning.graph: edges, cycles, unknown steps and fields, late references, the drawing."""

from __future__ import annotations

import pytest

from evidencedesk.planning.graph import (
    CYCLE,
    LATER_STEP,
    UNKNOWN_FIELD,
    UNKNOWN_STEP,
    edges,
    find_cycle,
    graph_problems,
    mermaid,
)
from evidencedesk.planning.plan import Plan


def plan(*steps: tuple[str, str, dict]) -> Plan:
    """A plan from (id, tool, arguments); a tuple (step, field) as an argument is a reference."""
    def value(v: object) -> object:
        return {"from": v[0], "field": v[1]} if isinstance(v, tuple) else v
    return Plan.model_validate({"steps": [{"id": i, "tool": t, "arguments": {k: value(v) for k, v in a.items()}}
                                          for i, t, a in steps]})


REPLY = plan(("s1", "get_ticket", {"ticket_id": "T-602"}), ("s2", "get_contact", {"ticket_id": "T-602"}),
             ("s3", "send_email_draft", {"to": ("s2", "on_file"), "subject": ("s1", "subject"), "body": "Thanks.",
                                         "idempotency_key": "t-602-ack-1"}))


def test_edges_run_from_the_source_to_the_step_that_needs_it() -> None:
    assert edges(REPLY) == [("s2", "s3", "on_file", "to"), ("s1", "s3", "subject", "subject")]
    assert graph_problems(REPLY) == [] and find_cycle(REPLY) == []


@pytest.mark.parametrize("steps, expected", [
    ((("s1", "get_ticket", {"ticket_id": ("s9", "id")}),), [(UNKNOWN_STEP, "s1")]),
    ((("s1", "get_ticket", {"ticket_id": "T-601"}), ("s2", "lookup_document", {"doc_id": ("s1", "owner")})),
     [(UNKNOWN_FIELD, "s2")]),
    ((("s1", "lookup_document", {"doc_id": ("s2", "id")}), ("s2", "get_ticket", {"ticket_id": "T-601"})),
     [(LATER_STEP, "s1")]),
    ((("s1", "get_ticket", {"ticket_id": ("s2", "id")}), ("s2", "lookup_document", {"doc_id": ("s1", "id")})),
     [(CYCLE, "s1")]),
    ((("s1", "get_ticket", {"ticket_id": ("s1", "id")}),), [(CYCLE, "s1")]),
    # a tool the registry does not know: its fields are not checked here (checks.py refuses the tool)
    ((("s1", "made_up", {}), ("s2", "get_ticket", {"ticket_id": ("s1", "anything")})), []),
])
def test_each_fault_is_named_once(steps: tuple, expected: list) -> None:
    assert [(p.code, p.step) for p in graph_problems(plan(*steps))] == expected


def test_a_cycle_names_its_steps_in_order() -> None:
    three = plan(("s1", "get_ticket", {"ticket_id": ("s3", "id")}), ("s2", "get_ticket", {"ticket_id": ("s1", "id")}),
                 ("s3", "get_ticket", {"ticket_id": ("s2", "id")}))
    assert find_cycle(three) == ["s1", "s3", "s2"]
    assert [str(p) for p in graph_problems(three)] == ["s1 cycle: s1 needs s3 needs s2 needs s1"]


def test_a_late_reference_outside_a_cycle_is_still_named() -> None:
    mixed = plan(("s1", "get_ticket", {"ticket_id": ("s2", "id")}), ("s2", "get_ticket", {"ticket_id": ("s1", "id")}),
                 ("s3", "lookup_document", {"doc_id": ("s4", "id")}), ("s4", "get_ticket", {"ticket_id": "T-601"}))
    assert [(p.code, p.step) for p in graph_problems(mixed)] == [(CYCLE, "s1"), (LATER_STEP, "s3")]


def test_several_faults_are_all_reported() -> None:
    bad = plan(("s1", "get_ticket", {"ticket_id": ("s7", "id")}),
               ("s2", "lookup_document", {"doc_id": ("s1", "colour")}))
    assert [p.code for p in graph_problems(bad)] == [UNKNOWN_STEP, UNKNOWN_FIELD]


def test_the_drawing_has_one_box_per_step_and_one_arrow_per_reference() -> None:
    assert mermaid(REPLY).splitlines() == [
        "flowchart LR",
        '    s1["s1: get_ticket"]',
        '    s2["s2: get_contact"]',
        '    s3["s3: send_email_draft"]',
        '    s2 -- "on_file → to" --> s3',
        '    s1 -- "subject → subject" --> s3',
    ]


def test_the_drawing_marks_refused_steps_and_escapes_quotes() -> None:
    odd = plan(("s1", 'get"ticket', {}))
    text = mermaid(odd, refused={"s1"})
    assert '["s1: get#quot;ticket"]' in text and text.endswith("    class s1 refused")
