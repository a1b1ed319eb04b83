"""A regression gate for CI: a candidate against a baseline on the same cases, with one stated rule and an exit code.

decide() takes each configuration's runs of one eval set (one run or several, as repeat() makes them)
and decides by RULE. Every case counts, a flaky one included: each case's pass rate over its runs
(passed / runs, per side) is compared PAIRED, case by case. `lost` are the cases whose rate is lower
under the candidate, `gained` those whose rate is higher; with one run a side this is the 2x2 table of
evals/paired.py. A case that passed 4/4 under the baseline and 2/4 under the candidate is lost: a gate
that set flaky cases aside would let that drop through. The test is the exact sign (McNemar) test,
ONE-SIDED: p = P(X >= lost), X ~ Binomial(lost + gained, 1/2), the chance of losing at least that many
of the discordant cases when the two configurations are equally good. One-sided because a gate asks
only "does the candidate regress?"; a two-sided test also spends its level on gains the gate never acts
on, and needs more lost cases to fail. FAIL (exit 1): lost > gained and p < ALPHA. UNDECIDED (exit 3):
lost > gained but p >= ALPHA (too few cases to tell a drop from chance), a flaky case with no live
quarantine (an owner who fixes it), or an empty set; a non-zero code, because "cannot tell" is not "no
drop". PASS (exit 0): everything else. A quarantine never takes a case out of the count. Each side's
rate in the report is pass^k (Yao et al. 2024, tau-bench): the share of cases passed on every one of its
k runs; pass_at_k() is its opposite, pass@k (Chen et al. 2021), a case passed on any run. Decision.lines() is the report CI prints; main() is the script (`python -m
evidencedesk.trajectories.gate --candidate terse`). Exit code 2 is left to argparse, which uses it for a
bad command line. Left out: several candidates at once, slices by tag, and a test that weighs how far a
rate fell (the sign test counts a fall from 4/4 to 3/4 like one to 0/4).
"""

from __future__ import annotations

import argparse
import datetime
import sys
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field

import math
from fractions import Fraction

from evidencedesk.evals.paired import ALPHA, pair
from evidencedesk.evals.runner import EvalRun
from evidencedesk.evals.stats import Rate, wilson
from evidencedesk.trajectories.candidates import CONFIGS
from evidencedesk.trajectories.cases import agent_set, golden_set
from evidencedesk.trajectories.flaky import (Flaky, Quarantine, QuarantineError, flaky_cases, live_quarantine,
                                             load_quarantine)
from evidencedesk.trajectories.runner import MAX_RUNS, repeat

PASS, FAIL, UNDECIDED = "PASS", "FAIL", "UNDECIDED"
EXIT_CODES = {PASS: 0, FAIL: 1, UNDECIDED: 3}  # 2 is argparse's code for a bad command line
RULE = ("every case counts; a case is lost when its pass rate over the runs is lower under the candidate, "
        f"gained when higher. FAIL when it loses more than it gains and one-sided exact McNemar p < {ALPHA}; "
        "UNDECIDED when it loses more but p is not below that, when a flaky case has no live quarantine, "
        "or when there is no case; PASS otherwise")


def regression_p(lost: int, gained: int) -> float:
    """The one-sided exact McNemar (sign test) p-value: P(X >= lost), X ~ Binomial(lost + gained, 1/2).

    Args: lost, gained (ints >= 0, discordant cases). Returns 1.0 when there is no discordant case.
    Exact: summed as integers, divided once. One-sided, because the gate asks only whether the candidate
    regresses. Raises ValueError naming a count that is not an int >= 0.
    Example: regression_p(5, 0) -> 0.03125; regression_p(2, 0) -> 0.25
    """
    for name, value in (("lost", lost), ("gained", gained)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be an int >= 0 (a count of cases), got {value!r}")
    discordant = lost + gained
    tail = sum(math.comb(discordant, i) for i in range(lost, discordant + 1))
    return float(Fraction(tail, 2**discordant))


def pass_hat_k(passed: int, runs: int, k: int) -> float:
    """pass^k for one case (Yao et al. 2024, tau-bench, arXiv 2406.12045): the chance that k runs drawn
    from its `runs` runs all pass, C(passed, k) / C(runs, k). With k == runs: 1.0 if every run passed, else 0.

    Args: passed, runs, k (ints, 0 <= passed <= runs, 1 <= k <= runs). Raises ValueError otherwise.
    Example: pass_hat_k(2, 4, 1) -> 0.5; pass_hat_k(2, 4, 2) -> 1/6
    """
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (passed, runs, k)) or not (
            0 <= passed <= runs and 1 <= k <= runs):
        raise ValueError(f"need ints 0 <= passed <= runs and 1 <= k <= runs, got {passed!r}, {runs!r}, {k!r}")
    return math.comb(passed, k) / math.comb(runs, k)


