"""Tests of evidencedesk.agent.approval: who may decide on a parked write, until when, and what it does."""

from __future__ import annotations

import pytest
from oddvalues import Unprintable
from pydantic import ValidationError

from evidencedesk.agent.approval import APPROVERS, ApprovalDesk, Request, settle
from evidencedesk.agent.loop import FixedPlan
from evidencedesk.agent.scenarios import lab
from evidencedesk.agent.state import AgentState
from evidencedesk.gate import DECLINED, SENT
from evidencedesk.security import Session

EMAIL = {"to": "kwame@example.org", "subject": "Re: T-601", "body": "Your refund is on its way.",
         "idempotency_key": "t-601-reply-1"}
PLAN = [("get_ticket", {"ticket_id": "T-601"}), ("send_email_draft", EMAIL)]


def parked(ttl_s: float = 600.0):
    """A run of kwame's that parked its email as pa-1, and a desk that has asked for a decision."""
    agent, outbox = lab(decider=FixedPlan(PLAN), task="reply", grant=True)
    run = agent.run("Reply to T-601.", run_id="r1")
    desk = ApprovalDesk(agent.gate, agent.clock, ttl_s=ttl_s)
    assert (run.state.status, run.state.pending_id, desk.ask("pa-1").code) == ("awaiting_approval", "pa-1", "asked")
    return agent, outbox, run, desk


def outcomes(agent) -> list[tuple[str, str, str]]:
    return [(e["call_id"], e["caller"], e["outcome"]) for e in agent.gate.audit.events]


def test_approve_runs_the_parked_call_once_through_the_gate_with_its_key() -> None:
    agent, outbox, run, desk = parked()
    verdict = desk.approve("pa-1", by=Session("maria"))
    assert (verdict.ok, verdict.code, verdict.result.data) == (True, "approved",
                                                               {"queued": True, "idempotency_key": "t-601-reply-1"})
    assert outbox.sent == [EMAIL] and agent.gate.pending["pa-1"].status == SENT
    request = desk.requests["pa-1"]
    assert (request.status, request.decided_by, request.outcome) == ("approved", "maria", "ok")
    # the decision is audited before the gate runs the call, and the gate audits the run itself
    assert outcomes(agent)[-2:] == [("pa-1", "maria", "approved"), ("r1-c2", "kwame", "ok")]


def test_a_second_decision_is_refused_and_nothing_runs_twice() -> None:
    agent, outbox, run, desk = parked()
    desk.approve("pa-1", by=Session("maria"))
    assert [desk.approve("pa-1", by=Session("maria")).code, desk.decline("pa-1", by=Session("maria")).code,
            desk.cancel("pa-1", by=Session("kwame")).code] == ["already_decided"] * 3
    assert len(outbox.sent) == 1 and desk.requests["pa-1"].status == "approved"


def test_separation_of_duties_the_requester_may_not_decide_even_when_listed() -> None:
    agent, outbox, run, desk = parked()
    assert "kwame" in APPROVERS["send_email_draft"]  # kwame approves other people's emails...
    assert (desk.approve("pa-1", by=Session("kwame")).code, desk.decline("pa-1", by=Session("kwame")).code) == ("own_request",) * 2
    assert outbox.sent == [] and desk.requests["pa-1"].status == "pending"  # ...but never his own


@pytest.mark.parametrize("by", [Session("lena"), Session("Maria"), Session("maria\n")])
def test_only_a_listed_approver_may_decide(by: Session) -> None:
    agent, outbox, run, desk = parked()
    assert desk.approve("pa-1", by=by) == (False, "not_approver", None)
    assert desk.decline("pa-1", by=by).code == "not_approver"
    assert outbox.sent == [] and desk.requests["pa-1"].status == "pending"


@pytest.mark.parametrize("by", ["maria", Session(""), None, 42, Unprintable()])
def test_a_bare_name_or_an_empty_session_is_not_signed_in(by: object) -> None:
    agent, outbox, run, desk = parked()
    for decide in (desk.approve, desk.decline, desk.cancel):
        assert decide("pa-1", by=by) == (False, "not_signed_in", None)  # type: ignore[arg-type]
    agent.clock.advance(601)
    assert desk.approve("pa-1", by=by).code == "not_signed_in"  # changes nothing, not even the expiry
    assert outbox.sent == [] and desk.requests["pa-1"].status == "pending"


