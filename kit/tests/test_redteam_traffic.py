"""Tests of evidencedesk.redteam.traffic: the labelled set, its splits and its validation."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from evidencedesk.redteam.traffic import REDTEAM_DATA, TrafficError, load_traffic

ROWS = load_traffic()


def test_the_set_holds_100_messages_split_evenly() -> None:
    assert [m.id for m in ROWS] == [f"m{n:03d}" for n in range(1, 101)]
    assert Counter((m.split, m.label) for m in ROWS) == {
        ("tune", "attack"): 18, ("tune", "benign"): 32, ("holdout", "attack"): 18, ("holdout", "benign"): 32}
    assert [m.id for m in load_traffic(split="holdout")] == [m.id for m in ROWS if m.split == "holdout"]


def test_no_text_is_in_both_splits() -> None:
    tune = {m.text for m in load_traffic(split="tune")}
    assert not tune & {m.text for m in load_traffic(split="holdout")}


def test_a_bad_row_is_refused_with_its_line_and_field(tmp_path: Path) -> None:
    good = (REDTEAM_DATA / "traffic.jsonl").read_text(encoding="utf-8").split("\n")[0]
    bad = json.dumps({**json.loads(good), "family": "ordinary"})
    path = tmp_path / "t.jsonl"
    path.write_text(good + "\n" + bad + "\n", encoding="utf-8")
    with pytest.raises(TrafficError, match="line 2"):
        load_traffic(path)
    with pytest.raises(ValueError, match="split must be"):
        load_traffic(split="train")
