"""Tests of evidencedesk.judging.agreement: raw agreement and Cohen's kappa against values worked out by hand."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evidencedesk.judging.agreement import Agreement, cohen_kappa, kappa_interval, kappa_se, kappa_table


def test_a_two_by_two_table_worked_out_by_hand() -> None:
    # 50 items. Agree on 20 + 15 = 35: p_o = 0.7. Rater one says yes 25 times, rater two 30 times:
    # p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.5. kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4.
    found = kappa_table(["yes", "no"], [[20, 5], [10, 15]])
    assert (found.n, found.agreed, found.observed, found.expected) == (50, 35, Fraction(7, 10), Fraction(1, 2))
    assert found.kappa == Fraction(2, 5)
    assert str(found) == "35/50 agree = 70.0%, chance 50.0%, kappa 0.400"


def test_a_three_label_table_worked_out_by_hand() -> None:
    # 10 items; agree on 4 + 2 + 1 = 7. Row shares 5, 3, 2 of 10; column shares 4, 4, 2 of 10.
    # p_e = (20 + 12 + 4) / 100 = 0.36; kappa = (0.7 - 0.36) / 0.64 = 0.34 / 0.64 = 17/32.
    found = kappa_table(["a", "b", "tie"], [[4, 1, 0], [0, 2, 1], [0, 1, 1]])
    assert (found.expected, found.kappa) == (Fraction(9, 25), Fraction(17, 32))


def test_a_rater_who_always_says_the_same_is_at_chance() -> None:
    humans = ["a"] * 11 + ["b"] * 10 + ["tie"] * 3
    found = cohen_kappa(humans, ["a"] * 24)
    assert (found.agreed, found.kappa) == (11, 0)  # 11 of 24 agree, every one of them by chance
    assert found.observed == found.expected == Fraction(11, 24)


def test_the_ends_of_the_scale() -> None:
    assert cohen_kappa(["pass", "fail", "pass"], ["pass", "fail", "pass"]).kappa == 1
    assert cohen_kappa(["pass", "fail"] * 4, ["fail", "pass"] * 4).kappa == -1
    undefined = cohen_kappa(["pass"] * 5, ["pass"] * 5)
    assert (undefined.observed, undefined.expected, undefined.kappa) == (1, 1, None)
    assert str(undefined) == "5/5 agree = 100.0%, chance 100.0%, kappa undefined"


def test_labels_default_to_those_used_and_may_be_given() -> None:
    found = cohen_kappa(["b", "a"], ["a", "a"])
    assert found.labels == ("a", "b") and found.counts == ((1, 0), (1, 0))
    given_labels = cohen_kappa(["b", "a"], ["a", "a"], labels=["a", "b", "tie"])
    assert given_labels.counts == ((1, 0, 0), (1, 0, 0), (0, 0, 0)) and given_labels.kappa == found.kappa


def test_the_table_prints_rater_one_by_row() -> None:
    found = cohen_kappa(["a", "a", "b"], ["a", "b", "b"])
    assert found.table("human", "judge") == ["human \\ judge       a     b",
                                             "a                   1     1",
                                             "b                   0     1"]


@pytest.mark.parametrize("first, second, labels, message", [
    (["a"], ["a", "b"], None, "must label the same items: 1 labels against 2"),
    ([], [], None, "labels must be distinct and at least one"),
    (["a", "c"], ["a", "b"], ["a", "b"], "labels used but not in the label set: \\['c'\\]"),
])
def test_bad_ratings_are_refused_by_name(first: list, second: list, labels: list | None, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        cohen_kappa(first, second, labels)


@pytest.mark.parametrize("labels, counts, message", [
    (["a", "a"], [[1, 0], [0, 1]], "labels must be distinct"),
    (["a", "b"], [[1, 0]], "must be a 2 x 2 table"),
    (["a", "b"], [[1, 0], [0, -1]], "every count must be an int >= 0"),
    (["a", "b"], [[1, 0], [0, True]], "every count must be an int >= 0"),
    (["a", "b"], [[0, 0], [0, 0]], "the table holds no item"),
])
def test_bad_tables_are_refused_by_name(labels: list, counts: list, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        kappa_table(labels, counts)


def independent_kappa(first: list[str], second: list[str]) -> Fraction | None:
    """Cohen's formula written out again, by counting, without the kit's table."""
    n = len(first)
    observed = Fraction(sum(x == y for x, y in zip(first, second)), n)
    expected = sum((Fraction(first.count(k), n) * Fraction(second.count(k), n) for k in set(first) | set(second)),
                   Fraction(0))
    return None if expected == 1 else (observed - expected) / (1 - expected)


ratings = st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from("abc")), min_size=1, max_size=40)


@settings(max_examples=300, derandomize=True, database=None, deadline=None)
@given(ratings)
def test_kappa_is_cohens_formula_symmetric_and_at_most_one(pairs: list[tuple[str, str]]) -> None:
    first, second = [x for x, _ in pairs], [y for _, y in pairs]
    found: Agreement = cohen_kappa(first, second)
    assert found.kappa == independent_kappa(first, second)
    assert found.kappa == cohen_kappa(second, first).kappa
    assert found.kappa is None or -1 <= found.kappa <= 1


def test_the_standard_error_matches_a_published_figure() -> None:
    # Stata's kapci (analytical, Fleiss, Cohen and Everitt 1969) on this 2x2 table of 1,932 items gives
    # kappa 0.3411969 and se 0.0262913719660408 (Statalist, "kappa agreement standard errors", December 2009).
    found = kappa_table(["0", "1"], [[1395, 118], [261, 158]])
    assert math.isclose(float(found.kappa), 0.3411969207847029)
    assert math.isclose(kappa_se(found), 0.0262913719660408, rel_tol=1e-9)


def _delta_method(counts: list[list[int]]) -> float:
    """The variance of kappa by the delta method, written out again: a numerical gradient of kappa over the cell
    shares, against the multinomial covariance (diag(p) - p p^T) / n."""
    n = sum(map(sum, counts))
    size = len(counts)
    cells = [counts[i][j] / n for i in range(size) for j in range(size)]

    def kappa_of(shares: list[float]) -> float:
        table = [shares[i * size:(i + 1) * size] for i in range(size)]
        rows = [sum(r) for r in table]
        cols = [sum(table[i][j] for i in range(size)) for j in range(size)]
        po = sum(table[i][i] for i in range(size))
        pe = sum(r * c for r, c in zip(rows, cols))
        return (po - pe) / (1 - pe)

    h = 1e-6
    grad = []
    for x in range(len(cells)):
        up, down = list(cells), list(cells)
        up[x] += h
        down[x] -= h
        grad.append((kappa_of(up) - kappa_of(down)) / (2 * h))
    mean = sum(g * p for g, p in zip(grad, cells))
    return sum(p * (g - mean) ** 2 for g, p in zip(grad, cells)) / n


@settings(max_examples=150, derandomize=True)
@given(st.integers(min_value=2, max_value=3).flatmap(
    lambda k: st.lists(st.lists(st.integers(min_value=1, max_value=40), min_size=k, max_size=k), min_size=k, max_size=k)))
def test_the_standard_error_is_the_delta_method(counts: list[list[int]]) -> None:
    found = kappa_table([f"l{i}" for i in range(len(counts))], counts)
    assert math.isclose(kappa_se(found) ** 2, _delta_method(counts), rel_tol=1e-5, abs_tol=1e-12)


def test_the_interval_is_kappa_plus_or_minus_z_standard_errors_within_the_scale() -> None:
    found = kappa_table(["yes", "no"], [[20, 5], [10, 15]])
    interval = kappa_interval(found)
    assert interval.kappa == 0.4 and math.isclose(interval.high - interval.kappa, 1.959963984540054 * interval.se)
    assert str(interval) == "kappa 0.400 [0.151, 0.649]"
    wider = kappa_interval(found, z=3.0)
    assert wider.low < interval.low and wider.high > interval.high
    perfect = kappa_interval(kappa_table(["a", "b"], [[5, 0], [0, 5]]))
    assert (perfect.se, perfect.low, perfect.high) == (0.0, 1.0, 1.0)  # a normal interval collapses at kappa 1
    near = kappa_interval(kappa_table(["a", "b"], [[9, 1], [0, 1]]))
    assert near.high == 1.0 and near.low >= -1.0


@pytest.mark.parametrize("z", [0, -1.0, math.inf, math.nan, True, "2"])
def test_a_bad_z_is_refused(z: object) -> None:
    with pytest.raises(ValueError, match="z must be a positive number"):
        kappa_interval(kappa_table(["yes", "no"], [[20, 5], [10, 15]]), z=z)  # type: ignore[arg-type]


def test_an_undefined_kappa_has_no_standard_error() -> None:
    with pytest.raises(ValueError, match="kappa is undefined"):
        kappa_se(kappa_table(["pass"], [[5]]))