@pytest.mark.parametrize("pending_id", ["pa-9", "", "PA-1", None, 1, Unprintable()])
def test_an_unknown_id_is_a_named_refusal(pending_id: object) -> None:
    agent, outbox, run, desk = parked()
    for decide in (desk.approve, desk.decline, desk.cancel):
        assert decide(pending_id, by=Session("maria")) == (False, "unknown_id", None)  # type: ignore[arg-type]
    assert desk.ask(pending_id).code == "unknown_id"  # type: ignore[arg-type]
    assert outcomes(agent)[-3:] == [("?", "maria", "unknown_id")] * 3 and outbox.sent == []


def test_a_request_expires_on_the_clock_and_then_nothing_can_run_it() -> None:
    agent, outbox, run, desk = parked(ttl_s=600.0)
    agent.clock.advance(599.9)
    assert desk.expire("pa-1") is False
    agent.clock.advance(0.1)
    assert desk.approve("pa-1", by=Session("maria")) == (False, "expired", None)
    assert desk.requests["pa-1"].status == "expired" and outbox.sent == []
    assert outcomes(agent)[-2:] == [("pa-1", "clock", "expired"), ("pa-1", "maria", "expired")]
    assert agent.gate.pending["pa-1"].status == DECLINED
    assert agent.gate.approve("pa-1").code == "not_allowed" and outbox.sent == []  # no second path around the desk


def test_decline_sends_nothing_now_or_later() -> None:
    agent, outbox, run, desk = parked()
    assert desk.decline("pa-1", by=Session("maria")) == (True, "declined", None)
    assert agent.gate.approve("pa-1").code == "not_allowed"  # the gate itself refuses a declined action
    assert outbox.sent == [] and settle(run.state, desk.requests["pa-1"]).reason == "denied"


def test_the_requester_or_an_approver_may_cancel_but_nobody_else() -> None:
    agent, outbox, run, desk = parked()
    assert desk.cancel("pa-1", by=Session("lena")).code == "not_approver"
    assert desk.cancel("pa-1", by=Session("kwame")) == (True, "cancelled", None)
    assert settle(run.state, desk.requests["pa-1"]).reason == "cancelled" and outbox.sent == []
    _, _, run, other = parked()
    assert other.cancel("pa-1", by=Session("maria")).code == "cancelled"


def test_every_decision_is_audited_refusals_included() -> None:
    agent, outbox, run, desk = parked()
    before = len(agent.gate.audit.events)
    for by in ("kwame", "lena", "maria", "maria"):
        desk.approve("pa-1", by=Session(by))
    assert outcomes(agent)[before:] == [("pa-1", "kwame", "own_request"), ("pa-1", "lena", "not_approver"),
                                        ("pa-1", "maria", "approved"), ("r1-c2", "kwame", "ok"),
                                        ("pa-1", "maria", "already_decided")]


def test_asking_again_changes_nothing_and_a_decided_action_is_never_asked_again() -> None:
    agent, outbox, run, desk = parked()
    agent.clock.advance(500)
    events = len(agent.gate.audit.events)
    assert desk.ask("pa-1").code == "pending" and desk.requests["pa-1"].expires_at == 600.0  # the first expiry stands
    desk.approve("pa-1", by=Session("maria"))
    assert desk.ask("pa-1").code == "approved" and list(desk.requests) == ["pa-1"]
    assert len(agent.gate.audit.events) == events + 2  # the approval and the gate's run; no new asking


def test_settle_turns_each_decision_into_the_runs_next_state() -> None:
    _, _, run, desk = parked()
    assert settle(run.state, desk.requests["pa-1"]) == run.state  # still pending: still waiting
    desk.approve("pa-1", by=Session("maria"))
    done = settle(run.state, desk.requests["pa-1"])
    assert (done.status, done.reason, done.sources) == ("done", "done", ("o2",))
    assert done.observations[-1].text == '{"idempotency_key": "t-601-reply-1", "queued": true}'
    assert settle(done, desk.requests["pa-1"]) == done  # a finished run is not settled twice
    for status, reason in (("declined", "denied"), ("expired", "denied"), ("cancelled", "cancelled")):
        closed = desk.requests["pa-1"].model_copy(update={"status": status})
        assert settle(run.state, closed).reason == reason


