"""Tests of evidencedesk.judging.pairs: the labelled pairs, their validation, and padding that adds no content."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from evidencedesk.judging.fakes import makes
from evidencedesk.judging.pairs import (
    A,
    B,
    FLUFF,
    JUDGING_DATA,
    LONGER_BY,
    TIE,
    Pair,
    PairError,
    is_longer,
    load_pairs,
    other,
    pad,
    word_count,
)

PAIRS = load_pairs()


def test_the_file_holds_24_pairs_with_their_labels() -> None:
    assert [p.id for p in PAIRS] == [f"p{n:02d}" for n in range(1, 25)]
    assert Counter(p.human for p in PAIRS) == {A: 11, B: 10, TIE: 3}


def test_every_point_is_made_by_one_answer_of_its_pair_at_least() -> None:
    for p in PAIRS:
        assert all(makes(p.a, point) or makes(p.b, point) for point in p.points), p.id


def test_answer_and_other_name_the_two_answers() -> None:
    pair = PAIRS[0]
    assert (pair.answer(A), pair.answer(B)) == (pair.a, pair.b)
    assert (other(A), other(B)) == (B, A)
    for bad in (TIE, "c", ""):
        with pytest.raises(ValueError, match="label must be 'a' or 'b'"):
            other(bad)
        with pytest.raises(ValueError, match="label must be 'a' or 'b'"):
            pair.answer(bad)


def good_row() -> dict:
    return json.loads((JUDGING_DATA / "pairs.jsonl").read_text(encoding="utf-8").splitlines()[0])


@pytest.mark.parametrize("change, field", [
    ({"human": "first"}, "human"),
    ({"b": good_row()["a"]}, "row"),
    ({"points": ['says "30 days"']}, "points.0"),
    ({"points": []}, "points"),
    ({"id": "q01"}, "id"),
    ({"weight": 2}, "weight"),
    ({"a": ""}, "a"),
])
def test_a_bad_row_is_named_by_line_and_field(tmp_path: Path, change: dict, field: str) -> None:
    path = tmp_path / "pairs.jsonl"
    path.write_text(json.dumps({**good_row(), "id": "p00"}) + "\n" + json.dumps({**good_row(), **change}) + "\n",
                    encoding="utf-8")
    with pytest.raises(PairError) as exc:
        load_pairs(path)
    assert str(exc.value).startswith(f"pairs.jsonl line 2: field {field}:")


def test_a_repeated_id_and_a_missing_file_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "pairs.jsonl"
    path.write_text(json.dumps(good_row()) + "\n" + json.dumps(good_row()) + "\n", encoding="utf-8")
    with pytest.raises(PairError, match="line 2: field id: repeated id 'p01'"):
        load_pairs(path)
    with pytest.raises(PairError, match="missing.jsonl: cannot read the pairs file"):
        load_pairs(tmp_path / "missing.jsonl")


def test_a_pair_is_frozen() -> None:
    with pytest.raises(ValueError, match="frozen"):
        PAIRS[0].human = B  # type: ignore[misc]


@pytest.mark.parametrize("text, than, longer", [
    ("one two three", "one two", True),  # 3 >= 1.5 * 2: the edge counts
    ("one two", "one two", False),
    ("one two three four", "one two three", False),  # 4 < 4.5
    ("one", "", True),
    ("", "", False),
])
def test_is_longer_needs_more_words_and_the_ratio(text: str, than: str, longer: bool) -> None:
    assert is_longer(text, than) is longer
    assert LONGER_BY == 1.5


def test_word_count_splits_on_whitespace() -> None:
    assert word_count("Yes,  within 30\ndays.") == 4 and word_count("") == 0


@pytest.mark.parametrize("pair", PAIRS, ids=[p.id for p in PAIRS])
def test_padding_either_answer_makes_it_longer_and_adds_no_point(pair: Pair) -> None:
    for answer, than in ((pair.a, pair.b), (pair.b, pair.a)):
        padded = pad(answer, than)
        assert padded.startswith(answer + " ") and is_longer(padded, than)
        assert [makes(padded, p) for p in pair.points] == [makes(answer, p) for p in pair.points]


def test_no_fluff_sentence_makes_any_point_or_holds_a_number() -> None:
    points = {point for p in PAIRS for point in p.points}
    assert not any(makes(sentence, point) for sentence in FLUFF for point in points)
    assert not any(ch.isdigit() for sentence in FLUFF for ch in sentence)


def test_pad_adds_one_sentence_at_least_and_repeats_the_fluff_when_needed() -> None:
    already = "one two three four five six seven eight nine ten"
    assert pad(already, "one") == f"{already} {FLUFF[0]}"
    long = pad("Yes.", " ".join(["word"] * 100))
    assert word_count(long) >= 150 and long.count(FLUFF[0]) >= 2
    assert pad("Yes.", "one two") == pad("Yes.", "one two")  # deterministic
