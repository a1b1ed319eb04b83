"""Tests for evidencedesk.attacks: every row of the attack table is held, and the table itself is checked.

The agent's rows (memory and agent targets) are a table of their own: test_agent_attacks.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencedesk.attacks import (
    CODES,
    KINDS,
    Attack,
    AttackError,
    Outcome,
    check_attack,
    holds_secret,
    load_attacks,
    run_attack,
)

ATTACKS = load_attacks()


@pytest.mark.parametrize("row", ATTACKS, ids=[row.id for row in ATTACKS])
def test_attack_is_held(row: Attack) -> None:
    assert check_attack(row) == []


def test_the_table_covers_every_kind_and_target() -> None:
    assert {row.kind for row in ATTACKS} == set(KINDS)
    assert {row.target for row in ATTACKS} == set(CODES)


def test_the_faults_found_in_the_kit_are_rows() -> None:
    fixed = {row.id: row.expect for row in ATTACKS if "before the fix" in row.why}
    assert fixed == {"a29": "refused", "a33": "redacted"}


def test_a_redact_row_reports_a_leak() -> None:
    row = Attack(id="a99", kind="secret", target="redact", input={"text": "key: sk-short"}, expect="redacted",
                 secret="sk-short", why="too short to look like a key, and no label the pattern knows")
    assert run_attack(row) == Outcome("leaked", logs=("key: sk-short",))
    assert check_attack(row) == ["a99 code: expected 'redacted', got 'leaked'", "a99 secret: found in a log"]


@pytest.mark.parametrize(("target", "check"), [("signals", "injection_signals"), ("personal", "personal_data")])
def test_a_text_check_row_reports_a_miss(monkeypatch: pytest.MonkeyPatch, target: str, check: str) -> None:
    row = next(r for r in ATTACKS if r.target == target)
    monkeypatch.setattr(f"evidencedesk.attacks.{check}", lambda text: [])  # a check that finds nothing
    assert check_attack(row) == [f"{row.id} code: expected 'flagged', got 'missed'"]


def test_holds_secret_reads_the_visible_form_without_case() -> None:
    assert holds_secret("key ＳＫ－ＳＩＭ－ａｂｃ", "sk-sim-ABC") and holds_secret("sk-\u200bsim", "sk-sim")
    assert not holds_secret("anything", "") and not holds_secret("sk-sim", "sk-sim-abc")


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
        ({**GOOD, "target": "agent", "input": {"model": "obey", "goal": "x"}, "expect": "done"}, "field target"),
        ({**GOOD, "target": "memory", "input": {"key": "k", "text": "x", "source": "user:turn-1"}, "expect": "ok"},
         "field target"),
        ({**GOOD, "target": "signals", "input": {"text": "x"}, "expect": "refused"}, "not a code of target signals"),
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
