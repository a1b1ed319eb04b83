"""A regression gate for CI: a candidate against a baseline on the same cases, with one stated rule and an exit code.

decide() takes each configuration's runs of one eval set (one run or several, as repeat() makes them)
and decides by RULE. A case is counted only when its outcome is the same on every run of both sides
and it is not in a live quarantine. Over the counted cases, `lost` are those only the baseline passed,
`gained` those only the candidate passed; the exact McNemar test of evals/paired.py asks whether a
split that uneven is likely when the two are equally good. FAIL (exit 1): lost > gained and p < ALPHA.
UNDECIDED (exit 3): lost > gained but p >= ALPHA (too few cases to tell a drop from chance), a flaky
case with no live quarantine, or no case left to count; a non-zero code, because "cannot tell" is not
"no drop". PASS (exit 0): everything else. Decision.lines() is the report CI prints; main() is the
script (`python -m evidencedesk.trajectories.gate --candidate terse`), and a pytest test can assert
`decision.exit_code == 0` with the report as its message. Exit code 2 is left to argparse, which
uses it for a bad command line. Left out: several candidates at once, and slices by tag.
"""

from __future__ import annotations

import argparse
import datetime
import sys
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field

from evidencedesk.evals.paired import ALPHA, mcnemar_exact, pair
from evidencedesk.evals.runner import EvalRun
from evidencedesk.evals.stats import Rate, wilson
from evidencedesk.trajectories.candidates import CONFIGS
from evidencedesk.trajectories.cases import agent_set, golden_set
from evidencedesk.trajectories.flaky import (Flaky, Quarantine, QuarantineError, flaky_cases, live_quarantine,
                                             load_quarantine)
from evidencedesk.trajectories.runner import MAX_RUNS, repeat

PASS, FAIL, UNDECIDED = "PASS", "FAIL", "UNDECIDED"
EXIT_CODES = {PASS: 0, FAIL: 1, UNDECIDED: 3}  # 2 is argparse's code for a bad command line
RULE = (f"FAIL when the candidate loses more counted cases than it gains and exact McNemar p < {ALPHA}; "
        "UNDECIDED when it loses more but p is not below that, when a flaky case has no live quarantine, "
        "or when no case is counted; PASS otherwise")


def fewest_to_fail(alpha: float = ALPHA) -> int:
    """The fewest lost cases, with none gained, whose exact McNemar p is below alpha: 6 at 0.05.

    Raises ValueError unless 0 < alpha < 1. Example: fewest_to_fail(0.01) -> 8
    """
    if isinstance(alpha, bool) or not isinstance(alpha, int | float) or not 0 < alpha < 1:
        raise ValueError(f"alpha must be a number between 0 and 1, got {alpha!r}")
    lost = 1
    while mcnemar_exact(lost, 0) >= alpha:
        lost += 1
    return lost


def apply_rule(lost: int, gained: int, unowned: Sequence[str], counted: int, alpha: float = ALPHA) -> tuple[str, str]:
    """RULE as code: the outcome (PASS, FAIL or UNDECIDED) and one line saying why.

    Args: lost, gained (int, counted cases only the baseline or only the candidate passed); unowned (ids
    of flaky cases with no live quarantine); counted (int, cases counted); alpha (float, the level).
    Raises ValueError (from mcnemar_exact) for a count that is not an int >= 0.
    Example: apply_rule(6, 0, [], 28) -> ("FAIL", "lost 6, gained 0; p = 0.03125 < 0.05: unlikely by chance")
    """
    p = mcnemar_exact(lost, gained)
    if lost > gained and p < alpha:
        return FAIL, f"lost {lost}, gained {gained}; p = {p:.4g} < {alpha}: unlikely by chance"
    if unowned:
        return UNDECIDED, f"flaky, no live quarantine: {' '.join(unowned)}; fix or quarantine each"
    if lost > gained:
        return UNDECIDED, (f"lost {lost}, gained {gained}; p = {p:.4g} may be chance; "
                           f"failing takes {fewest_to_fail(alpha)} lost, none gained")
    if not counted:
        return UNDECIDED, "no case left to count"
    return PASS, f"lost {lost}, gained {gained}: the candidate loses no more than it gains"


@dataclass(frozen=True)
class Decision:
    """What the gate decided and why: outcome (PASS, FAIL or UNDECIDED), exit_code, why (one line), the two
    names, runs (per side), counted, lost and gained (case ids), p, each side's Wilson rate over the counted
    cases (None when none is counted), flaky (case id -> (baseline's Flaky or None, candidate's Flaky or
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
        out = [f"gate: {self.baseline} -> {self.candidate}, {len(self.counted)} cases counted, {runs}"]
        width = max(len(self.baseline), len(self.candidate))
        out += [f"  {name:<{width}}  {rate}" for name, rate in zip((self.baseline, self.candidate), self.rates)
                if rate is not None]
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


def decide(baseline: EvalRun | Sequence[EvalRun], candidate: EvalRun | Sequence[EvalRun],
           quarantine: Sequence[Quarantine] = (), today: datetime.date | None = None,
           alpha: float = ALPHA) -> Decision:
    """Decide by RULE whether the candidate may replace the baseline.

    Args: baseline, candidate (an EvalRun, or several runs of one configuration, all on the same cases in
    the same order); quarantine (Quarantine entries); today (datetime.date, needed when quarantine is
    given: entries expire); alpha (float, the level, ALPHA by default). Returns a Decision.
    Raises ValueError for an empty side, runs on other cases (naming the first difference), a
    quarantine without today, or an entry naming a case the runs do not hold.
    Example: decide(run_set(s, CONFIGS["baseline"]), run_set(s, CONFIGS["terse"])).outcome -> "FAIL"
    """
    base, cand = _runs(baseline, "baseline"), _runs(candidate, "candidate")
    flaky_base, flaky_cand = flaky_cases(base), flaky_cases(cand)  # each checks its runs hold the same cases
    paired = pair(base[0], cand[0])  # the 2x2 table of evals/paired.py; refuses two sides on other cases
    ids = [r.case_id for r in base[0].results]
    if quarantine and today is None:
        raise ValueError("today is needed to check quarantine expiry dates")
    live, expired = live_quarantine(quarantine, today) if quarantine else ({}, [])
    unknown = sorted((set(live) | {q.id for q in expired}) - set(ids))
    if unknown:
        raise ValueError(f"the quarantine names cases these runs do not hold: {unknown}")
    flaky = {i: (flaky_base.get(i), flaky_cand.get(i)) for i in ids if i in flaky_base or i in flaky_cand}
    counted = tuple(i for i in ids if i not in flaky and i not in live)
    lost = tuple(i for i in paired.only_a if i in counted)
    gained = tuple(i for i in paired.only_b if i in counted)
    both = sum(i in counted for i in paired.both)
    rates = (None, None)
    if counted:  # each side's pass rate over the counted cases
        rates = (wilson(both + len(lost), len(counted)), wilson(both + len(gained), len(counted)))
    outcome, why = apply_rule(len(lost), len(gained), [i for i in flaky if i not in live], len(counted), alpha)
    return Decision(outcome, why, base[0].config, cand[0].config, (len(base), len(cand)), counted, lost, gained,
                    mcnemar_exact(len(lost), len(gained)), rates, flaky, tuple(live.values()), tuple(expired))


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
    print(textwrap.fill(f"rule: {RULE}", 84, subsequent_indent="  "))
    print(decision.report())
    return decision.exit_code


if __name__ == "__main__":
    sys.exit(main())
