"""Shadow runs follow the gate's rules, suppress writes, and are compared by a stated rule."""

from evidencedesk.agent.scenarios import lab
from evidencedesk.releases.candidates import RELEASE_CONFIGS as C
from evidencedesk.releases.candidates import live_set
from evidencedesk.releases.shadow import ShadowGate, shadow, shadow_pair
from evidencedesk.tools import NEEDS_APPROVAL, NOT_ALLOWED, NOT_FOUND, ToolCall
from evidencedesk.trajectories.cases import agent_set


EMAIL = ToolCall("c1", "send_email_draft",
                 {"to": "a@example.org", "subject": "s", "body": "b", "idempotency_key": "t-601-reply"})


def gate(grant):
    agent, outbox = lab("sensible", task="reply", grant=grant)
    return ShadowGate(agent.gate.registry, agent.gate.policy), outbox


def test_a_granted_write_is_suppressed_not_parked_and_cannot_be_approved():
    shadow_gate, outbox = gate(True)
    call = EMAIL
    result = shadow_gate.run(call, "reply", "r1", "kwame")
    assert result.code == NEEDS_APPROVAL and shadow_gate.pending == {}
    assert shadow_gate.suppressed == [("send_email_draft", call.arguments)]
    assert shadow_gate.approve(result.error["pending_id"]).code == NOT_FOUND and outbox.sent == []


def test_a_write_without_the_grant_is_still_refused_and_reads_still_run():
    shadow_gate, _ = gate(False)
    call = EMAIL
    assert shadow_gate.run(call, "reply", "r1", "kwame").code == NOT_ALLOWED and shadow_gate.suppressed == []
    assert shadow_gate.run(ToolCall("c2", "get_ticket", {"ticket_id": "T-601"}), "reply", "r1", "kwame").ok


def test_the_served_run_parks_the_write_and_the_shadow_suppresses_it():
    s10 = next(c for c in agent_set().cases if c.id == "s10")
    pair = shadow_pair(s10, C["baseline"], C["baseline"], agent_set())
    assert (pair.parked, pair.suppressed) == (1, 1) and not pair.path_changed and not pair.reason_changed


def test_the_rule_blocks_a_changed_stop_reason_and_lists_changed_paths():
    report = shadow([agent_set()], C["baseline"], C["retry-reads"])
    assert report.verdict() == (False, "stop reason changed on s02 s11")
    snap = shadow([live_set()], C["baseline"], C["snapshot-1120"])
    ok, why = snap.verdict()
    assert ok and [p.case.id for p in snap.pairs if p.path_changed] == [f"x0{i}" for i in range(1, 7)]
    assert snap.costs[1] < snap.costs[0] and why.startswith("same stop reasons")


def test_identical_configurations_give_no_difference():
    report = shadow([live_set()], C["baseline"], C["baseline"])
    assert not any(p.path_changed or p.reason_changed for p in report.pairs) and report.costs[0] == report.costs[1]


def test_a_write_is_suppressed_even_when_the_decision_order_has_no_parking_check(monkeypatch):
    import evidencedesk.releases.shadow as shadow_module
    from evidencedesk.gate import ToolGate

    without_park = tuple(c for c in shadow_module.DECISION_ORDER if c.ask is not ToolGate._park)
    monkeypatch.setattr(shadow_module, "DECISION_ORDER", without_park)
    shadow_gate, outbox = gate(True)
    result = shadow_gate.run(EMAIL, "reply", "r1", "kwame")
    assert result.code == NEEDS_APPROVAL and len(shadow_gate.suppressed) == 1 and outbox.sent == []
