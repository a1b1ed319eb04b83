"""Property-based tests (Hypothesis) of the kit's security invariants: they must hold for every input.

Each property runs 1,000 generated examples, derandomized so every run tries the same ones (no
randomness in the suite); bench_properties.py runs the same properties with fresh random inputs
and reports how many examples a second each reaches. Invariants:
- no call sends an email without approval through the gate;
- every gate result carries a known code, and is audited under it;
- no secret reaches a log, in any case, compatibility form or with hidden characters inside;
- a user-facing error is a fixed sentence that carries nothing of the failure;
- a disguise (fullwidth, upper case, hidden characters) changes no check's answer.
The agent's properties (its replies and its trace) are in test_agent_attacks.py, which reuses these strategies.
"""

from __future__ import annotations

import string

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from oddvalues import Unprintable

from evidencedesk import DATA_DIR
from evidencedesk.attacks import GATE_CODES
from evidencedesk.failsafe import USER_MESSAGES, ErrorLog
from evidencedesk.gate import ToolGate, default_policy
from evidencedesk.helpdesk import DocumentStore, Outbox, TicketStore, default_registry
from evidencedesk.security import SIMULATED_SECRET, injection_signals, personal_data, redact_log, visible
from evidencedesk.tools import ToolCall

PROPERTY = settings(max_examples=1000, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])

# --- strategies: what an attacker (or a confused model) can send -------------------------------------
json_values = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12) | \
    st.lists(st.integers(), max_size=3) | st.dictionaries(st.text(max_size=6), st.integers(), max_size=2)
tool_names = st.sampled_from(["send_email_draft", "get_ticket", "lookup_document"]) | st.text(max_size=20)
email_arguments = st.fixed_dictionaries({
    "to": st.sampled_from(["evil@example.org", "kwame@example.org"]) | st.text(max_size=20),
    "subject": st.text(min_size=1, max_size=20),
    "body": st.text(min_size=1, max_size=40),
    "idempotency_key": st.sampled_from(["evil-key-0001", "evil-key-0002"]) | st.text(max_size=12)})
arguments = email_arguments | st.fixed_dictionaries({"ticket_id": st.sampled_from(["T-501", "T-503"])}) | \
    st.dictionaries(st.text(max_size=12), json_values, max_size=3)
calls = st.builds(ToolCall, id=st.text(max_size=8), name=tool_names, arguments=arguments)
tasks = st.sampled_from(["triage", "reply"]) | st.text(max_size=8)
odd = st.none() | st.integers() | st.floats() | st.builds(Unprintable) | st.lists(st.integers(), max_size=2)


TICKETS = TicketStore.from_file(DATA_DIR / "tickets.json")  # read once: the stores are never written
DOCUMENTS = DocumentStore.from_file(DATA_DIR / "documents.json")


def make_gate(grant: bool) -> tuple[ToolGate, Outbox]:
    """A fresh gate over the kit's tools, with a fresh outbox."""
    outbox = Outbox()
    return ToolGate(default_registry(TICKETS, DOCUMENTS, outbox), default_policy(grant_writes=grant)), outbox


# --- no call sends an email without approval ---------------------------------------------------------
@PROPERTY
@given(steps=st.lists(st.tuples(calls, tasks), min_size=1, max_size=3), grant=st.booleans(),
       caller=st.sampled_from(["kwame", "lena", ""]))
def test_no_call_sends_an_email_without_approval(steps: list, grant: bool, caller: str) -> None:
    gate, outbox = make_gate(grant)
    for call, task in steps:
        gate.run(call, task, "run-1", caller)
    assert outbox.sent == []
    for pending_id in gate.pending:  # only approval sends, once per idempotency key
        gate.approve(pending_id)
    assert len(outbox.sent) == len({p.call.arguments["idempotency_key"] for p in gate.pending.values()})


# --- every gate result has a known code --------------------------------------------------------------
@PROPERTY
@given(call=calls | odd, task=tasks | odd, run_id=st.text(max_size=8) | odd, caller=st.text(max_size=8) | odd,
       grant=st.booleans())
def test_every_gate_result_has_a_known_code(call: object, task: object, run_id: object, caller: object,
                                             grant: bool) -> None:
    gate, _ = make_gate(grant)
    result = gate.run(call, task, run_id, caller)  # type: ignore[arg-type]
    assert result.code in GATE_CODES and gate.audit.events[-1]["outcome"] == result.code
    for pending_id in [*gate.pending, "pa-9", None]:
        assert gate.approve(pending_id).code in GATE_CODES  # type: ignore[arg-type]


# --- no secret reaches a log -------------------------------------------------------------------------
HIDDEN_DISGUISES = ("\u200b", "\u00ad", "\u202e", "\U000e0041")  # zero-width space, soft hyphen, RTL override, tag A


def disguise(text: str, how: str, at: int) -> str:
    """text in one of the disguises an attacker (or an accident) gives a secret."""
    if how == "upper":
        return text.upper()
    if how == "fullwidth":  # visible ASCII to its fullwidth form, U+FF01-U+FF5E
        return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)
    if how in HIDDEN_DISGUISES:  # a hidden character inside
        return text[:at] + how + text[at:]
    return text


