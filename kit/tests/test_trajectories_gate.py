"""Tests of evidencedesk.trajectories.gate: the rule, its three outcomes on the kit's sets, the report, the script."""

from __future__ import annotations

import datetime
import subprocess
import sys

import pytest

import evidencedesk.trajectories.gate as gate_module

from evidencedesk.evals.paired import mcnemar_exact
from evidencedesk.evals.runner import EvalRun
from evidencedesk.trajectories.candidates import CONFIGS
from evidencedesk.trajectories.cases import agent_set, golden_set
from evidencedesk.trajectories.flaky import Quarantine, load_quarantine
from evidencedesk.trajectories.gate import (EXIT_CODES, FAIL, PASS, UNDECIDED, apply_rule, decide, fewest_to_fail, main,
                                            paired_rates, pass_at_k, pass_counts, pass_hat_k, regression_p)
from evidencedesk.trajectories.runner import repeat, run_set

GOLDEN, AGENT = golden_set(), agent_set()
BASE = run_set(GOLDEN, CONFIGS["baseline"])
BEFORE, AFTER = datetime.date(2026, 12, 14), datetime.date(2027, 2, 1)


def test_the_thorough_candidate_may_ship() -> None:
    decision = decide(BASE, run_set(GOLDEN, CONFIGS["thorough"]))
    assert decision.exit_code == 0, decision.report()


