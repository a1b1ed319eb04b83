"""Tests of evidencedesk.privacy.measure: the labelled set's shape, the matching rule, and the page's counts."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from evidencedesk.privacy.detect import Detection
from evidencedesk.privacy.measure import (LABELS, PRIVACY_DATA, Counts, LabelError, Labelled, load_labelled, match,
                                          overall, score)


def test_the_set_has_38_texts_and_49_marked_items() -> None:
    rows = load_labelled()
    assert [r.id for r in rows] == [f"p{n:02d}" for n in range(1, 39)]
    assert Counter(m.kind for r in rows for m in r.entities) == {"EMAIL": 12, "PHONE": 11, "CARD": 5, "NAME": 16,
                                                                 "ADDRESS": 5}
    assert sum(1 for r in rows if r.tag == "trap" and not r.entities) == 8


def test_every_value_in_the_set_is_invented_in_the_kits_ranges() -> None:
    for row in load_labelled():
        for item in row.entities:
            if item.kind == "EMAIL" and "@" in item.value:
                assert item.value.casefold().endswith(("@example.org", "@example.com", "@example.net"))
            if item.kind == "PHONE" and item.value[0] in "+(0":
                assert "7946 0" in item.value or "79460" in item.value


def test_the_counts_by_kind() -> None:
    got = {kind: (c.found, c.missed, c.extra) for kind, c in score().items()}
    assert got == {"EMAIL": (10, 2, 0), "CARD": (5, 0, 1), "PHONE": (9, 2, 3), "NAME": (13, 3, 1), "ADDRESS": (0, 5, 0)}
    assert list(got) == list(LABELS)
    total = overall(score())
    assert (total.found, total.missed, total.extra) == (37, 12, 5)


def test_recall_and_precision_are_wilson_rates_or_none() -> None:
    counts = score()
    assert str(counts["EMAIL"].recall()) == "10/12 = 83.3% [55.2%, 95.3%]"
    assert counts["ADDRESS"].precision() is None and counts["ADDRESS"].recall().high < 0.5
    assert Counts().recall() is None


def test_an_overlapping_span_of_the_same_kind_counts_once() -> None:
    row = Labelled.model_validate({"id": "p99", "text": "ring (020) 7946 0112", "known_names": [],
                                   "entities": [{"kind": "PHONE", "value": "(020) 7946 0112"}], "tag": "plain"})
    assert match(row) == (["PHONE"], [], [])
    card = [{"kind": "CARD", "value": "(020) 7946 0112"}]
    wrong_kind = Labelled.model_validate({**row.model_dump(), "entities": card})
    assert match(wrong_kind) == ([], ["CARD"], ["PHONE"])


def first() -> dict:
    return json.loads((PRIVACY_DATA / "labelled.jsonl").read_text(encoding="utf-8").splitlines()[0])


@pytest.mark.parametrize("change, field", [
    ({"tag": "easy"}, "tag"),
    ({"entities": [{"kind": "IBAN", "value": "x"}]}, "entities.0.kind"),
    ({"entities": [{"kind": "NAME", "value": "Nobody Here"}]}, "row"),
    ({"id": "q01"}, "id"),
    ({"extra": 1}, "extra"),
])
def test_a_bad_row_is_named_by_line_and_field(tmp_path: Path, change: dict, field: str) -> None:
    path = tmp_path / "set.jsonl"
    bad = {**first(), "id": "p02", **change}
    path.write_text(json.dumps(first()) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    with pytest.raises(LabelError) as exc:
        load_labelled(path)
    assert str(exc.value).startswith(f"set.jsonl line 2: field {field}:")


def test_another_detector_can_be_scored_on_the_same_rows() -> None:
    def nothing(text, known_names):
        return Detection(text, ())

    counts = score(detector=nothing)
    assert all(c.found == c.extra == 0 for c in counts.values())
    assert sum(c.missed for c in counts.values()) == 49
