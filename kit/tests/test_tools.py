"""Tests for evidencedesk.tools: the tool contract, the registry, result codes, result text, fingerprints."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from oddvalues import Unprintable, UnprintableKey, deeply_nested
from pydantic import Field

import evidencedesk.gate
import evidencedesk.helpdesk
import evidencedesk.tools
from evidencedesk.helpdesk import GetTicketArgs, kit_tools
from evidencedesk.tools import (
    CLIPPED,
    INVALID_ARGUMENTS,
    MAX_RESULT_CHARS,
    NOT_FOUND,
    OK,
    RESULT_CODES,
    TOOL_ERROR,
    ArgsModel,
    Tool,
    ToolCall,
    ToolRegistry,
    ToolResult,
    UnknownTool,
    clip,
    fingerprint,
    result_text,
)

EMAIL = {"to": "kwame@example.org", "subject": "Re: T-501", "body": "Yes, you can return it.",
         "idempotency_key": "t-501-reply-1"}


@pytest.mark.parametrize(
    ("name", "arguments", "field"),
    [
        ("get_ticket", {}, "ticket_id: Field required"),
        ("get_ticket", {"ticket_id": 601}, "ticket_id: Input should be a valid string"),
        ("get_ticket", {"ticket_id": "501"}, "ticket_id: String should match pattern"),
        ("get_ticket", {"ticket_id": "T-501", "owner": "lena"}, "owner: Extra inputs are not permitted"),
        ("lookup_document", {"doc_id": "../etc/passwd"}, "doc_id: String should match pattern"),
        ("lookup_document", {"doc_id": "a" * 41}, "doc_id: String should have at most 40 characters"),
        ("send_email_draft", {**EMAIL, "to": "not an address"}, "to: String should match pattern"),
        ("send_email_draft", {**EMAIL, "subject": "Hi\nBcc: all@example.org"}, "subject: String should match"),
        ("send_email_draft", {**EMAIL, "body": "x" * 2001}, "body: String should have at most 2000 characters"),
        ("send_email_draft", {**EMAIL, "idempotency_key": "short"}, "idempotency_key: String should match"),
        ("get_ticket", ["T-501"], "arguments: expected an object, got list"),
        ("delete_everything", {}, "unknown tool 'delete_everything'"),
    ],
)
def test_validate_names_the_problem(name: str, arguments: object, field: str) -> None:
    registry, _ = kit_tools()
    problems = registry.validate(ToolCall("c1", name, arguments))  # type: ignore[arg-type]
    assert len(problems) == 1 and problems[0].startswith(field)


def test_validate_does_not_echo_the_bad_value() -> None:
    registry, _ = kit_tools()
    problems = registry.validate(ToolCall("c1", "get_ticket", {"ticket_id": "sk-sim-please-leak-me-123"}))
    assert problems and "leak" not in " ".join(problems)


def test_valid_call_has_no_problems_and_runs() -> None:
    registry, _ = kit_tools()
    call = ToolCall("c1", "get_ticket", {"ticket_id": "T-501"})
    assert registry.validate(call) == [] and registry.execute(call, "kwame").ok


def test_execute_refuses_invalid_arguments_and_sends_nothing() -> None:
    registry, outbox = kit_tools()
    result = registry.execute(ToolCall("c1", "send_email_draft", {**EMAIL, "to": 5}), "kwame")
    assert result.error["code"] == INVALID_ARGUMENTS and "to:" in result.error["message"]
    assert outbox.sent == []


def test_execute_answers_unknown_tools_and_non_calls_with_codes() -> None:
    registry, _ = kit_tools()
    assert registry.execute(ToolCall("c1", "rm_rf", {}), "kwame").code == NOT_FOUND
    assert registry.execute("get_ticket", "kwame").code == INVALID_ARGUMENTS  # type: ignore[arg-type]


def _broken(arguments: dict, caller: str) -> ToolResult:
    raise RuntimeError("database is down")


@pytest.mark.parametrize("function", [_broken, lambda arguments, caller: {"not": "a result"}])
def test_a_failing_tool_becomes_tool_error(function) -> None:
    registry = ToolRegistry()
    registry.register(Tool("get_ticket", GetTicketArgs, function))
    result = registry.execute(ToolCall("c1", "get_ticket", {"ticket_id": "T-501"}), "kwame")
    assert result.code == TOOL_ERROR and "database" not in result.error["message"]


def test_registry_refuses_duplicates_and_non_tools_and_names_unknown_tools() -> None:
    registry, _ = kit_tools()
    with pytest.raises(ValueError, match="get_ticket"):
        registry.register(registry.get("get_ticket"))
    with pytest.raises(TypeError, match="Tool"):
        registry.register("get_ticket")  # type: ignore[arg-type]
    with pytest.raises(UnknownTool, match="fly"):
        registry.get("fly")


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        (ToolCall("x", "get_ticket", {"ticket_id": "T-1"}), ToolCall("y", "get_ticket", {"ticket_id": "T-1"}), True),
        (ToolCall("x", "t", {"a": 1, "b": 2}), ToolCall("x", "t", {"b": 2, "a": 1}), True),
        (ToolCall("x", "get_ticket", {"ticket_id": "T-1"}), ToolCall("x", "get_ticket", {"ticket_id": "T-2"}), False),
        (ToolCall("x", "get_ticket", {"doc_id": "a"}), ToolCall("x", "lookup_document", {"doc_id": "a"}), False),
    ],
)
def test_fingerprint_ignores_id_and_key_order(a: ToolCall, b: ToolCall, same: bool) -> None:
    assert (fingerprint(a) == fingerprint(b)) is same


def test_fingerprint_survives_odd_arguments() -> None:
    circular: dict = {}
    circular["self"] = circular
    assert fingerprint(ToolCall("x", "t", circular)).startswith("t ")
    assert fingerprint(ToolCall("x", "t", {1: "a", "b": 2})).startswith("t ")


# Regression tests for the attack findings: odd call objects, values that cannot be printed.


@pytest.mark.parametrize("call", [
    ToolCall("c1", ["get_ticket"], {}),  # type: ignore[arg-type]  # unhashable name
    ToolCall("c1", Unprintable(), {}),  # type: ignore[arg-type]
    ToolCall("c1", "get_ticket", {"ticket_id": deeply_nested()}),
    ToolCall("c1", "get_ticket", {"ticket_id": 10**5000}),
    ToolCall("c1", "get_ticket", {"ticket_id": Unprintable()}),
    ToolCall("c1", "get_ticket", {UnprintableKey(): "T-501"}),
])
def test_execute_answers_odd_calls_with_a_code_never_an_exception(call: ToolCall) -> None:
    registry, outbox = kit_tools()
    result = registry.execute(call, "kwame")
    assert not result.ok and result.code in {NOT_FOUND, INVALID_ARGUMENTS} and outbox.sent == []
    assert result.error["message"]


def test_execute_names_a_caller_that_is_not_text() -> None:
    registry, _ = kit_tools()
    result = registry.execute(ToolCall("c1", "get_ticket", {"ticket_id": "T-501"}), ["kwame"])  # type: ignore[arg-type]
    assert (result.code, result.error["message"]) == (INVALID_ARGUMENTS, "caller: expected a str, got list")


def test_execute_has_a_last_resort_for_input_that_raises_while_checked() -> None:
    class Name(str):
        __hash__ = Unprintable.__hash__  # a str whose hash raises: only the last resort catches it

    result = kit_tools()[0].execute(ToolCall("c1", Name("get_ticket"), {}), "kwame")
    assert (result.code, result.error["message"]) == (INVALID_ARGUMENTS, "call: could not be checked (RuntimeError)")


@pytest.mark.parametrize("arguments", [{"a": deeply_nested()}, {"a": 10**5000}, {"a": Unprintable()}])
def test_fingerprint_never_raises(arguments: dict) -> None:
    assert fingerprint(ToolCall("x", "t", arguments)) == "t <dict>"
    assert fingerprint(ToolCall("x", Unprintable(), {})) == "<Unprintable> {}"  # type: ignore[arg-type]


def test_clip_never_raises() -> None:
    assert (clip("abcdef", 3), clip("abcdef", None), clip(Unprintable()), clip(10**5000)) == (
        "abc", "abcdef", "<Unprintable>", "<int>")


# The contract: a schema, a function, and nothing runs until the arguments pass.


class QuoteArgs(ArgsModel):
    price_cents: int = Field(ge=0, le=100_000)
    days_since_purchase: int = Field(ge=0, le=3650)


def spy_registry() -> tuple[ToolRegistry, list[dict]]:
    """A registry with one tool whose function records every call it gets."""
    ran: list[dict] = []

    def quote(arguments: dict, caller: str) -> ToolResult:
        ran.append(arguments)
        return ToolResult.success({"refund_cents": arguments["price_cents"]})

    registry = ToolRegistry()
    registry.register(Tool("refund_quote", QuoteArgs, quote))
    return registry, ran


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({"price_cents": 2500}, "days_since_purchase: Field required"),
        ({"price_cents": "2500", "days_since_purchase": 3}, "price_cents: Input should be a valid integer"),
        ({"price_cents": 2500.0, "days_since_purchase": 3}, "price_cents: Input should be a valid integer"),
        ({"price_cents": True, "days_since_purchase": 3}, "price_cents: Input should be a valid integer"),
        ({"price_cents": 2500, "days_since_purchase": 3, "approve": True}, "approve: Extra inputs are not permitted"),
        ({"price_cents": 10**12, "days_since_purchase": 3},
         "price_cents: Input should be less than or equal to 100000"),
        ({"price_cents": -1, "days_since_purchase": 3}, "price_cents: Input should be greater than or equal to 0"),
    ],
)
def test_bad_arguments_get_a_code_and_the_function_never_runs(arguments: dict, problem: str) -> None:
    registry, ran = spy_registry()
    result = registry.execute(ToolCall("c1", "refund_quote", arguments), "kwame")
    assert (result.code, result.error["message"]) == (INVALID_ARGUMENTS, problem)
    assert ran == []


def test_the_function_gets_the_checked_arguments_once() -> None:
    registry, ran = spy_registry()
    result = registry.execute(ToolCall("c1", "refund_quote", {"price_cents": 2500, "days_since_purchase": 3}), "k")
    assert result.data == {"refund_cents": 2500} and ran == [{"price_cents": 2500, "days_since_purchase": 3}]


def test_args_model_is_strict_closed_and_frozen() -> None:
    args = QuoteArgs(price_cents=1, days_since_purchase=2)
    with pytest.raises(ValueError, match="frozen"):
        args.price_cents = 5  # type: ignore[misc]
    assert QuoteArgs.model_config == {"extra": "forbid", "strict": True, "frozen": True}


# Result codes: one list, defined once.


def test_result_codes_are_the_nine_constants_each_once() -> None:
    constants = {name: getattr(evidencedesk.tools, name) for name in (
        "OK", "NOT_ALLOWED", "INVALID_ARGUMENTS", "CALL_LIMIT", "NEEDS_APPROVAL", "NOT_FOUND", "DUPLICATE",
        "TOOL_ERROR", "TOO_LARGE")}
    assert list(constants.values()) == list(RESULT_CODES) and len(set(RESULT_CODES)) == 9
    assert all(getattr(evidencedesk.gate, name) == code for name, code in constants.items())  # re-exported as is


@pytest.mark.parametrize("code", ["oops", OK, "", None, "NOT_FOUND"])
def test_failure_refuses_a_code_that_is_not_a_failure_code(code: object) -> None:
    with pytest.raises(ValueError, match="unknown failure code"):
        ToolResult.failure(code, "message")  # type: ignore[arg-type]


def test_a_tool_that_invents_a_code_becomes_tool_error() -> None:
    registry = ToolRegistry()
    registry.register(Tool("get_ticket", GetTicketArgs, lambda arguments, caller: ToolResult.failure("oops", "x")))
    result = registry.execute(ToolCall("c1", "get_ticket", {"ticket_id": "T-501"}), "kwame")
    assert (result.code, result.error["message"]) == (TOOL_ERROR, "tool get_ticket failed: ValueError")


# What goes back to a model: result_text.


def test_result_text_of_a_success_is_json_with_sorted_keys() -> None:
    assert result_text(ToolResult.success({"b": 1, "a": "é"})) == '{"a": "é", "b": 1}'


def test_result_text_of_a_failure_names_code_and_message() -> None:
    assert result_text(ToolResult.failure(NOT_FOUND, "no ticket T-999")) == "error not_found: no ticket T-999"


@pytest.mark.parametrize("size", [MAX_RESULT_CHARS - 20, MAX_RESULT_CHARS - 11, MAX_RESULT_CHARS + 1, 5000])
def test_result_text_is_never_longer_than_the_limit_and_says_when_it_cut(size: int) -> None:
    text = result_text(ToolResult.success({"t": "x" * size}))  # the JSON adds 11 characters around the text
    assert len(text) <= MAX_RESULT_CHARS
    assert text.endswith(CLIPPED) is (size + 11 > MAX_RESULT_CHARS)


def test_result_text_clips_to_a_given_limit() -> None:
    text = result_text(ToolResult.failure(NOT_FOUND, "x" * 100), limit=30)
    assert text == "error not_found: xxx" + CLIPPED and len(text) == 30


@pytest.mark.parametrize("limit", [len(CLIPPED), 0, -5, True, "400", None, 40.0])
def test_result_text_refuses_a_limit_it_cannot_keep(limit: object) -> None:
    with pytest.raises(ValueError, match="limit must be an int above 10"):
        result_text(ToolResult.success({}), limit)  # type: ignore[arg-type]


def test_result_text_never_raises_on_data_that_is_not_json() -> None:
    circular: dict = {}
    circular["self"] = circular
    assert result_text(ToolResult.success(circular)) == "<dict that is not JSON>"
    assert result_text(ToolResult.success({"when": object()})) == "<dict that is not JSON>"
    assert result_text(ToolResult(False, error={"code": NOT_FOUND, "message": Unprintable()})) == (
        "error not_found: <Unprintable>")


# The contract knows nothing of the help desk: helpdesk.py builds on tools.py, never the reverse.


def test_tools_imports_nothing_from_the_help_desk() -> None:
    """Read from the source: no import of helpdesk in any form, and no module name for importlib to load it by."""
    tree = ast.parse(Path(evidencedesk.tools.__file__).read_text(encoding="utf-8"))
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):  # a relative import (from . import helpdesk) counts too
            base = ("evidencedesk" if node.level else "") + ("." + node.module if node.module and node.level else
                                                              node.module or "")
            imported |= {base, *(f"{base}.{alias.name}" for alias in node.names)}
    named = {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)}
    assert not any(n.startswith("evidencedesk.helpdesk") for n in imported | named), imported
    assert {n for n in imported if n.startswith("evidencedesk.")} == {"evidencedesk.llm", "evidencedesk.llm.ToolCall"}


def test_importing_the_contract_does_not_load_the_help_desk() -> None:
    probe = "import sys, evidencedesk.tools; print('evidencedesk.helpdesk' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120)
    assert done.stdout.strip() == "False"


@pytest.mark.parametrize("name", ["TicketStore", "kit_tools", "Outbox", "default_registry"])
def test_the_help_desk_names_are_not_offered_by_the_contract(name: str) -> None:
    assert not hasattr(evidencedesk.tools, name)
    assert hasattr(evidencedesk.helpdesk, name)


def test_a_call_is_the_one_shape_of_llm_and_text_arguments_are_invalid_arguments() -> None:
    from evidencedesk import llm

    assert evidencedesk.tools.ToolCall is llm.ToolCall
    registry, ran = spy_registry()
    result = registry.execute(ToolCall("call_1", "refund_quote", '{"price_cents": 2500, "days_'), "kwame")
    assert result.code == INVALID_ARGUMENTS and result.error["message"] == "arguments: expected an object, got str"
    assert ran == []
