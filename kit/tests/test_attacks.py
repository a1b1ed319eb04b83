"""Tests for evidencedesk.attacks: every row of the attack table is held, and the table itself is checked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencedesk.agent.loop import Agent
from evidencedesk.attacks import (
    CODES,
    KINDS,
    Attack,
    AttackError,
    Outcome,
    check_attack,
    load_attacks,
    run_attack,
)

ATTACKS = load_attacks()


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


def test_the_table_covers_every_kind_and_target() -> None:
    assert {row.kind for row in ATTACKS} == set(KINDS)
    assert {row.target for row in ATTACKS} == set(CODES)


def test_the_faults_found_in_the_kit_are_rows() -> None:
    fixed = {row.id: row.expect for row in ATTACKS if "before the fix" in row.why}
    assert fixed == {"a05": "instruction_like", "a29": "refused", "a33": "redacted"}


def test_a_redact_row_reports_a_leak() -> None:
    row = Attack(id="a99", kind="secret", target="redact", input={"text": "key: sk-short"}, expect="redacted",
                 secret="sk-short", why="too short to look like a key, and no label the pattern knows")
    assert run_attack(row) == Outcome("leaked", logs=("key: sk-short",))
    assert check_attack(row) == ["a99 code: expected 'redacted', got 'leaked'", "a99 secret: found in a log"]


def test_a_context_row_reports_an_escape(monkeypatch: pytest.MonkeyPatch) -> None:
    row = next(r for r in ATTACKS if r.id == "a15")  # fullwidth brackets
    monkeypatch.setattr("evidencedesk.attacks.render_untrusted", lambda part: f"<t>\n{part.text}\n</t>")  # no escaping
    assert check_attack(row) == ["a15 code: expected 'contained', got 'escaped'"]


def write(tmp_path: Path, *rows: object) -> Path:
    path = tmp_path / "attacks.jsonl"
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


GOOD = {"id": "a01", "kind": "malformed", "target": "clock", "input": {"seconds": "nan"}, "expect": "refused",
        "why": "NaN"}


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("{not json", "line 1: not JSON"),
        ({**GOOD, "id": "x1"}, "line 1: field id"),
        ({**GOOD, "kind": "spooky"}, "line 1: field kind"),
        ({**GOOD, "target": "printer"}, "line 1: field target"),
        ({**GOOD, "input": {"seconds": 5}}, "line 1: field seconds"),
        ({**GOOD, "input": {"seconds": "nan", "extra": 1}}, "line 1: field extra"),
        ({**GOOD, "expect": "done"}, "expect 'done' is not a code of target clock"),
        ({**GOOD, "target": "redact", "input": {"text": "x"}, "expect": "redacted"}, "names the secret"),
        ({**GOOD, "target": "agent", "input": {"model": "genius", "goal": "x"}, "expect": "done"}, "unknown model"),
        ({**GOOD, "why": ""}, "line 1: field why"),
        ({**GOOD, "surprise": True}, "line 1: field surprise"),
    ],
)
def test_a_bad_row_is_named_by_line_and_field(tmp_path: Path, row: object, message: str) -> None:
    with pytest.raises(AttackError, match=message):
        load_attacks(write(tmp_path, row))


def test_a_repeated_id_is_refused(tmp_path: Path) -> None:
    with pytest.raises(AttackError, match="line 3: field id: repeated id 'a01'"):
        load_attacks(write(tmp_path, GOOD, "", GOOD))


def test_an_unreadable_table_is_named(tmp_path: Path) -> None:
    with pytest.raises(AttackError, match="attacks.jsonl: cannot read"):
        load_attacks(tmp_path / "attacks.jsonl")
    (tmp_path / "attacks.jsonl").write_bytes(b"\xff\xfe")
    with pytest.raises(AttackError, match="cannot read the attack table"):
        load_attacks(tmp_path / "attacks.jsonl")
