"""Tests of evidencedesk.trajectories.gate: the rule, its three outcomes on the kit's sets, the report, the script."""

from __future__ import annotations

import datetime
import subprocess
import sys

import pytest

import evidencedesk.trajectories.gate as gate_module

from evidencedesk.evals.runner import EvalRun
from evidencedesk.trajectories.candidates import CONFIGS
from evidencedesk.trajectories.cases import agent_set, golden_set
from evidencedesk.trajectories.flaky import Quarantine, load_quarantine
from evidencedesk.trajectories.gate import EXIT_CODES, FAIL, PASS, UNDECIDED, apply_rule, decide, fewest_to_fail, main
from evidencedesk.trajectories.runner import repeat, run_set

GOLDEN, AGENT = golden_set(), agent_set()
BASE = run_set(GOLDEN, CONFIGS["baseline"])
BEFORE, AFTER = datetime.date(2026, 12, 14), datetime.date(2027, 2, 1)


def test_the_thorough_candidate_may_ship() -> None:
    decision = decide(BASE, run_set(GOLDEN, CONFIGS["thorough"]))
    assert decision.exit_code == 0, decision.report()


def test_six_lost_and_none_gained_is_the_least_that_fails() -> None:
    assert fewest_to_fail() == 6 and fewest_to_fail(0.01) == 8
    for bad in (0, 1, True, "0.05"):
        with pytest.raises(ValueError, match="alpha must be a number between 0 and 1"):
            fewest_to_fail(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("lost, gained, unowned, counted, outcome", [
    (6, 0, [], 28, FAIL), (5, 0, [], 28, UNDECIDED), (8, 1, [], 28, FAIL), (7, 1, [], 28, UNDECIDED),
    (1, 3, [], 28, PASS), (0, 0, [], 28, PASS), (2, 2, ["t13"], 27, UNDECIDED), (6, 0, ["t13"], 27, FAIL),
    (0, 0, [], 0, UNDECIDED), (3, 3, [], 28, PASS),
])
def test_the_rule(lost: int, gained: int, unowned: list, counted: int, outcome: str) -> None:
    assert apply_rule(lost, gained, unowned, counted)[0] == outcome


def test_the_rules_reasons_name_what_decided() -> None:
    assert apply_rule(6, 0, [], 28) == (FAIL, "lost 6, gained 0; p = 0.03125 < 0.05: unlikely by chance")
    assert apply_rule(2, 0, [], 14)[1] == "lost 2, gained 0; p = 0.5 may be chance; failing takes 6 lost, none gained"
    assert apply_rule(0, 0, ["t13", "t15"], 26)[1] == "flaky, no live quarantine: t13 t15; fix or quarantine each"


def test_terse_fails_the_gate_on_the_golden_set() -> None:
    decision = decide(BASE, run_set(GOLDEN, CONFIGS["terse"]))
    assert (decision.outcome, decision.exit_code, decision.gained) == (FAIL, 1, ())
    assert decision.lost == tuple(f"t{n}" for n in range(13, 21)) and decision.p == 2 / 2**8


def test_thorough_passes_although_it_loses_one_case() -> None:
    decision = decide(BASE, run_set(GOLDEN, CONFIGS["thorough"]))
    assert (decision.outcome, decision.lost, decision.gained) == (PASS, ("t05",), ("t21", "t22", "t23"))
    assert [str(rate) for rate in decision.rates] == ["25/28 = 89.3% [72.8%, 96.3%]", "27/28 = 96.4% [82.3%, 99.4%]"]


def test_retry_reads_cannot_be_decided_on_the_fourteen_rows() -> None:
    decision = decide(run_set(AGENT, CONFIGS["baseline"]), run_set(AGENT, CONFIGS["retry-reads"]))
    assert (decision.outcome, decision.exit_code, decision.lost, decision.p) == (UNDECIDED, 3, ("s02", "s11"), 0.5)


def test_one_run_of_a_flaky_candidate_decides_differently_on_different_runs() -> None:
    outcomes = [decide(BASE, run_set(GOLDEN, CONFIGS["sampled"], i)) for i in range(4)]
    assert [(d.outcome, len(d.lost)) for d in outcomes] == [(UNDECIDED, 3), (UNDECIDED, 2), (PASS, 0), (UNDECIDED, 3)]


def test_re_running_finds_the_flaky_cases_and_a_live_quarantine_lets_the_gate_decide() -> None:
    base, sampled = repeat(GOLDEN, CONFIGS["baseline"], 4), repeat(GOLDEN, CONFIGS["sampled"], 4)
    plain = decide(base, sampled)
    assert (plain.outcome, len(plain.counted)) == (UNDECIDED, 23)
    assert list(plain.flaky) == ["t13", "t14", "t15", "t16", "t17"]
    assert plain.flaky["t13"][0] is None and plain.flaky["t13"][1].passed == 2
    held = decide(base, sampled, load_quarantine(), BEFORE)
    assert (held.outcome, len(held.quarantined), held.expired) == (PASS, 5, ())
    late = decide(base, sampled, load_quarantine(), AFTER)
    assert (late.outcome, late.quarantined, len(late.expired)) == (UNDECIDED, (), 5)
    assert "  flaky t13: sampled 2/4; quarantine expired 2027-01-15" in late.lines()


def test_a_flaky_case_is_never_counted_as_lost_or_gained() -> None:
    base, sampled = repeat(GOLDEN, CONFIGS["baseline"], 4), repeat(GOLDEN, CONFIGS["sampled"], 4)
    decision = decide(base, sampled, load_quarantine(), BEFORE)
    assert not set(decision.flaky) & set(decision.counted + decision.lost + decision.gained)


def test_a_quarantined_case_that_is_steady_is_left_out_and_named() -> None:
    entry = Quarantine(id="t01", owner="dilnoza", since="2026-12-01", expires="2027-01-01", why="was flaky")
    decision = decide(BASE, BASE, [entry], BEFORE)
    assert "t01" not in decision.counted and len(decision.counted) == 27
    assert "  quarantined t01: the same outcome on every run; lift it?" in decision.lines()


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="today is needed"):
        decide(BASE, BASE, load_quarantine())
    entry = Quarantine(id="t99", owner="dilnoza", since="2026-12-01", expires="2027-01-01", why="gone")
    with pytest.raises(ValueError, match="quarantine names cases these runs do not hold: \\['t99'\\]"):
        decide(BASE, BASE, [entry], BEFORE)
    with pytest.raises(ValueError, match="at position 0"):
        decide(BASE, EvalRun("terse", BASE.results[1:]))
    with pytest.raises(ValueError, match="baseline must be an EvalRun or a non-empty list"):
        decide([], BASE)


