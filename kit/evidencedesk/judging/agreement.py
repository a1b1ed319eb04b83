"""Agreement between two raters of the same items: the raw share, and Cohen's kappa, which corrects for chance.

Two raters (a person and a judge, or two people) each give every item one label from a fixed set. Raw
agreement is the share of items on which they give the same label. Part of it would happen by chance: a
judge that always says "a" agrees with a person on every item the person labelled "a". Cohen's kappa takes
that part out: kappa = (p_o - p_e) / (1 - p_e), where p_o is the raw agreement and p_e the agreement
expected if the two labelled independently, each with its own share of each label (the sum over labels of
the two raters' shares multiplied). 1 is perfect agreement, 0 is what chance gives, and below 0 is worse
than chance. Source: J. Cohen, "A Coefficient of Agreement for Nominal Scales", Educational and
Psychological Measurement 20(1), 37-46, 1960. Computed in exact fractions, so a value worked out by hand
compares exactly. Kappa is undefined (None) when p_e is 1: both raters give one and the same label to
every item. kappa_interval() gives kappa its large-sample standard error and a normal interval: the
standard error of J. L. Fleiss, J. Cohen and B. S. Everitt, "Large sample standard errors of kappa and
weighted kappa", Psychological Bulletin 72(5), 323-327, 1969 (the delta method over the table's cells,
with nothing assumed about the raters' agreement). A normal interval is rough on a few dozen items and
collapses to one point at kappa 1, as the Wald interval of a pass rate does; it is a first measure of how
little a small table says, not a precise one. Left out: weighted kappa for ordered labels, more than two
raters (Fleiss), and bootstrap or exact intervals.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True)
class Agreement:
    """Two raters on n items: agreed (int, items with the same label), observed and expected (Fraction, p_o and
    p_e), kappa (Fraction, or None when undefined), labels (the label set, sorted) and counts (a table:
    counts[i][j] items that rater one labelled labels[i] and rater two labels[j]).

    Example: str(cohen_kappa(["a", "b"], ["a", "a"])) -> "1/2 agree = 50.0%, chance 50.0%, kappa 0.000"
    """

    n: int
    agreed: int
    observed: Fraction
    expected: Fraction
    kappa: Fraction | None
    labels: tuple[str, ...]
    counts: tuple[tuple[int, ...], ...]

    def __str__(self) -> str:
        kappa = "undefined" if self.kappa is None else f"{float(self.kappa):.3f}"
        shares = f"{float(self.observed):.1%}, chance {float(self.expected):.1%}"
        return f"{self.agreed}/{self.n} agree = {shares}, kappa {kappa}"

    def table(self, first: str = "rows", second: str = "columns") -> list[str]:
        """The counts as aligned lines of text: rater one (first, str) by row, rater two (second) by column.

        Example: cohen_kappa(["a", "b"], ["a", "a"]).table("human", "judge")[0] -> "human \\ judge       a     b"
        """
        corner = f"{first} \\ {second}"
        w = max(*(len(label) for label in self.labels), 4)
        lines = [f"{corner:<{len(corner) + 2}}" + "".join(f"{label:>{w + 2}}" for label in self.labels)]
        for label, row in zip(self.labels, self.counts, strict=True):
            lines.append(f"{label:<{len(corner) + 2}}" + "".join(f"{count:>{w + 2}}" for count in row))
        return lines


def kappa_table(labels: Sequence[str], counts: Sequence[Sequence[int]]) -> Agreement:
    """Agreement from a square table of counts: counts[i][j] items rated labels[i] by one, labels[j] by two.

    Raises ValueError for no label, a repeated label, a table that is not square, a count that is not an
    int >= 0, or no item at all.
    Example: kappa_table(["yes", "no"], [[20, 5], [10, 15]]).kappa -> Fraction(2, 5)
    """
    labels = tuple(labels)
    if not labels or len(set(labels)) != len(labels):
        raise ValueError(f"labels must be distinct and at least one, got {labels!r}")
    rows = tuple(tuple(row) for row in counts)
    if len(rows) != len(labels) or any(len(row) != len(labels) for row in rows):
        raise ValueError(f"counts must be a {len(labels)} x {len(labels)} table, one row and column per label")
    if any(isinstance(c, bool) or not isinstance(c, int) or c < 0 for row in rows for c in row):
        raise ValueError("every count must be an int >= 0 (items)")
    n = sum(map(sum, rows))
    if n == 0:
        raise ValueError("the table holds no item: agreement needs at least one")
    agreed = sum(rows[i][i] for i in range(len(labels)))
    observed = Fraction(agreed, n)
    row_share = [Fraction(sum(row), n) for row in rows]
    column_share = [Fraction(sum(row[j] for row in rows), n) for j in range(len(labels))]
    expected = sum((r * c for r, c in zip(row_share, column_share, strict=True)), Fraction(0))
    kappa = None if expected == 1 else (observed - expected) / (1 - expected)
    return Agreement(n, agreed, observed, expected, kappa, labels, rows)


def cohen_kappa(first: Sequence[str], second: Sequence[str], labels: Sequence[str] | None = None) -> Agreement:
    """Agreement of two raters who labelled the same items, in the same order: first[i] and second[i] are item i.

    Args: first, second (sequences of str, equally long, at least one item); labels (the label set; default
    every label either rater used, sorted). Raises ValueError when the lengths differ, there is no item, or
    a rater used a label outside labels.
    Example: cohen_kappa(["a", "b", "a", "tie"], ["a", "b", "b", "tie"]).agreed -> 3
    """
    first, second = list(first), list(second)
    if len(first) != len(second):
        raise ValueError(f"the raters must label the same items: {len(first)} labels against {len(second)}")
    labels = tuple(labels) if labels is not None else tuple(sorted(set(first) | set(second)))
    unknown = sorted((set(first) | set(second)) - set(labels))
    if unknown:
        raise ValueError(f"labels used but not in the label set: {unknown}")
    index = {label: i for i, label in enumerate(labels)}
    counts = [[0] * len(labels) for _ in labels]
    for one, two in zip(first, second, strict=True):
        counts[index[one]][index[two]] += 1
    return kappa_table(labels, counts)


@dataclass(frozen=True)
class KappaInterval:
    """Kappa with its large-sample standard error and a normal interval: kappa, se, low, high (floats).

    low and high are kappa -/+ z * se, kept within kappa's scale, -1 to 1.
    Example: str(kappa_interval(kappa_table(["y", "n"], [[20, 5], [10, 15]]))) -> "kappa 0.400 [0.151, 0.649]"
    """

    kappa: float
    se: float
    low: float
    high: float

    def __str__(self) -> str:
        return f"kappa {self.kappa:.3f} [{self.low:.3f}, {self.high:.3f}]"


def kappa_se(found: Agreement) -> float:
    """The large-sample standard error of kappa (Fleiss, Cohen and Everitt, 1969), from the table of counts.

    With p_ij the share of items in cell (i, j), r_i and c_j the row and column shares, p_e the chance
    agreement and k kappa: var = (A + B - C) / (n (1 - p_e)^2), where A = sum_i p_ii (1 - (r_i + c_i)(1 - k))^2,
    B = (1 - k)^2 sum_(i != j) p_ij (c_i + r_j)^2 and C = (k - p_e (1 - k))^2.
    Args: found (Agreement, from kappa_table or cohen_kappa). Returns the standard error (float, >= 0).
    Raises ValueError when kappa is undefined (both raters gave one and the same label throughout).
    Example: round(kappa_se(kappa_table(["y", "n"], [[1395, 118], [261, 158]])), 4) -> 0.0263
    """
    if found.kappa is None:
        raise ValueError("kappa is undefined for this table (chance agreement is 1), so it has no standard error")
    n, k, pe = found.n, found.kappa, found.expected
    cells = [[Fraction(count, n) for count in row] for row in found.counts]
    size = len(found.labels)
    rows = [sum(cells[i]) for i in range(size)]
    cols = [sum(cells[i][j] for i in range(size)) for j in range(size)]
    a = sum(cells[i][i] * (1 - (rows[i] + cols[i]) * (1 - k)) ** 2 for i in range(size))
    b = (1 - k) ** 2 * sum(cells[i][j] * (cols[i] + rows[j]) ** 2
                           for i in range(size) for j in range(size) if i != j)
    c = (k - pe * (1 - k)) ** 2
    variance = (a + b - c) / (n * (1 - pe) ** 2)
    return math.sqrt(max(float(variance), 0.0))  # exact fractions; max() only guards a -0 from rounding


def kappa_interval(found: Agreement, z: float = 1.959963984540054) -> KappaInterval:
    """Kappa, its standard error (kappa_se) and the normal interval kappa -/+ z * se, clipped to [-1, 1].

    Args: found (Agreement); z (float > 0, standard errors each side; default 1.96, for 95%).
    Raises ValueError when kappa is undefined or z is not a positive number.
    Example: kappa_interval(kappa_table(["y", "n"], [[20, 5], [10, 15]])).low -> 0.151...
    """
    if isinstance(z, bool) or not isinstance(z, (int, float)) or not z > 0 or math.isinf(z):
        raise ValueError(f"z must be a positive number of standard errors, got {z!r}")
    se = kappa_se(found)
    kappa = float(found.kappa)  # type: ignore[arg-type]  # kappa_se refused None
    return KappaInterval(kappa, se, max(-1.0, kappa - z * se), min(1.0, kappa + z * se))
