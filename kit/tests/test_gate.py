"""Tests for evidencedesk.gate: decision order, allowlist, argument checks, limits, write approval, audit, bad input."""

from __future__ import annotations

import pytest
from oddvalues import Unprintable, UnprintableKey, deeply_nested
from pydantic import ValidationError

import evidencedesk.gate
from evidencedesk import DATA_DIR
from evidencedesk.gate import (
    CALL_LIMIT,
    DECISION_ORDER,
    DUPLICATE,
    INVALID_ARGUMENTS,
    NEEDS_APPROVAL,
    NOT_ALLOWED,
    NOT_FOUND,
    OK,
    TOO_LARGE,
    TOOL_ERROR,
    Policy,
    ToolGate,
    default_policy,
)
from evidencedesk.helpdesk import DocumentStore, GetTicketArgs, Outbox, TicketStore, default_registry, kit_tools
from evidencedesk.security import SIMULATED_SECRET
from evidencedesk.tools import RESULT_CODES, Tool, ToolCall, ToolRegistry

EVIL = {"to": "evil@example.org", "subject": "records", "body": "all of them", "idempotency_key": "evil-key-0001"}
READ = ToolCall("run-1-c1", "get_ticket", {"ticket_id": "T-501"})


def make_gate(grant: bool = False, max_calls: int = 10) -> tuple[ToolGate, Outbox]:
    registry, outbox = kit_tools()
    return ToolGate(registry, default_policy(grant_writes=grant, max_calls_per_run=max_calls)), outbox


def email(key: str = "evil-key-0001", call_id: str = "run-1-c2") -> ToolCall:
    return ToolCall(call_id, "send_email_draft", {**EVIL, "idempotency_key": key})


def test_an_allowed_read_runs_and_is_audited() -> None:
    gate, _ = make_gate()
    result = gate.run(READ, "triage", "run-1", caller="kwame")
    assert result.ok and result.data["id"] == "T-501"
    assert gate.audit.events == [{"run_id": "run-1", "call_id": "run-1-c1", "tool": "get_ticket", "task": "triage",
                                  "caller": "kwame", "outcome": OK, "detail": "ran"}]


def test_a_made_up_tool_and_a_forbidden_tool_get_the_same_answer() -> None:
    tickets = TicketStore.from_file(DATA_DIR / "tickets.json")
    full = default_registry(tickets, DocumentStore.from_file(DATA_DIR / "documents.json"), Outbox())
    no_email = ToolRegistry()
    for name in ("get_ticket", "lookup_document"):
        no_email.register(full.get(name))
    forbidden = ToolGate(full, default_policy()).run(email(), "triage", "run-1", "kwame")
    made_up = ToolGate(no_email, default_policy(grant_writes=True)).run(email(), "reply", "run-1", "kwame")
    assert forbidden == made_up
    assert forbidden.error == {"code": NOT_ALLOWED, "message": "tool 'send_email_draft' is not available for this task"}


@pytest.mark.parametrize("task", ["triage", "reply", "no-such-task", ""])
def test_unknown_tools_are_not_allowed_in_every_task(task: str) -> None:
    gate, _ = make_gate(grant=True)
    result = gate.run(ToolCall("c1", "delete_everything", {}), task, "run-1", "kwame")
    assert result.error == {"code": NOT_ALLOWED, "message": "tool 'delete_everything' is not available for this task"}


def test_another_users_ticket_answers_like_a_missing_one_through_the_gate() -> None:
    gate, _ = make_gate()
    theirs = gate.run(ToolCall("c1", "get_ticket", {"ticket_id": "T-503"}), "triage", "run-1", "kwame")
    missing = gate.run(ToolCall("c2", "get_ticket", {"ticket_id": "T-999"}), "triage", "run-1", "kwame")
    assert theirs.error["code"] == missing.error["code"] == NOT_FOUND
    assert theirs.error["message"].replace("503", "999") == missing.error["message"]