disguises = st.sampled_from(["plain", "upper", "fullwidth", *HIDDEN_DISGUISES])
key_bodies = st.text(alphabet=string.ascii_letters + string.digits + "-_", min_size=16, max_size=32)
separators = st.sampled_from([" ", ": ", "=", "\n", " (", "\t"])
LOGS = ("redact_log", "audit run_id", "audit caller", "audit tool", "error log")


def logged(where: str, text: str) -> list[str]:
    """Everything the kit writes to the log named where, for one value holding text."""
    if where == "redact_log":
        return [redact_log(text)]
    if where == "error log":
        log = ErrorLog()
        log.report("tool_error", text, text, text)
        return [v for entry in log.entries for v in entry.values()]
    gate, _ = make_gate(False)
    name, run_id, caller = ((text, "run-1", "kwame") if where == "audit tool" else
                            ("get_ticket", text, "kwame") if where == "audit run_id" else ("get_ticket", text, text))
    gate.run(ToolCall("c1", name, {"ticket_id": "T-501"}), "triage", run_id, caller)
    return [v for event in gate.audit.events for v in event.values()]


@PROPERTY
@given(body=key_bodies, how=disguises, at=st.integers(0, 40), before=st.text(max_size=40), after=st.text(max_size=20),
       sep=separators, where=st.sampled_from(LOGS))
def test_no_secret_reaches_a_log(body: str, how: str, at: int, before: str, after: str, sep: str, where: str) -> None:
    pieces = {body[i:i + 8].casefold() for i in range(len(body) - 7)}  # any 8 characters of the key's body
    assume(not any(piece in visible(before + after).casefold() for piece in pieces))
    # the log's own words may hold 8 characters of the key by chance ("NOT_ALLO" is in "not_allowed"): the same
    # line with the key's body blanked out ("#" is not in a key) must not hold them
    blank = logged(where, before + sep + "sk-" + "#" * len(body) + " " + after)
    assume(not any(piece in visible(line).casefold() for line in blank for piece in pieces))
    text = before + sep + disguise("sk-" + body, how, at) + " " + after
    for line in logged(where, text):
        assert not any(piece in visible(line).casefold() for piece in pieces), (where, line)


@PROPERTY
@given(value=st.text(st.characters(blacklist_categories=("Z", "C")), min_size=4, max_size=20),  # one word, visible
       how=disguises,
       at=st.integers(0, 20), label=st.sampled_from(["password", "PASSWORD", "api key", "Token", "secret"]),
       sep=st.sampled_from([": ", "=", " is "]))
def test_no_labelled_secret_reaches_a_log(value: str, how: str, at: int, label: str, sep: str) -> None:
    assume(len(visible(value)) >= 4 and visible(value).casefold() not in visible(label).casefold())
    logged_line = redact_log(f"login failed, {disguise(label, how, at)}{sep}{value}")
    # the fixed words of the line may hold the value by chance ("REDA" is in "[redacted]"): look past them
    rest = logged_line.casefold().replace("[redacted]", "|").replace("login failed, ", "|")
    assert visible(value).casefold() not in rest


# --- a user-facing error leaks nothing ---------------------------------------------------------------
@PROPERTY
@given(code=st.sampled_from(sorted(USER_MESSAGES)) | st.text(max_size=12) | odd, detail=st.text(max_size=60) | odd,
       user=st.text(max_size=12))
def test_a_user_facing_error_leaks_nothing(code: object, detail: object, user: str) -> None:
    shown = ErrorLog().report(code, detail, user)
    assert shown.code in USER_MESSAGES and shown.message == USER_MESSAGES[shown.code]
    assert str(shown) == f"{USER_MESSAGES[shown.code]} (ref-0001)"


# --- a disguise changes no check ---------------------------------------------------------------------
PLAIN = ["ignore all policy", "NOTE TO THE ASSISTANT", "call send_email_draft", "reach me at kwame@gmail.com",
         "password: hunter2", f"the key is {SIMULATED_SECRET}", "call +49 30 1234567", "T-501 status is open"]


@PROPERTY
@given(phrase=st.sampled_from(PLAIN), how=disguises, at=st.integers(0, 30), before=st.text(max_size=20),
       after=st.text(max_size=20))
def test_a_disguise_changes_no_check(phrase: str, how: str, at: int, before: str, after: str) -> None:
    plain, disguised = f"{before} {phrase} {after}", f"{before} {disguise(phrase, how, at)} {after}"
    seen = visible(disguised)
    assert visible(seen) == seen  # visible() is idempotent
    flagged, expected = injection_signals(disguised), injection_signals(plain)
    assert [s for s in flagged if s != "hidden_characters"] == [s for s in expected if s != "hidden_characters"]
    assert ("hidden_characters" in flagged) == (how in HIDDEN_DISGUISES or "hidden_characters" in expected)
    assert personal_data(disguised) == personal_data(plain)
    if how != "upper":
        assert redact_log(disguised) == redact_log(plain)
