"""The drill: each control does its part, on one clock, and the record says what happened."""

import json

import pytest
from pydantic import ValidationError

from evidencedesk.agent.fakes import FakeModel
from evidencedesk.agent.loop import ModelDecider
from evidencedesk.agent.poisoning import FollowsMemory
from evidencedesk.capstone.drill import (
    DECIDE_AT,
    POISONED,
    RUN_2_AT,
    RUN_3_AT,
    Controls,
    Event,
    drill_lab,
    run_drill,
    touched,
)


@pytest.fixture
def drill(tmp_path):
    return lambda **controls: run_drill(Controls(**controls), tmp_path)[0]


def test_with_every_control_the_ticket_is_found_contained_and_purged(drill):
    d = drill()
    assert d.reached and d.reached_at == DECIDE_AT and d.contained and d.clean
    assert d.finding.run == "r-2" and d.finding.source_runs == ("r-1",) and d.finding.code == "not_allowed"
    assert d.finding.tickets == (POISONED,) and d.quarantined == (POISONED,)
    assert d.purged == ("t-2201-subject", "t-2201-note-1")
    assert [e.at for e in d.events] == sorted(e.at for e in d.events) and d.events[-1].at == RUN_3_AT


def test_a_declined_note_never_reaches_memory_and_nothing_is_found(drill):
    d = drill(review="decline")
    assert not d.reached and d.reached_at is None and d.finding is None and d.clean and d.purged == ()


def test_without_review_the_write_rules_let_the_spelled_address_in(drill):
    d = drill(review="off")
    assert d.reached and d.reached_at == 0 and d.detected and d.clean


def test_with_the_email_tool_taken_for_a_read_the_email_leaves(drill):
    d = drill(gate=False)
    assert d.emails == 1 and not d.contained and d.finding.code == "ok" and d.clean


def test_without_tracing_nobody_finds_it_and_the_next_run_tries_again(drill):
    d = drill(tracing=False)
    assert d.finding is None and d.live_after == 2 and d.later_write and d.contained and not d.clean
    assert d.events[-1].what == f"read {POISONED}: read"


def test_without_the_purge_the_quarantine_alone_leaves_the_notes(drill):
    d = drill(purge=False)
    assert d.detected and d.purged == () and d.live_after == 2 and d.later_write
    assert d.events[-1].what == f"read {POISONED}: missing"


def test_a_quarantined_ticket_reads_as_missing():
    agent, _ = drill_lab(ModelDecider(FakeModel("sensible")), 0.0, quarantined=frozenset({POISONED}))
    run = agent.run(f"Check {POISONED}.", run_id="r-9")
    assert not run.state.observations[0].ok
    agent, _ = drill_lab(ModelDecider(FakeModel("sensible")), 0.0)
    assert json.loads(agent.run(f"Check {POISONED}.", run_id="r-9").state.observations[0].text)["id"] == POISONED


def test_the_lab_clock_starts_where_the_drill_stands_and_only_held_keeps_the_write_flag():
    agent, _ = drill_lab(ModelDecider(FakeModel("sensible")), RUN_2_AT)
    assert agent.clock() == RUN_2_AT and agent.task == "reply" and not agent.gate.policy.may_write("reply")
    assert agent.gate.registry.get("send_email_draft").writes
    loose, _ = drill_lab(ModelDecider(FakeModel("sensible")), 0.0, held=False)
    assert not loose.gate.registry.get("send_email_draft").writes and loose.gate.registry.get("get_ticket")


def test_a_run_that_never_touched_the_email_tool_says_so():
    agent, _ = drill_lab(ModelDecider(FollowsMemory()), 0.0)
    assert touched(agent.run("Read T-601 and summarise it.", run_id="r-5")) == ""


def test_with_tracing_every_run_has_a_trace_and_without_none(tmp_path):
    drill, tracing = run_drill(Controls(), tmp_path)
    runs = [s.attributes["evidencedesk.run"] for s in tracing.spans() if s.name.startswith("invoke_agent")]
    assert runs == ["r-1", "r-2", "r-3", "r-4"]
    assert run_drill(Controls(tracing=False), tmp_path)[1] is None


def test_controls_are_strict_and_events_wrap_under_their_text():
    with pytest.raises(ValidationError, match="review"):
        Controls(review="maybe")
    with pytest.raises(ValidationError, match="gate"):
        Controls(gate="yes")
    lines = Event(at=300, who="r-2", what="word " * 30).lines(40)
    assert max(map(len, lines)) <= 40 and all(line.startswith(" " * 17) for line in lines[1:])


def test_bad_controls_or_a_missing_folder_are_named(tmp_path):
    with pytest.raises(TypeError, match="Controls"):
        run_drill({"review": "off"}, tmp_path)
    with pytest.raises(ValueError, match="no-such-folder"):
        run_drill(Controls(), tmp_path / "no-such-folder")