def test_an_approval_whose_key_was_used_for_another_email_sends_nothing_and_the_run_does_not_claim_it() -> None:
    agent, outbox, run, desk = parked()
    outbox.send_email_draft(**{**EMAIL, "body": "another text"})  # the same idempotency key, another email
    verdict = desk.approve("pa-1", by=Session("maria"))
    assert (verdict.code, verdict.result.code, len(outbox.sent)) == ("approved", "duplicate", 1)
    state = settle(run.state, desk.requests["pa-1"])
    assert (state.status, state.reason, state.sources) == ("stopped", "stuck", ())


def test_an_approval_whose_email_already_went_out_gets_the_first_result_and_sends_nothing() -> None:
    agent, outbox, run, desk = parked()
    first = outbox.send_email_draft(**EMAIL)  # the same email went out before, with its key
    verdict = desk.approve("pa-1", by=Session("maria"))
    assert (verdict.result, len(outbox.sent)) == (first, 1)
    assert settle(run.state, desk.requests["pa-1"]).status == "done"  # the one send it asked for happened


def test_a_state_waiting_for_another_request_is_left_alone() -> None:
    _, _, run, desk = parked()
    desk.approve("pa-1", by=Session("maria"))
    other = AgentState.model_validate({**run.state.model_dump(), "pending_id": "pa-2"})
    assert settle(other, desk.requests["pa-1"]) == other


@pytest.mark.parametrize("field, value", [("id", "pa-0"), ("id", "pa-1\n"), ("status", "maybe"),
                                          ("asked_at", float("nan")), ("requester", ""), ("colour", "red")])
def test_a_malformed_request_is_refused_naming_the_field(field: str, value: object) -> None:
    good = {"id": "pa-1", "run_id": "r1", "tool": "send_email_draft", "task": "reply", "requester": "kwame",
            "asked_at": 0.0, "expires_at": 600.0}
    with pytest.raises(ValidationError) as exc:
        Request.model_validate({**good, field: value})
    assert exc.value.errors()[0]["loc"] == (field,)


def test_the_gate_does_not_run_an_action_whose_request_is_pending_at_the_desk() -> None:
    """Kind 6: asked directly, the gate refuses; the decision goes through the desk."""
    agent, outbox, run, desk = parked()
    direct = agent.gate.approve("pa-1")
    assert (direct.code, outbox.sent, agent.gate.pending["pa-1"].status) == ("not_allowed", [], "pending")
    assert agent.gate.decline("pa-1").code == "not_allowed" and desk.requests["pa-1"].status == "pending"
    assert desk.approve("pa-1", by=Session("maria")).code == "approved" and len(outbox.sent) == 1


def test_the_gate_does_not_run_a_loaded_action_that_is_pending_at_the_desk(tmp_path) -> None:
    """Kind 6, after a restart: the rebuilt desk holds the action again."""
    from evidencedesk.agent.checkpoint import Checkpoint

    agent, outbox, run, desk = parked()
    Checkpoint.of(agent, run.state, desk).save(tmp_path / "run.json")
    loaded = Checkpoint.load(tmp_path / "run.json", outbox=outbox)
    assert loaded.desk.gate.approve("pa-1").code == "not_allowed" and outbox.sent == []


@pytest.mark.parametrize("breaker", ["\n", "\r", "\r\n", "\u2028", "\u2029", "\x85", "\x1e"])
def test_audit_fields_cannot_forge_a_line(breaker: str) -> None:
    """Kind 7: a caller or detail holding a line break stays one line of the audit log."""
    from evidencedesk.agent.approval import audit

    agent, outbox, run, desk = parked()
    forged = f"maria{breaker}pa-1    send_email_draft  maria  approved"
    desk.approve("pa-1", by=Session(forged[:40]))
    audit(agent.gate.audit, desk.requests["pa-1"], forged, "resumed", f"status done{breaker}pa-1 approved")
    audit(agent.gate.audit, None, "kwame", f"ok{breaker}x", "")
    lines = "\n".join(" ".join(event.values()) for event in agent.gate.audit.events).splitlines()
    assert len(lines) == len(agent.gate.audit.events)
    assert not any(c in value for event in agent.gate.audit.events for value in event.values()
                   for c in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
