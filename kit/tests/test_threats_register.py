"""The register holds: every threat on a flow, with a control, an earlier page, a real test, real entries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencedesk.threats.flows import all_flows
from evidencedesk.threats.register import (COURSE_PAGES, FRAMEWORKS, STRIDE, THIS_PAGE, load_frameworks,
                                           load_residual, load_threats, node_exists, problems, uncovered,
                                           unnamed_flows)


def test_the_register_holds() -> None:
    assert problems(load_threats(), all_flows(), load_frameworks()) == []


def test_each_rule_is_enforced() -> None:
    good = load_threats()[0]
    bad = [good, good.model_copy(update={"flow": "agent:nowhere", "page": THIS_PAGE,
                                         "test": "kit/tests/test_gate.py::test_missing", "asi": ("ASI11",),
                                         "llm2026": ()})]
    found = problems(bad, all_flows(), load_frameworks())
    assert found == [f"{good.id}: the id is used twice", f"{good.id}: no flow agent:nowhere",
                     f"{good.id}: {THIS_PAGE} is not a page before this one",
                     f"{good.id}: no test kit/tests/test_gate.py::test_missing", f"{good.id}: asi has no entry ASI11",
                     f"{good.id}: an LLM entry in one edition needs one in the other"]


def test_node_exists_reads_the_source() -> None:
    assert node_exists("kit/tests/test_gate.py::test_an_allowed_read_runs_and_is_audited")
    assert not node_exists("kit/tests/test_gate.py::test_no_such_test")
    assert not node_exists("kit/tests/test_nowhere.py::test_x") and not node_exists("kit/tests/test_gate.py")


def test_every_stride_category_and_the_pages_come_before_this_one() -> None:
    threats = load_threats()
    assert {t.stride for t in threats} == set(STRIDE)
    assert THIS_PAGE not in COURSE_PAGES and len(COURSE_PAGES) == len(set(COURSE_PAGES)) == 28


def test_frameworks_have_ten_entries_and_what_nothing_maps_to_is_known() -> None:
    frameworks = load_frameworks()
    assert all(len(frameworks[k]["entries"]) == 10 for k in ("llm2025", "llm2026", "asi"))
    threats = load_threats()
    assert [uncovered(threats, frameworks, k) for k in FRAMEWORKS] == [["LLM09"], ["LLM07"], ["ASI07"], ["D2"]]


def test_residual_risks_are_named_and_explained() -> None:
    rows = load_residual()
    assert len(rows) == len({r.id for r in rows}) >= 6


def test_unnamed_flows_are_the_flows_no_threat_is_filed_under() -> None:
    threats, flows = load_threats(), all_flows()
    left = unnamed_flows(threats, flows)
    assert left and all(i.startswith(("sinks:", "tenancy:")) for i in left)
    assert unnamed_flows(threats[:1], flows) == [f.id for f in flows if f.id != threats[0].flow]
    assert unnamed_flows(threats, flows[:0]) == []


def test_a_bad_line_is_named(tmp_path: Path) -> None:
    row = json.loads((Path(__file__).parents[1] / "data/threats/threats.jsonl").read_text().splitlines()[0])
    row["stride"] = "X"
    (tmp_path / "t.jsonl").write_text(json.dumps(row) + "\n{not json\n")
    with pytest.raises(ValueError, match=r"t.jsonl: line 1: stride"):
        load_threats(tmp_path / "t.jsonl")
    (tmp_path / "f.json").write_text(json.dumps({"llm2025": {}}))
    with pytest.raises(ValueError, match="llm2025 needs title"):
        load_frameworks(tmp_path / "f.json")