@pytest.mark.parametrize(
    ("arguments", "named"),
    [({}, "ticket_id"), ({"ticket_id": 601}, "ticket_id"), ({"ticket_id": "T-501", "x": 1}, "x"), ([], "arguments")],
)
def test_invalid_arguments_are_refused_naming_the_field(arguments: object, named: str) -> None:
    gate, _ = make_gate()
    result = gate.run(ToolCall("c1", "get_ticket", arguments), "triage", "run-1", "kwame")  # type: ignore[arg-type]
    assert result.error["code"] == INVALID_ARGUMENTS and named in result.error["message"]


def test_oversized_text_is_refused_before_it_reaches_a_tool() -> None:
    gate, outbox = make_gate(grant=True)
    long_body = gate.run(ToolCall("c1", "send_email_draft", {**EVIL, "body": "x" * 2001}), "reply", "run-1", "kwame")
    huge = gate.run(ToolCall("c2", "send_email_draft", {**EVIL, "body": "x" * 9000}), "reply", "run-1", "kwame")
    assert long_body.code == INVALID_ARGUMENTS and "body" in long_body.error["message"]
    assert huge.code == TOO_LARGE
    assert outbox.sent == [] and gate.pending == {}


def test_a_write_without_the_grant_is_not_allowed_and_nothing_is_sent() -> None:
    gate, outbox = make_gate(grant=False)
    result = gate.run(email(), "reply", "run-1", "kwame")
    assert result.error["code"] == NOT_ALLOWED and "write grant" in result.error["message"]
    assert outbox.sent == [] and gate.pending == {}


def test_a_write_with_the_grant_is_parked_and_nothing_is_sent() -> None:
    gate, outbox = make_gate(grant=True)
    first = gate.run(email(), "reply", "run-1", "kwame")
    second = gate.run(email("other-key-01", "run-1-c3"), "reply", "run-1", "kwame")
    assert first.error["code"] == NEEDS_APPROVAL and first.error["pending_id"] == "pa-1"
    assert second.error["pending_id"] == "pa-2"
    action = gate.pending["pa-1"]
    assert (action.status, action.call.name, action.run_id, action.task, action.caller) == (
        "pending", "send_email_draft", "run-1", "reply", "kwame")
    assert outbox.sent == []


def test_an_approval_runs_once_and_a_second_approval_runs_nothing() -> None:
    gate, outbox = make_gate(grant=True)
    gate.run(email(), "reply", "run-1", "kwame")
    assert gate.approve("pa-1").data == {"queued": True, "idempotency_key": "evil-key-0001"}
    assert gate.pending["pa-1"].status == "sent"
    sent_before = list(outbox.sent)
    again = gate.approve("pa-1")
    assert (again.code, again.error["message"]) == (NOT_ALLOWED, "pa-1 was already approved (sent); nothing ran")
    assert gate.decline("pa-1").code == NOT_ALLOWED and outbox.sent == sent_before == [EVIL]


def test_a_retry_parked_again_gets_the_first_result_and_sends_nothing() -> None:
    gate, outbox = make_gate(grant=True)
    gate.run(email(), "reply", "run-1", "kwame")
    gate.run(email(call_id="run-2-c1"), "reply", "run-2", "kwame")  # the same e-mail, same key, parked as pa-2
    first = gate.approve("pa-1")
    assert gate.approve("pa-2") == first and gate.pending["pa-2"].status == "sent"
    assert len(outbox.sent) == 1


def test_a_key_reused_for_another_email_ends_the_action_as_failed_not_pending() -> None:
    gate, outbox = make_gate(grant=True)
    gate.run(email(), "reply", "run-1", "kwame")
    gate.run(ToolCall("run-2-c1", "send_email_draft", {**EVIL, "body": "other"}), "reply", "run-2", "kwame")
    gate.approve("pa-1")
    assert gate.approve("pa-2").code == DUPLICATE and gate.pending["pa-2"].status == "failed"
    assert gate.approve("pa-2").code == NOT_ALLOWED and gate.decline("pa-2").code == NOT_ALLOWED
    assert len(outbox.sent) == 1


