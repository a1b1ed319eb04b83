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
every item. Left out: weighted kappa for ordered labels, more than two raters (Fleiss), and an interval
for kappa.
"""

from __future__ import annotations

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
