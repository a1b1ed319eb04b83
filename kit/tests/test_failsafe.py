"""Tests for evidencedesk.failsafe: checks that fail closed, limits that refuse NaN, errors that leak nothing."""

from __future__ import annotations

import pytest
from oddvalues import Unprintable

from evidencedesk import DATA_DIR
from evidencedesk.failsafe import INTERNAL, USER_MESSAGES, Decision, ErrorLog, PublicError, fail_closed, within
from evidencedesk.gate import ToolGate, default_policy
from evidencedesk.helpdesk import TicketStore, kit_tools
from evidencedesk.security import SIMULATED_SECRET, Session, can_read
from evidencedesk.tools import OK, ToolCall

TICKETS = TicketStore.from_file(DATA_DIR / "tickets.json").tickets


def broken_policy() -> bool:
    return {}["policy"]  # the policy file was not loaded


@pytest.mark.parametrize(
    ("check", "allowed", "reason"),
    [
        (lambda: True, True, "check said yes"),
        (lambda: False, False, "check returned bool, not True"),
        (lambda: None, False, "check returned NoneType, not True"),
        (lambda: "yes", False, "check returned str, not True"),
        (lambda: 1, False, "check returned int, not True"),
        (lambda: ["kwame"], False, "check returned list, not True"),
        (broken_policy, False, "check raised KeyError"),
        (lambda: 1 / 0, False, "check raised ZeroDivisionError"),
    ],
)
def test_only_a_plain_true_allows(check, allowed: bool, reason: str) -> None:
    assert fail_closed(check) == Decision(allowed, reason)


def test_fail_closed_names_the_check_and_never_echoes_the_exception_text() -> None:
    def leaky() -> bool:
        raise RuntimeError(f"db at 10.0.0.7 refused password={SIMULATED_SECRET}")

    decision = fail_closed(leaky, "ownership check")
    assert decision == Decision(False, "ownership check raised RuntimeError")


def test_fail_closed_on_a_real_ownership_check() -> None:
    session = Session("kwame", ("triage",))
    assert fail_closed(lambda: can_read(session, TICKETS["T-501"].owner)).allowed
    assert not fail_closed(lambda: can_read(session, TICKETS["T-503"].owner)).allowed
    assert not fail_closed(lambda: can_read(session, TICKETS["T-699"].owner)).allowed  # a missing ticket raises


@pytest.mark.parametrize(
    ("used", "limit", "expected"),
    [
        (4.0, 5.0, True), (5, 5, True), (5.01, 5.0, False), (0, 0, True),
        (float("nan"), 5.0, False), (4.0, float("nan"), False), (float("inf"), 5.0, False), (1.0, float("inf"), False),
        (float("-inf"), 5.0, False), (None, 5.0, False), ("4", 5.0, False), (True, 5.0, False), (4.0, None, False),
    ],
)
def test_within_refuses_anything_that_is_not_a_finite_number(used: object, limit: object, expected: bool) -> None:
    assert within(used, limit) is expected


def test_nan_defeats_a_stop_when_over_check_but_not_within() -> None:
    elapsed, limit = float("nan"), 5.0
    assert not elapsed > limit  # "stop when over" never stops
    assert not within(elapsed, limit)  # "go on while within" stops


def test_public_errors_are_fixed_sentences_and_the_log_keeps_the_redacted_detail() -> None:
    log = ErrorLog()
    detail = f"no ticket T-503 for kwame@example.org, key {SIMULATED_SECRET}"
    shown = log.report("not_found", detail, "kwame", "get_ticket")
    assert shown == PublicError("not_found", "We could not find that.", "ref-0001")
    assert str(shown) == "We could not find that. (ref-0001)"
    assert log.entries == [{"reference": "ref-0001", "code": "not_found", "user": "kwame",
                            "detail": "no ticket T-503 for [redacted], key [redacted]", "where": "get_ticket"}]


@pytest.mark.parametrize("code", [INTERNAL, "no_such_code", None, 42, Unprintable()])
def test_unknown_codes_show_the_internal_sentence(code: object) -> None:
    log = ErrorLog()
    assert log.report(code, "detail").message == USER_MESSAGES[INTERNAL] == "Something went wrong on our side."
    assert log.report(code, "detail").code == INTERNAL and len(log.entries) == 2


def test_every_result_code_has_its_own_sentence() -> None:
    from evidencedesk.attacks import GATE_CODES

    assert set(GATE_CODES) - {OK} <= set(USER_MESSAGES)
    assert all(message.endswith(".") and len(message) < 60 for message in USER_MESSAGES.values())


def test_report_result_uses_the_code_and_message_of_a_refusal() -> None:
    registry, _ = kit_tools()
    result = ToolGate(registry, default_policy()).run(ToolCall("c1", "get_ticket", {"ticket_id": "T-503"}),
                                                      "triage", "run-1", "kwame")
    log = ErrorLog()
    shown = log.report_result(result, "kwame", "get_ticket")
    assert (shown.code, shown.message) == ("not_found", "We could not find that.")
    assert log.entries[0]["detail"] == "no ticket T-503" and log.entries[0]["where"] == "get_ticket"
    assert "T-503" not in str(shown)


def test_report_exception_logs_type_message_and_function_but_shows_nothing() -> None:
    def load_policy() -> None:
        raise OSError(f"cannot read /srv/policies/reply.json with token={SIMULATED_SECRET}")

    log = ErrorLog()
    try:
        load_policy()
    except OSError as exc:
        shown = log.report_exception(exc, "kwame")
    assert shown == PublicError(INTERNAL, "Something went wrong on our side.", "ref-0001")
    entry = log.entries[0]
    assert entry["detail"] == "OSError: cannot read /srv/policies/reply.json with token=[redacted]"
    assert entry["where"] == "load_policy"
    assert log.report_exception(ValueError("never raised")).reference == "ref-0002"
    assert log.entries[1]["where"] == ""


def test_a_long_detail_is_redacted_before_it_is_clipped() -> None:
    log = ErrorLog()
    log.report("tool_error", "x" * 390 + " " + SIMULATED_SECRET)
    detail = log.entries[0]["detail"]
    assert len(detail) == 400 and "sk-sim" not in detail and detail.endswith(" [redacted")


def test_the_log_survives_values_that_cannot_be_printed() -> None:
    log = ErrorLog()
    shown = log.report("not_found", Unprintable(), Unprintable())
    assert shown.message == "We could not find that."
    assert log.entries[0]["detail"] == "<Unprintable>" and log.entries[0]["user"] == "<Unprintable>"