def pass_at_k(passed: int, runs: int, k: int) -> float:
    """pass@k for one case (M. Chen et al. 2021, arXiv 2107.03374): the chance that at least one of k runs
    drawn from its `runs` runs passes, 1 - C(runs - passed, k) / C(runs, k). The opposite of pass^k: a case
    that passed any run counts, which is what a gate rerun until green measures.

    Args: passed, runs, k (ints, 0 <= passed <= runs, 1 <= k <= runs). Raises ValueError otherwise.
    Example: pass_at_k(2, 4, 1) -> 0.5; pass_at_k(1, 4, 4) -> 1.0
    """
    pass_hat_k(passed, runs, k)  # the same checks, naming the values as given
    return 1 - pass_hat_k(runs - passed, runs, k)  # none of k passes = all k fail: pass^k of the failures


def fewest_to_fail(alpha: float = ALPHA) -> int:
    """The fewest lost cases, with none gained, whose one-sided p is below alpha: 5 at 0.05.

    Raises ValueError unless 0 < alpha < 1. Example: fewest_to_fail(0.01) -> 7
    """
    if isinstance(alpha, bool) or not isinstance(alpha, int | float) or not 0 < alpha < 1:
        raise ValueError(f"alpha must be a number between 0 and 1, got {alpha!r}")
    lost = 1
    while regression_p(lost, 0) >= alpha:
        lost += 1
    return lost


def apply_rule(lost: int, gained: int, unowned: Sequence[str], counted: int, alpha: float = ALPHA) -> tuple[str, str]:
    """RULE as code: the outcome (PASS, FAIL or UNDECIDED) and one line saying why.

    Args: lost, gained (int, cases whose pass rate fell or rose under the candidate); unowned (ids of
    flaky cases with no live quarantine); counted (int, cases compared); alpha (float, the level).
    Raises ValueError (from regression_p) for a count that is not an int >= 0.
    Example: apply_rule(5, 0, [], 28) -> ("FAIL", "lost 5, gained 0; p = 0.03125 < 0.05: unlikely by chance")
    """
    p = regression_p(lost, gained)
    if lost > gained and p < alpha:
        return FAIL, f"lost {lost}, gained {gained}; p = {p:.4g} < {alpha}: unlikely by chance"
    if unowned:
        return UNDECIDED, f"flaky, no live quarantine: {' '.join(unowned)}; fix or quarantine each"
    if lost > gained:
        return UNDECIDED, (f"lost {lost}, gained {gained}; p = {p:.4g} may be chance; "
                           f"it fails at {fewest_to_fail(alpha)} lost, 0 gained")
    if not counted:
        return UNDECIDED, "no case to count"
    return PASS, f"lost {lost}, gained {gained}: the candidate loses no more than it gains"


@dataclass(frozen=True)
class Decision:
    """What the gate decided and why: outcome (PASS, FAIL or UNDECIDED), exit_code, why (one line), the two
    names, runs (per side), counted (every case id), lost and gained (case ids whose pass rate fell or
    rose), p (one-sided), each side's pass^k as a Wilson rate: cases passed on all k runs of that side
    (None for an empty set), flaky (case id -> (baseline's Flaky or None, candidate's Flaky or
    None)), quarantined (live entries that applied) and expired (entries past their date).
    Example: decision.exit_code, decision.lines()
    """

    outcome: str
    why: str
    baseline: str
    candidate: str
    runs: tuple[int, int]
    counted: tuple[str, ...]
    lost: tuple[str, ...]
    gained: tuple[str, ...]
    p: float
    rates: tuple[Rate | None, Rate | None]
    flaky: dict[str, tuple[Flaky | None, Flaky | None]] = field(default_factory=dict)
    quarantined: tuple[Quarantine, ...] = ()
    expired: tuple[Quarantine, ...] = ()

    @property
    def exit_code(self) -> int:
        """0 for PASS, 1 for FAIL, 3 for UNDECIDED."""
        return EXIT_CODES[self.outcome]

    def lines(self) -> list[str]:
        """The report, one short line each, as CI prints it."""
        if self.runs[0] == self.runs[1]:
            runs = f"{self.runs[0]} run{'s' * (self.runs[0] > 1)} each"
        else:
            runs = f"{self.runs[0]} and {self.runs[1]} runs"
        out = [f"gate: {self.baseline} -> {self.candidate}, {len(self.counted)} cases, {runs}"]
        width = max(len(self.baseline), len(self.candidate))
        out += [f"  {name:<{width}}  {f'pass^{k} ' if k > 1 else ''}{rate}"
                for name, rate, k in zip((self.baseline, self.candidate), self.rates, self.runs) if rate is not None]
        out.append(f"  lost {len(self.lost)} {_ids(self.lost)}, gained {len(self.gained)} {_ids(self.gained)}")
        live = {q.id: q for q in self.quarantined}
        past = {q.id: q for q in self.expired}
        for case_id, sides in self.flaky.items():
            shown = ", ".join(f"{name} {f.passed}/{f.runs}" for name, f in zip((self.baseline, self.candidate), sides)
                              if f is not None)
            if case_id in live:
                state = f"quarantined by {live[case_id].owner} until {live[case_id].expires}"
            elif case_id in past:
                state = f"quarantine expired {past[case_id].expires}"
            else:
                state = "no quarantine"
            out.append(f"  flaky {case_id}: {shown}; {state}")
        out += [f"  quarantined {q.id}: the same outcome on every run; lift it?" for q in self.quarantined
                if q.id not in self.flaky]
        out += [f"  quarantine of {q.id} expired {q.expires}; remove it" for q in self.expired
                if q.id not in self.flaky]
        return [*out, f"{self.outcome}: {self.why}", f"exit code {self.exit_code}"]

    def report(self) -> str:
        """lines() joined by newlines: the message for an assert in pytest."""
        return "\n".join(self.lines())