def test_five_lost_and_none_gained_is_the_least_that_fails() -> None:
    assert fewest_to_fail() == 5 and fewest_to_fail(0.01) == 7
    for bad in (0, 1, True, "0.05"):
        with pytest.raises(ValueError, match="alpha must be a number between 0 and 1"):
            fewest_to_fail(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("lost, gained, unowned, counted, outcome", [
    (5, 0, [], 28, FAIL), (4, 0, [], 28, UNDECIDED), (7, 1, [], 28, FAIL), (6, 2, [], 28, UNDECIDED),
    (1, 3, [], 28, PASS), (0, 0, [], 28, PASS), (2, 2, ["t13"], 27, UNDECIDED), (6, 0, ["t13"], 27, FAIL),
    (0, 0, [], 0, UNDECIDED), (3, 3, [], 28, PASS),
])
def test_the_rule(lost: int, gained: int, unowned: list, counted: int, outcome: str) -> None:
    assert apply_rule(lost, gained, unowned, counted)[0] == outcome


def test_the_rules_reasons_name_what_decided() -> None:
    assert apply_rule(5, 0, [], 28) == (FAIL, "lost 5, gained 0; p = 0.03125 < 0.05: unlikely by chance")
    assert apply_rule(2, 0, [], 14)[1] == "lost 2, gained 0; p = 0.25 may be chance; it fails at 5 lost, 0 gained"


def test_the_one_sided_p_is_the_upper_binomial_tail() -> None:
    assert (regression_p(8, 0), regression_p(2, 0), regression_p(0, 0), regression_p(0, 3)) == (1 / 256, 0.25, 1.0, 1.0)
    assert regression_p(3, 1) == 5 / 16 and regression_p(9, 4) == 1093 / 8192
    for lost in range(1, 12):  # one-sided is half the two-sided p when lost > gained: more power, same level
        assert regression_p(lost, 0) == mcnemar_exact(lost, 0) / 2
    with pytest.raises(ValueError, match="lost must be an int >= 0"):
        regression_p(-1, 0)


def test_pass_at_k_is_the_chance_that_one_of_k_runs_passes() -> None:
    assert (pass_at_k(0, 4, 4), pass_at_k(1, 4, 4), pass_at_k(2, 4, 1), pass_at_k(1, 4, 2)) == (0.0, 1.0, 0.5, 0.5)
    for passed in range(5):  # by hand: 1 - C(4 - passed, 2) / C(4, 2)
        assert pass_at_k(passed, 4, 2) == 1 - (4 - passed) * (3 - passed) / 2 / 6
    for bad in ((5, 4, 1), (2, 4, 0), (2, 4, 5), (-1, 4, 1), (True, 4, 1)):
        with pytest.raises(ValueError):
            pass_at_k(*bad)


def test_pass_hat_k_is_the_chance_that_k_runs_all_pass() -> None:
    assert (pass_hat_k(4, 4, 4), pass_hat_k(3, 4, 4), pass_hat_k(2, 4, 1), pass_hat_k(2, 4, 2)) == (1.0, 0.0, 0.5, 1 / 6)
    for bad in ((5, 4, 1), (2, 4, 0), (2, 4, 5), (True, 4, 1)):
        with pytest.raises(ValueError, match="need ints"):
            pass_hat_k(*bad)


def test_paired_rates_count_a_drop_of_a_flaky_case_against_the_candidate() -> None:
    assert paired_rates({"t13": (4, 4), "t14": (2, 4)}, {"t13": (2, 4), "t14": (2, 4)}) == (("t13",), ())
    assert paired_rates({"a": (1, 2)}, {"a": (3, 4)}) == ((), ("a",))  # rates, not counts: 1/2 < 3/4
    assert paired_rates({"a": (2, 4)}, {"a": (1, 2)}) == ((), ())
    with pytest.raises(ValueError, match="same cases"):
        paired_rates({"a": (1, 1)}, {"b": (1, 1)})
    with pytest.raises(ValueError, match="candidate a: expected 0 <= passed <= runs"):
        paired_rates({"a": (1, 1)}, {"a": (2, 1)})
    assert apply_rule(0, 0, ["t13", "t15"], 26)[1] == "flaky, no live quarantine: t13 t15; fix or quarantine each"


def test_terse_fails_the_gate_on_the_golden_set() -> None:
    decision = decide(BASE, run_set(GOLDEN, CONFIGS["terse"]))
    assert (decision.outcome, decision.exit_code, decision.gained) == (FAIL, 1, ())
    assert decision.lost == tuple(f"t{n}" for n in range(13, 21)) and decision.p == 1 / 2**8


def test_thorough_passes_although_it_loses_one_case() -> None:
    decision = decide(BASE, run_set(GOLDEN, CONFIGS["thorough"]))
    assert (decision.outcome, decision.lost, decision.gained) == (PASS, ("t05",), ("t21", "t22", "t23"))
    assert [str(rate) for rate in decision.rates] == ["25/28 = 89.3% [72.8%, 96.3%]", "27/28 = 96.4% [82.3%, 99.4%]"]


def test_retry_reads_cannot_be_decided_on_the_fourteen_rows() -> None:
    decision = decide(run_set(AGENT, CONFIGS["baseline"]), run_set(AGENT, CONFIGS["retry-reads"]))
    assert (decision.outcome, decision.exit_code, decision.lost, decision.p) == (UNDECIDED, 3, ("s02", "s11"), 0.25)


def test_one_run_of_a_flaky_candidate_decides_differently_on_different_runs() -> None:
    outcomes = [decide(BASE, run_set(GOLDEN, CONFIGS["sampled"], i)) for i in range(4)]
    assert [(d.outcome, len(d.lost)) for d in outcomes] == [(UNDECIDED, 3), (UNDECIDED, 2), (PASS, 0), (UNDECIDED, 3)]


def test_a_flaky_candidate_that_drops_stays_counted_and_fails_quarantined_or_not() -> None:
    base, sampled = repeat(GOLDEN, CONFIGS["baseline"], 4), repeat(GOLDEN, CONFIGS["sampled"], 4)
    assert pass_counts(sampled)["t13"] == (2, 4) and pass_counts(base)["t13"] == (4, 4)
    for decision in (decide(base, sampled), decide(base, sampled, load_quarantine(), BEFORE),
                     decide(base, sampled, load_quarantine(), AFTER)):
        assert (decision.outcome, len(decision.counted), decision.lost) == (
            FAIL, 28, ("t13", "t14", "t15", "t16", "t17"))  # the old gate set them aside and passed
    plain = decide(base, sampled)
    assert list(plain.flaky) == ["t13", "t14", "t15", "t16", "t17"]
    assert plain.flaky["t13"][0] is None and plain.flaky["t13"][1].passed == 2
    assert [str(r) for r in plain.rates] == ["25/28 = 89.3% [72.8%, 96.3%]", "20/28 = 71.4% [52.9%, 84.7%]"]


def test_an_owner_is_what_a_flaky_case_with_no_drop_needs() -> None:
    sampled = repeat(GOLDEN, CONFIGS["sampled"], 4)
    assert decide(sampled, sampled).outcome == UNDECIDED  # flaky on both sides at one rate: nobody owns it
    held = decide(sampled, sampled, load_quarantine(), BEFORE)
    assert (held.outcome, len(held.quarantined), held.expired, len(held.counted)) == (PASS, 5, (), 28)
    late = decide(sampled, sampled, load_quarantine(), AFTER)
    assert (late.outcome, late.quarantined, len(late.expired)) == (UNDECIDED, (), 5)
    assert "  flaky t13: sampled 2/4, sampled 2/4; quarantine expired 2027-01-15" in late.lines()


def test_a_quarantined_case_that_is_steady_stays_counted_and_is_named() -> None:
    entry = Quarantine(id="t01", owner="dilnoza", since="2026-12-01", expires="2027-01-01", why="was flaky")
    decision = decide(BASE, BASE, [entry], BEFORE)
    assert "t01" in decision.counted and len(decision.counted) == 28
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
    assert lines[0] == "gate: baseline -> terse, 28 cases, 1 run each"
    assert lines[-2:] == ["FAIL: lost 8, gained 0; p = 0.003906 < 0.05: unlikely by chance", "exit code 1"]
    flaky = decide(repeat(GOLDEN, CONFIGS["baseline"], 4), repeat(GOLDEN, CONFIGS["sampled"], 4), load_quarantine(),
                   AFTER).lines()
    agent = decide(run_set(AGENT, CONFIGS["baseline"]), run_set(AGENT, CONFIGS["retry-reads"])).lines()
    assert all(len(line) <= 85 for line in lines + flaky + agent)  # they read on a phone


def test_main_prints_the_report_and_returns_the_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--candidate", "thorough"]) == EXIT_CODES[PASS] == 0
    assert capsys.readouterr().out.splitlines()[-1] == "exit code 0"
    assert main(["--set", "agent", "--candidate", "retry-reads"]) == 3
    assert main(["--candidate", "sampled", "--runs", "4", "--quarantine", "--today", "2026-12-14"]) == 1
    assert main(["--baseline", "sampled", "--candidate", "sampled", "--runs", "4", "--quarantine", "--today",
                 "2026-12-14"]) == 0
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