def test_a_held_action_is_decided_only_by_its_holder() -> None:
    gate, outbox = make_gate(grant=True)
    gate.run(email(), "reply", "run-1", "kwame")
    desk, other = object(), object()
    assert gate.hold("pa-1", desk) and not gate.hold("pa-1", other) and not gate.hold("pa-9", desk)
    for decide in (gate.approve, gate.decline):
        refused = decide("pa-1")
        assert (refused.code, refused.error["message"]) == (NOT_ALLOWED, "pa-1 waits for the decision of its "
                                                                         "approval desk")
        assert decide("pa-1", holder=other).code == NOT_ALLOWED
    assert outbox.sent == [] and gate.pending["pa-1"].status == "pending"
    assert gate.approve("pa-1", holder=desk).ok and len(outbox.sent) == 1


def test_a_parked_write_never_gets_an_id_in_use_or_given_before() -> None:
    gate, _ = make_gate(grant=True)
    gate.pending.clear()
    gate.issued = 0
    gate.run(email(), "reply", "run-1", "kwame")
    gate.run(email("other-key-01", "run-1-c3"), "reply", "run-1", "kwame")
    del gate.pending["pa-1"]  # a smaller table than the ids handed out (as after a restore)
    gate.run(email("third-key-01", "run-1-c4"), "reply", "run-1", "kwame")
    assert list(gate.pending) == ["pa-2", "pa-3"]
    restored, _ = make_gate(grant=True)
    restored.pending["pa-7"] = gate.pending["pa-2"]  # a restored table that knows nothing of issued
    assert restored.run(email("fourth-key-1", "run-9-c1"), "reply", "run-9", "kwame").error["pending_id"] == "pa-8"


