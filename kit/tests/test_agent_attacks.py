"""Tests for evidencedesk.agent.attacks: every row of the agent's attack table is held, the table is checked,
and two properties (Hypothesis) hold for the agent: no model reply sends an email or gets past its checks,
and no secret reaches its trace."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from test_invariants import PROPERTY, arguments, disguise, disguises, key_bodies, separators, tool_names

from evidencedesk.agent.attacks import (
    CODES,
    AgentOutcome,
    Attack,
    check_attack,
    load_attacks,
    run_attack,
    run_replies,
)
from evidencedesk.agent.loop import Agent
from evidencedesk.agent.state import Trace
from evidencedesk.attacks import KINDS, AttackError
from evidencedesk.attacks import load_attacks as load_kit_attacks
from evidencedesk.security import visible

ATTACKS = load_attacks()
AGENT_CLASS = Agent  # the agent the properties run; swap in a changed one to see that they catch it


# --- strategies: what a confused or fooled model can send back (tool names and arguments: test_invariants) ---
def call_reply(tool: str, arguments: dict) -> str:
    """A model reply that proposes a call, as JSON text."""
    return json.dumps({"action": "call", "tool": tool, "arguments": arguments})


def finish_reply(answer: str, sources: list[str]) -> str:
    """A model reply that proposes to finish, as JSON text."""
    return json.dumps({"action": "finish", "answer": answer, "sources": sources})


sources = st.lists(st.sampled_from(["o1", "o2", "o7"]), max_size=2)  # o7 never exists
replies = st.lists(st.builds(call_reply, tool_names, arguments) | st.builds(finish_reply, st.text(max_size=10), sources)
                   | st.text(max_size=20), min_size=1, max_size=5)


@pytest.mark.parametrize("row", ATTACKS, ids=[row.id for row in ATTACKS])
def test_attack_is_held(row: Attack) -> None:
    assert check_attack(row) == []


class TrustingAgent(Agent):
    """The "we trust the model" bug: every proposal goes straight to the gate."""

    def _check(self, proposal, state, seen):  # type: ignore[no-untyped-def]
        return "ok"


def test_the_table_catches_the_we_trust_the_model_bug() -> None:
    failing = {row.id: check_attack(row, TrustingAgent) for row in ATTACKS if check_attack(row, TrustingAgent)}
    assert sorted(failing) == ["a01", "a13", "a28"]
    assert failing["a01"] == [
        "a01 gate refused send_email_draft as not_allowed (1x): the agent's checks let it through"]
    assert run_attack(ATTACKS[0], TrustingAgent).emails == 0  # the gate still holds: the bug shows only in the log


def test_the_table_covers_both_targets_and_shares_no_id_with_the_kit_table() -> None:
    assert {row.target for row in ATTACKS} == set(CODES)
    assert {row.kind for row in ATTACKS} <= set(KINDS)
    assert not {row.id for row in ATTACKS} & {row.id for row in load_kit_attacks()}


def test_the_faults_found_in_the_agent_are_rows() -> None:
    fixed = {row.id: row.expect for row in ATTACKS if "before the fix" in row.why}
    assert fixed == {"a05": "instruction_like"}


def test_a_memory_row_reports_what_it_stored() -> None:
    row = Attack(id="a98", kind="secret", target="memory", expect="secret", secret="hunter2", why="a password",
                 input={"key": "login", "text": "it is hunter2", "source": "user:turn-1"})
    assert run_attack(row) == AgentOutcome("ok", logs=("it is hunter2",))
    assert check_attack(row) == ["a98 code: expected 'secret', got 'ok'", "a98 secret: found in a log"]


def write(tmp_path: Path, *rows: object) -> Path:
    path = tmp_path / "attacks.jsonl"
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


GOOD = {"id": "a01", "kind": "malformed", "target": "agent", "input": {"model": "garbage", "goal": "Hi."},
        "expect": "stuck", "why": "not JSON"}


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("{not json", "line 1: not JSON"),
        ({**GOOD, "input": {"model": "genius", "goal": "x"}}, "unknown model"),
        ({**GOOD, "input": {"model": "obey", "goal": ""}}, "line 1: field goal"),
        ({**GOOD, "expect": "refused"}, "expect 'refused' is not a code of target agent"),
        ({**GOOD, "target": "memory", "input": {"key": "k", "text": "x"}, "expect": "ok"}, "line 1: field source"),
        ({**GOOD, "target": "gate", "input": {"tool": "get_ticket", "arguments": {}}, "expect": "ok"},
         "line 1: field target"),
        ({**GOOD, "kind": "spooky"}, "line 1: field kind"),
    ],
)
def test_a_bad_row_is_named_by_line_and_field(tmp_path: Path, row: object, message: str) -> None:
    with pytest.raises(AttackError, match=message):
        load_attacks(write(tmp_path, row))


def test_a_repeated_id_is_refused(tmp_path: Path) -> None:
    with pytest.raises(AttackError, match="line 2: field id: repeated id 'a01'"):
        load_attacks(write(tmp_path, GOOD, GOOD))


# --- no model reply sends an email; the agent's checks come before the gate -----------------------------
@PROPERTY
@given(texts=replies, task=st.sampled_from(["triage", "reply"]), grant=st.booleans())
def test_no_model_reply_sends_an_email_or_gets_past_the_checks(texts: list[str], task: str, grant: bool) -> None:
    outcome = run_replies(texts, task, grant, AGENT_CLASS)
    assert outcome.emails == 0  # nothing is sent without approval
    assert outcome.gate_refusals == ()  # whatever the gate would refuse, the agent's own checks refused first


# --- no secret reaches the agent's trace ----------------------------------------------------------------
@PROPERTY
@given(body=key_bodies, how=disguises, at=st.integers(0, 40), before=st.text(max_size=40), after=st.text(max_size=20),
       sep=separators)
def test_no_secret_reaches_the_trace(body: str, how: str, at: int, before: str, after: str, sep: str) -> None:
    pieces = {body[i:i + 8].casefold() for i in range(len(body) - 7)}  # any 8 characters of the key's body
    assume(not any(piece in visible(before + after).casefold() for piece in pieces))
    trace = Trace()
    trace.add(1, "model", "ok", before + sep + disguise("sk-" + body, how, at) + " " + after)
    for line in trace.lines():
        assert not any(piece in visible(line).casefold() for piece in pieces), line