def test_the_report_is_short_lines_ending_with_the_outcome_and_the_exit_code() -> None:
    lines = decide(BASE, run_set(GOLDEN, CONFIGS["terse"])).lines()
    assert lines[0] == "gate: baseline -> terse, 28 cases counted, 1 run each"
    assert lines[-2:] == ["FAIL: lost 8, gained 0; p = 0.007812 < 0.05: unlikely by chance", "exit code 1"]
    flaky = decide(repeat(GOLDEN, CONFIGS["baseline"], 4), repeat(GOLDEN, CONFIGS["sampled"], 4), load_quarantine(),
                   AFTER).lines()
    agent = decide(run_set(AGENT, CONFIGS["baseline"]), run_set(AGENT, CONFIGS["retry-reads"])).lines()
    assert all(len(line) <= 85 for line in lines + flaky + agent)  # they read on a phone


def test_main_prints_the_report_and_returns_the_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--candidate", "thorough"]) == EXIT_CODES[PASS] == 0
    assert capsys.readouterr().out.splitlines()[-1] == "exit code 0"
    assert main(["--set", "agent", "--candidate", "retry-reads"]) == 3
    assert main(["--candidate", "sampled", "--runs", "4", "--quarantine", "--today", "2026-12-14"]) == 0
    for bad in (["--candidate", "nobody"], ["--candidate", "sampled", "--quarantine"], [],
                ["--candidate", "terse", "--runs", "0"], ["--candidate", "terse", "--runs", "-3"],
                ["--candidate", "terse", "--runs", "100000000000"], ["--candidate", "terse", "--runs", "four"],
                ["--candidate", "sampled", "--today", "2026-12-14"]):
        with pytest.raises(SystemExit) as exit_:
            main(bad)
        assert exit_.value.code == 2  # argparse's code for a bad command line, never an outcome's


def test_the_script_exits_with_the_gates_code() -> None:
    done = subprocess.run([sys.executable, "-m", "evidencedesk.trajectories.gate", "--candidate", "terse"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and done.stdout.splitlines()[-2].startswith("FAIL: lost 8")


def test_an_unreadable_quarantine_file_is_a_usage_error_not_a_fail(monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    # exit 1 is FAIL: CI would read a missing file as "the candidate regressed"
    def missing(path: object = None) -> list:
        raise gate_module.QuarantineError("quarantine.jsonl: cannot read it: No such file or directory")

    monkeypatch.setattr(gate_module, "load_quarantine", missing)
    with pytest.raises(SystemExit) as exit_:
        main(["--candidate", "sampled", "--runs", "4", "--quarantine", "--today", "2026-12-14"])
    assert exit_.value.code == 2
    assert "quarantine.jsonl: cannot read it" in capsys.readouterr().err.splitlines()[-1]
