"""Two configurations on the same cases, compared case by case: the 2x2 table and the exact McNemar test.

Run both configurations on one case set and each case lands in one cell: both pass, only A passes, only
B passes, neither. The cases where both agree say nothing about which is better; only the discordant
ones (only A, only B) do. If the two were equally good, each discordant case would be as likely to
favour A as B, like a fair coin. mcnemar_exact() is that test: the two-sided binomial probability of
a split at least as uneven as the one seen, computed exactly with integers (Q. McNemar, "Note on the
sampling error of the difference between correlated proportions or percentages", Psychometrika 12(2),
1947, gave the test in its chi-square form; this is its exact, binomial form). A small p-value says
such a split is rare when the two are equally good; it says nothing about cases unlike these, and a
large one does not show that they are equal. Left out: more than two configurations, several samples per
case (samples.py), and intervals for the difference; the correction for several tests is multiple.py's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from evidencedesk.evals.runner import EvalRun

ALPHA = 0.05  # the conventional significance level; a choice made before looking, never tuned after
CELLS = ((True, True), (True, False), (False, True), (False, False))  # (A passed, B passed): the four cells


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """The two-sided exact McNemar p-value for only_a and only_b discordant cases (ints, >= 0).

    p = min(1, 2 * P(X <= min(only_a, only_b))) with X ~ Binomial(only_a + only_b, 1/2); 1.0 when there is
    no discordant case (nothing to go on). Exact: summed as integers, divided once.
    Raises ValueError naming a count that is not an int >= 0.
    Example: mcnemar_exact(1, 6) -> 0.125
    """
    for name, value in (("only_a", only_a), ("only_b", only_b)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be an int >= 0 (a count of cases), got {value!r}")
    discordant = only_a + only_b
    tail = sum(math.comb(discordant, i) for i in range(min(only_a, only_b) + 1))
    return float(min(Fraction(1), Fraction(2 * tail, 2**discordant)))


@dataclass(frozen=True)
class Paired:
    """Two runs on the same cases, cell by cell: the case ids where both passed, only a, only b, neither.

    a, b (str): the configurations' names. Example: pair(run_v1, run_v2).only_b
    """

    a: str
    b: str
    both: tuple[str, ...]
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]
    neither: tuple[str, ...]

    @property
    def discordant(self) -> int:
        """Cases on which the two disagree (int)."""
        return len(self.only_a) + len(self.only_b)

    def p_value(self) -> float:
        """The exact McNemar p-value of this table (see mcnemar_exact)."""
        return mcnemar_exact(len(self.only_a), len(self.only_b))

    def table(self) -> list[str]:
        """The 2x2 table as aligned lines of text, A's outcome by row and B's by column."""
        w = max(len(self.a), len(self.b)) + 5  # a name and " pass"
        rows = [(f"{self.a} pass", len(self.both), len(self.only_a)),
                (f"{self.a} fail", len(self.only_b), len(self.neither))]
        return [f"{'':<{w}}  {self.b + ' pass':>{w}}  {self.b + ' fail':>{w}}",
                *(f"{label:<{w}}  {left:>{w}}  {right:>{w}}" for label, left, right in rows)]


def pair(run_a: EvalRun, run_b: EvalRun) -> Paired:
    """Pair two runs case by case. They must hold the same case ids in the same order.

    Raises ValueError naming the first case where the two runs differ (a missing case or another order):
    a paired comparison on different cases compares nothing.
    Example: pair(run_eval(cases, v1), run_eval(cases, v2)).p_value()
    """
    ids_a, ids_b = [r.case_id for r in run_a.results], [r.case_id for r in run_b.results]
    if ids_a != ids_b:
        shorter = min(len(ids_a), len(ids_b))
        at = next((i for i in range(shorter) if ids_a[i] != ids_b[i]), shorter)
        raise ValueError(f"the runs must cover the same cases in the same order; at position {at}, "
                         f"{run_a.config} has {ids_a[at:at + 1]} and {run_b.config} has {ids_b[at:at + 1]}")
    cells: dict[tuple[bool, bool], list[str]] = {cell: [] for cell in CELLS}
    for ra, rb in zip(run_a.results, run_b.results, strict=True):
        cells[(ra.grade.passed, rb.grade.passed)].append(ra.case_id)
    return Paired(run_a.config, run_b.config, *(tuple(cells[cell]) for cell in CELLS))
