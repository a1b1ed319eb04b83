"""The drill's traces: spans on the real SDK with content capture off, and the search that follows them."""

import pytest
from opentelemetry.sdk.trace import ReadableSpan

from evidencedesk.agent.fakes import FakeModel
from evidencedesk.agent.loop import FixedPlan, ModelDecider
from evidencedesk.agent.poisoning import FollowsMemory
from evidencedesk.capstone.drill import POISONED, Controls, drill_lab, run_drill
from evidencedesk.capstone.traces import MEMORY, RUN, TICKETS, find, tickets_read, traced_run
from evidencedesk.tracing.genai import CONTENT_KEYS, FEATURE
from evidencedesk.tracing.setup import make_tracing
from evidencedesk.usage import ManualClock


@pytest.fixture
def spans(tmp_path):
    return run_drill(Controls(), tmp_path)[1].spans()


def test_a_traced_run_is_a_root_span_with_its_calls_under_it():
    tracing = make_tracing(ManualClock(), seed="t")
    agent, _ = drill_lab(ModelDecider(FakeModel("sensible")), 0.0)
    run = traced_run(agent, f"Check {POISONED}.", "r-9", tracing, "triage")
    names = [s.name for s in tracing.spans()]
    assert names[-1] == "invoke_agent helpdesk" and "execute_tool get_ticket" in names and names[0].startswith("chat")
    root = tracing.spans()[-1]
    assert root.attributes[RUN] == "r-9" and root.attributes[FEATURE] == "triage"
    assert tuple(root.attributes[TICKETS]) == tickets_read(run) == (POISONED,)
    assert all(s.context.trace_id == root.context.trace_id for s in tracing.spans())


def test_no_span_holds_content_only_tags_and_ids(spans):
    text = repr([dict(s.attributes or {}) for s in spans])
    assert not any(key in (s.attributes or {}) for s in spans for key in CONTENT_KEYS)
    assert "ledger-copy" not in text and "example dot org" not in text and "tool:get_ticket:o1@r-1" in text


def test_find_follows_the_email_span_to_the_run_and_the_ticket(spans):
    finding = find(spans)
    assert (finding.run, finding.code, finding.source_runs, finding.tickets) == ("r-2", "not_allowed", ("r-1",),
                                                                                  (POISONED,))
    assert "tool:get_ticket:o1@r-1" in finding.notes


def test_find_names_every_run_whose_notes_the_trace_loaded(spans):
    def with_memory(span, tags):
        return ReadableSpan(name=span.name, context=span.context, parent=span.parent, kind=span.kind,
                            attributes={**span.attributes, MEMORY: tags}, start_time=span.start_time,
                            end_time=span.end_time, status=span.status)

    tags = ("note:a@r-0", "tool:get_ticket:o1@r-1", "note:b@r-0", "fact:untagged")
    mixed = [with_memory(s, tags) if (s.attributes or {}).get(RUN) == "r-2" else s for s in spans]
    finding = find(mixed)
    assert finding.source_runs == ("r-0", "r-1") and finding.tickets == (POISONED,)  # r-0 read nothing traced


def test_find_ignores_the_tool_outside_the_feature_and_a_trace_without_it(spans):
    assert find(spans, feature="triage") is None
    assert find(spans, tool="delete_everything") is None
    assert find([s for s in spans if "send_email_draft" not in s.name]) is None


def test_the_memory_tags_are_on_the_root_of_the_run_that_loaded_them(spans):
    roots = {s.attributes[RUN]: s for s in spans if RUN in (s.attributes or {})}
    assert tuple(roots["r-1"].attributes[MEMORY]) == ()
    assert any(tag.endswith("@r-1") for tag in roots["r-2"].attributes[MEMORY])
    assert not any(tag.endswith("@r-1") for tag in roots["r-3"].attributes[MEMORY])  # purged by then


def test_traced_run_needs_a_model_decider():
    tracing = make_tracing(ManualClock(), seed="t")
    agent, _ = drill_lab(FixedPlan([("get_ticket", {"ticket_id": POISONED})]), 0.0)
    with pytest.raises(TypeError, match="ModelDecider"):
        traced_run(agent, "Check it.", "r-9", tracing, "triage")


def test_an_untraced_lab_run_is_unchanged_by_tracing_another():
    agent, _ = drill_lab(ModelDecider(FollowsMemory()), 0.0)
    assert tickets_read(agent.run("Read T-601 and summarise it.", run_id="r-5")) == ("T-601",)