def _ids(ids: tuple[str, ...]) -> str:
    return f"({' '.join(ids)})" if ids else "(none)"


def _runs(side: EvalRun | Sequence[EvalRun], name: str) -> list[EvalRun]:
    runs = [side] if isinstance(side, EvalRun) else list(side)
    if not runs or not all(isinstance(run, EvalRun) for run in runs):
        raise ValueError(f"{name} must be an EvalRun or a non-empty list of EvalRuns")
    return runs


def pass_counts(runs: Sequence[EvalRun]) -> dict[str, tuple[int, int]]:
    """Each case's (passed, runs) over runs of one configuration, by case id in case order.

    Raises ValueError (from evals.paired.pair) naming the first case where two runs differ.
    Example: pass_counts(repeat(golden_set(), CONFIGS["sampled"], 4))["t13"] -> (2, 4)
    """
    for other in runs[1:]:
        pair(runs[0], other)
    return {r.case_id: (sum(run.results[i].grade.passed for run in runs), len(runs))
            for i, r in enumerate(runs[0].results)}


def paired_rates(baseline: dict[str, tuple[int, int]],
                 candidate: dict[str, tuple[int, int]]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(lost, gained): the case ids whose pass rate, passed / runs, is lower (lost) or higher (gained) under
    the candidate than under the baseline, in the baseline's case order. A flaky case is compared like any
    other: 4/4 against 2/4 is lost.

    Args: baseline, candidate (case id -> (passed, runs), as pass_counts gives them). Raises ValueError
    when the two hold other cases, or a count is not 0 <= passed <= runs with runs >= 1.
    Example: paired_rates({"t13": (4, 4)}, {"t13": (2, 4)}) -> (("t13",), ())
    """
    if list(baseline) != list(candidate):
        raise ValueError("baseline and candidate must hold the same cases in the same order")
    rates = {}
    for side, counts in (("baseline", baseline), ("candidate", candidate)):
        for case_id, (passed, runs) in counts.items():
            if not (isinstance(passed, int) and isinstance(runs, int) and 0 <= passed <= runs and runs >= 1):
                raise ValueError(f"{side} {case_id}: expected 0 <= passed <= runs, runs >= 1, got {passed}/{runs}")
            rates[side, case_id] = Fraction(passed, runs)
    lost = tuple(i for i in baseline if rates["candidate", i] < rates["baseline", i])
    gained = tuple(i for i in baseline if rates["candidate", i] > rates["baseline", i])
    return lost, gained


def decide(baseline: EvalRun | Sequence[EvalRun], candidate: EvalRun | Sequence[EvalRun],
           quarantine: Sequence[Quarantine] = (), today: datetime.date | None = None,
           alpha: float = ALPHA) -> Decision:
    """Decide by RULE whether the candidate may replace the baseline.

    Args: baseline, candidate (an EvalRun, or several runs of one configuration, all on the same cases in
    the same order); quarantine (Quarantine entries: owners of flaky cases; an entry never takes a case
    out of the count); today (datetime.date, needed when quarantine is given: entries expire); alpha
    (float, the level, ALPHA by default). Returns a Decision.
    Raises ValueError for an empty side, runs on other cases (naming the first difference), a
    quarantine without today, or an entry naming a case the runs do not hold.
    Example: decide(run_set(s, CONFIGS["baseline"]), run_set(s, CONFIGS["terse"])).outcome -> "FAIL"
    """
    base, cand = _runs(baseline, "baseline"), _runs(candidate, "candidate")
    flaky_base, flaky_cand = flaky_cases(base), flaky_cases(cand)  # each checks its runs hold the same cases
    pair(base[0], cand[0])  # refuses two sides on other cases, naming the first difference
    ids = [r.case_id for r in base[0].results]
    if quarantine and today is None:
        raise ValueError("today is needed to check quarantine expiry dates")
    live, expired = live_quarantine(quarantine, today) if quarantine else ({}, [])
    unknown = sorted((set(live) | {q.id for q in expired}) - set(ids))
    if unknown:
        raise ValueError(f"the quarantine names cases these runs do not hold: {unknown}")
    flaky = {i: (flaky_base.get(i), flaky_cand.get(i)) for i in ids if i in flaky_base or i in flaky_cand}
    counts = pass_counts(base), pass_counts(cand)
    lost, gained = paired_rates(*counts)
    rates = (None, None)
    if ids:  # pass^k per side: the cases passed on every one of that side's runs
        rates = tuple(wilson(sum(p == n for p, n in side.values()), len(ids)) for side in counts)
    outcome, why = apply_rule(len(lost), len(gained), [i for i in flaky if i not in live], len(ids), alpha)
    return Decision(outcome, why, base[0].config, cand[0].config, (len(base), len(cand)), tuple(ids), lost, gained,
                    regression_p(len(lost), len(gained)), rates, flaky, tuple(live.values()), tuple(expired))


def _runs_option(text: str) -> int:
    """--runs as argparse reads it: an int from 1 to MAX_RUNS, else an error naming it (exit 2)."""
    try:
        runs = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of runs, got {text!r}") from None
    if not 1 <= runs <= MAX_RUNS:
        raise argparse.ArgumentTypeError(f"expected 1 to {MAX_RUNS} runs per side, got {runs}")
    return runs


def main(argv: Sequence[str] | None = None) -> int:
    """The gate as a script: run both configurations on an eval set, print the report, return the exit code.

    Options: --set (golden or agent), --baseline and --candidate (names in candidates.CONFIGS), --runs
    (int, runs per side), --quarantine (use kit/data/trajectories/quarantine.jsonl) with --today
    (YYYY-MM-DD, the date to check expiry against). Exit codes: EXIT_CODES for a decision; 2 for a usage
    error (argparse's own: an unknown name, --runs outside 1 to MAX_RUNS, an unreadable quarantine file), which
    CI must never read as a FAIL. Example: main(["--candidate", "terse"]) -> 1
    """
    parser = argparse.ArgumentParser(prog="python -m evidencedesk.trajectories.gate", description=RULE)
    parser.add_argument("--set", choices=("golden", "agent"), default="golden")
    parser.add_argument("--baseline", choices=tuple(CONFIGS), default="baseline")
    parser.add_argument("--candidate", choices=tuple(CONFIGS), required=True)
    parser.add_argument("--runs", type=_runs_option, default=1, help=f"runs per side, 1 to {MAX_RUNS}")
    parser.add_argument("--quarantine", action="store_true", help="apply kit/data/trajectories/quarantine.jsonl")
    parser.add_argument("--today", type=datetime.date.fromisoformat, help="YYYY-MM-DD, with --quarantine")
    args = parser.parse_args(argv)
    if args.quarantine and args.today is None:
        parser.error("--quarantine needs --today")
    if args.today is not None and not args.quarantine:
        parser.error("--today is the date a quarantine's expiry is checked against: it needs --quarantine")
    try:  # a usage error exits 2, as argparse's own: never 1, which CI would read as FAIL
        quarantine = load_quarantine() if args.quarantine else ()
    except QuarantineError as error:
        parser.error(str(error))
    eval_set = golden_set() if args.set == "golden" else agent_set()
    decision = decide(repeat(eval_set, CONFIGS[args.baseline], args.runs),
                      repeat(eval_set, CONFIGS[args.candidate], args.runs), quarantine, args.today)
    print(f"eval set: {eval_set.name}, {len(eval_set.cases)} cases")
    print(textwrap.fill(f"rule: {RULE}", 78, subsequent_indent="  "))
    print(decision.report())
    return decision.exit_code


if __name__ == "__main__":
    sys.exit(main())