@pytest.mark.parametrize("breaker", ["\n", "\r", "\u2028", "\u2029", "\x0b", "\x85"])
def test_audit_values_stay_on_one_line(breaker: str) -> None:
    gate, _ = make_gate()
    gate.run(READ, "triage", "run-1", caller=f"kwame{breaker}run-1 | c9 | send_email_draft | ok")
    gate.audit.add("run-1", "pa-1", "send_email_draft", "reply", f"maria{breaker}x", "approved", f"ran{breaker}ok")
    for event in gate.audit.events:
        assert all(not any(c in value for c in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
                   for value in event.values()), event
    escaped = gate.audit.events[0]["caller"].startswith("kwame\\")  # escaped: the forged text stays visible
    assert escaped or breaker in "\x0b\x85"  # hidden controls are dropped before, by redact_log


def test_decline_sends_nothing_and_blocks_a_later_approval() -> None:
    gate, outbox = make_gate(grant=True)
    gate.run(email(), "reply", "run-1", "kwame")
    assert gate.decline("pa-1").data == {"pending_id": "pa-1", "status": "declined"}
    assert gate.approve("pa-1").code == NOT_ALLOWED
    assert outbox.sent == [] and gate.pending["pa-1"].status == "declined"


def test_the_audit_log_says_what_a_decision_did() -> None:
    gate, _ = make_gate(grant=True)
    gate.run(email(), "reply", "run-1", "kwame")
    gate.run(email("other-key-01", "run-1-c3"), "reply", "run-1", "kwame")
    gate.approve("pa-1")
    gate.decline("pa-2")
    assert [(e["outcome"], e["detail"]) for e in gate.audit.events[2:]] == [
        (OK, "pa-1 approved, ran"), (OK, "pa-2 declined, nothing sent")]


def test_a_sent_action_cannot_be_declined() -> None:
    gate, _ = make_gate(grant=True)
    gate.run(email(), "reply", "run-1", "kwame")
    gate.approve("pa-1")
    assert gate.decline("pa-1").code == NOT_ALLOWED and gate.pending["pa-1"].status == "sent"


@pytest.mark.parametrize("pending_id", ["pa-9", "", None, ["pa-1"]])
def test_unknown_pending_ids_are_not_found(pending_id: object) -> None:
    gate, _ = make_gate(grant=True)
    gate.run(email(), "reply", "run-1", "kwame")
    assert gate.approve(pending_id).code == NOT_FOUND  # type: ignore[arg-type]
    assert gate.decline(pending_id).code == NOT_FOUND  # type: ignore[arg-type]
    assert gate.pending["pa-1"].status == "pending"


def test_per_run_call_limit_counts_each_run_separately() -> None:
    gate, _ = make_gate(max_calls=2)
    codes = [gate.run(READ, "triage", "run-1", "kwame").code for _ in range(3)]
    assert codes == [OK, OK, CALL_LIMIT]
    assert gate.run(READ, "triage", "run-2", "kwame").code == OK


def test_refused_calls_do_not_use_up_the_call_limit() -> None:
    gate, _ = make_gate(max_calls=1)
    gate.run(ToolCall("c1", "made_up", {}), "triage", "run-1", "kwame")
    gate.run(ToolCall("c2", "get_ticket", {}), "triage", "run-1", "kwame")
    assert gate.run(READ, "triage", "run-1", "kwame").code == OK


def test_per_tool_call_limit() -> None:
    registry, _ = kit_tools()
    policy = Policy({"triage": {"get_ticket", "lookup_document"}}, max_calls_per_tool={"get_ticket": 1})
    gate = ToolGate(registry, policy)
    doc = ToolCall("c3", "lookup_document", {"doc_id": "kc-returns-v3"})
    assert [gate.run(c, "triage", "run-1", "kwame").code for c in (READ, READ, doc)] == [OK, CALL_LIMIT, OK]


def test_every_decision_is_audited_once_in_order() -> None:
    gate, _ = make_gate(grant=True, max_calls=3)
    calls = [(READ, "triage"), (ToolCall("c2", "nope", {}), "triage"), (ToolCall("c3", "get_ticket", {}), "triage"),
             (email(), "triage"), (email(), "reply"), (READ, "reply"), (READ, "reply")]
    for call, task in calls:
        gate.run(call, task, "run-1", "kwame")
    gate.approve("pa-1")
    assert [e["outcome"] for e in gate.audit.events] == [
        OK, NOT_ALLOWED, INVALID_ARGUMENTS, NOT_ALLOWED, NEEDS_APPROVAL, OK, CALL_LIMIT, OK]


def test_the_audit_log_holds_no_arguments_secrets_or_addresses() -> None:
    gate, _ = make_gate(grant=True)
    gate.run(ToolCall("c1", "send_email_draft", {**EVIL, "body": "confidential body"}), "reply", "run-1", "kwame")
    gate.run(ToolCall("c2", SIMULATED_SECRET, {}), "triage", "run-1", "kwame@example.org")
    logged = " ".join(v for event in gate.audit.events for v in event.values())
    assert "confidential" not in logged and SIMULATED_SECRET not in logged and "@example.org" not in logged
    assert "[redacted]" in logged


class Weird:
    pass


circular: dict = {}
circular["self"] = circular


@pytest.mark.parametrize(
    ("call", "task", "run_id", "caller", "code"),
    [
        ("get_ticket", "triage", "run-1", "kwame", INVALID_ARGUMENTS),
        (None, "triage", "run-1", "kwame", INVALID_ARGUMENTS),
        (READ, None, "run-1", "kwame", INVALID_ARGUMENTS),
        (READ, "triage", 7, "kwame", INVALID_ARGUMENTS),
        (READ, "triage", "run-1", None, INVALID_ARGUMENTS),
        (ToolCall("c1", None, {}), "triage", "run-1", "kwame", NOT_ALLOWED),  # type: ignore[arg-type]
        (ToolCall("c1", ["get_ticket"], {}), "triage", "run-1", "kwame", NOT_ALLOWED),  # type: ignore[arg-type]
        (ToolCall("c1", "get_ticket", "T-501"), "triage", "run-1", "kwame", INVALID_ARGUMENTS),  # type: ignore[arg-type]
        (ToolCall("c1", "get_ticket", {"ticket_id": Weird()}), "triage", "run-1", "kwame", INVALID_ARGUMENTS),
        (ToolCall("c1", "get_ticket", circular), "triage", "run-1", "kwame", INVALID_ARGUMENTS),
        (ToolCall("c1", "get_ticket", {("a",): 1}), "triage", "run-1", "kwame", INVALID_ARGUMENTS),
    ],
)
def test_bad_input_becomes_an_error_result_never_an_exception(call, task, run_id, caller, code) -> None:
    gate, _ = make_gate()
    result = gate.run(call, task, run_id, caller)
    assert not result.ok and result.error["code"] == code
    assert len(gate.audit.events) == 1 and gate.audit.events[0]["outcome"] == code


def test_a_crashing_tool_becomes_tool_error_through_the_gate() -> None:
    def broken(arguments: dict, caller: str):
        raise KeyError("disk")

    registry = ToolRegistry()
    registry.register(Tool("get_ticket", GetTicketArgs, broken))
    gate = ToolGate(registry, default_policy())
    assert gate.run(READ, "triage", "run-1", "kwame").code == TOOL_ERROR
    assert gate.audit.events[0]["outcome"] == TOOL_ERROR


def test_default_policy_grants() -> None:
    plain, granted = default_policy(), default_policy(grant_writes=True, max_calls_per_run=4)
    assert plain.tools_for("triage") == {"get_ticket", "lookup_document"}
    assert granted.tools_for("reply") == {"get_ticket", "lookup_document", "send_email_draft"}
    assert plain.tools_for("unknown") == set() and plain.tools_for(None) == set()  # type: ignore[arg-type]
    assert (plain.may_write("reply"), granted.may_write("reply"), granted.may_write("triage")) == (False, True, False)
    assert granted.max_calls_per_run == 4


@pytest.mark.parametrize(
    "kwargs",
    [{"allow": "triage"}, {"allow": {}, "max_calls_per_run": -1}, {"allow": {}, "max_calls_per_run": "10"},
     {"allow": {}, "max_calls_per_tool": {"get_ticket": -2}}],
)
def test_policy_rejects_bad_configuration(kwargs: dict) -> None:
    with pytest.raises(ValidationError):
        Policy(**kwargs)


# Regression tests for the attack findings: input so odd that checking it used to raise out of run().


class HashlessName(str):
    def __hash__(self) -> int:
        raise RuntimeError("no hash")


@pytest.mark.parametrize(
    ("call", "code", "message"),
    [
        (ToolCall("c1", "get_ticket", {"ticket_id": deeply_nested()}), INVALID_ARGUMENTS, "ticket_id: Input should"),
        (ToolCall("c1", "get_ticket", {"ticket_id": 10**5000}), INVALID_ARGUMENTS, "ticket_id: Input should"),
        (ToolCall("c1", "get_ticket", {"ticket_id": Unprintable()}), INVALID_ARGUMENTS, "ticket_id: Input should"),
        (ToolCall("c1", "get_ticket", {UnprintableKey(): "T-501"}), INVALID_ARGUMENTS, "ticket_id: Field required"),
        (ToolCall("c1", Unprintable(), {}), NOT_ALLOWED, "tool '<Unprintable>' is not available"),  # type: ignore[arg-type]
        (ToolCall(Unprintable(), "get_ticket", {}), INVALID_ARGUMENTS, "call.id: expected a str"),  # type: ignore[arg-type]
        (ToolCall("c1", HashlessName("get_ticket"), {}), INVALID_ARGUMENTS,
         "call: could not be checked (RuntimeError)"),  # only the last-resort guard catches this one
    ],
)
def test_odd_objects_come_back_as_audited_error_results(call: ToolCall, code: str, message: str) -> None:
    gate, outbox = make_gate()
    result = gate.run(call, "triage", "run-1", "kwame")
    assert (result.code, result.error["message"][: len(message)]) == (code, message)
    assert [(e["outcome"], e["detail"][: len(message)]) for e in gate.audit.events] == [(code, message)]
    assert outbox.sent == []


def test_the_audit_log_survives_values_that_cannot_be_printed() -> None:
    gate, _ = make_gate()
    gate.run(READ, Unprintable(), Unprintable(), Unprintable())  # type: ignore[arg-type]
    [event] = gate.audit.events
    assert (event["run_id"], event["task"], event["caller"], event["outcome"]) == (
        "<Unprintable>", "<Unprintable>", "<Unprintable>", INVALID_ARGUMENTS)


# The decision order is data: _decide walks DECISION_ORDER, and the course page draws it.


def gate_with(policy: Policy) -> tuple[ToolGate, Outbox]:
    registry, outbox = kit_tools()
    return ToolGate(registry, policy), outbox


ONE_CALL = Policy({"reply": frozenset({"get_ticket", "send_email_draft"})}, max_calls_per_run=1)
GRANTED = Policy({"reply": frozenset({"get_ticket", "send_email_draft"})}, write_tasks=frozenset({"reply"}))


@pytest.mark.parametrize(
    ("index", "policy", "task", "calls"),
    [
        (0, GRANTED, 7, [READ]),  # a task that is not a str
        (1, GRANTED, "reply", [ToolCall("c1", "lookup_document", {"doc_id": "kc-returns-v3"})]),
        (2, GRANTED, "reply", [ToolCall("c1", "send_email_draft", {**EVIL, "body": "x" * 9000})]),
        (3, GRANTED, "reply", [ToolCall("c1", "get_ticket", {"ticket_id": "501"})]),
        (4, ONE_CALL, "reply", [READ, READ]),
        (5, ONE_CALL, "reply", [email()]),
        (6, GRANTED, "reply", [email()]),
    ],
)
def test_each_check_stops_a_call_with_its_own_code(index: int, policy: Policy, task: object, calls: list) -> None:
    gate, outbox = gate_with(policy)
    results = [gate.run(call, task, "run-1", "kwame") for call in calls]  # type: ignore[arg-type]
    assert results[-1].code == DECISION_ORDER[index].code and outbox.sent == []


def test_a_valid_read_passes_every_check() -> None:
    gate, _ = gate_with(GRANTED)
    assert [check.ask(gate, READ, "reply", "run-1", "kwame") for check in DECISION_ORDER] == [None] * 7


def test_the_order_is_the_one_the_gate_follows(monkeypatch: pytest.MonkeyPatch) -> None:
    gate, outbox = make_gate(grant=False)
    assert gate.run(email(), "triage", "run-1", "kwame").code == NOT_ALLOWED
    monkeypatch.setattr(evidencedesk.gate, "DECISION_ORDER", DECISION_ORDER[:1])  # only the type check left
    assert gate.run(email(), "triage", "run-1", "kwame").ok and len(outbox.sent) == 1  # so: edit the data, not a copy


def test_the_decision_order_holds_what_a_diagram_needs() -> None:
    assert [check.code for check in DECISION_ORDER] == [
        INVALID_ARGUMENTS, NOT_ALLOWED, TOO_LARGE, INVALID_ARGUMENTS, CALL_LIMIT, NOT_ALLOWED, NEEDS_APPROVAL]
    assert {check.stops_when for check in DECISION_ORDER} == {"yes", "no"}
    assert all(check.question.endswith("?") and check.ask.__qualname__.startswith("ToolGate.")
               for check in DECISION_ORDER)
    assert set(RESULT_CODES) >= {check.code for check in DECISION_ORDER}

