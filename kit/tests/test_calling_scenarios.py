"""Tests of evidencedesk.calling.scenarios: the twenty-row table, played through both invented providers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencedesk.calling.scenarios import (
    CALLING_DATA,
    USER,
    ScenarioError,
    TicketTriage,
    check_scenario,
    client_for,
    lab_gate,
    load_scenarios,
    run_scenario,
)
from evidencedesk.helpdesk import kit_tools

# what the course page shows: id -> (provider, outcome, requests, gate codes); no row sends an e-mail
EXPECTED = {
    "n01": ("alpha", "answered", 2, ["ok", "not_allowed", "invalid_arguments"]),
    "n02": ("beta", "answered", 2, ["ok", "ok"]), "n03": ("alpha", "answered", 2, ["not_allowed"]),
    "n04": ("beta", "answered", 3, ["invalid_arguments", "ok"]),
    "n05": ("alpha", "answered", 3, ["invalid_arguments", "ok"]), "n06": ("beta", "bad_request", 2, ["ok"]),
    "n07": ("alpha", "answered", 3, ["ok", "not_allowed"]), "n08": ("beta", "incomplete", 1, []),
    "n09": ("alpha", "round_limit", 3, ["ok", "ok", "ok"]), "n10": ("beta", "answered", 2, ["needs_approval"]),
    "n11": ("alpha", "ok", 1, []), "n12": ("beta", "ok", 2, []), "n13": ("alpha", "schema_mismatch", 2, []),
    "n14": ("beta", "incomplete", 1, []), "n15": ("alpha", "answered", 2, ["ok"]),
    "n16": ("beta", "answered", 2, ["ok"]), "n17": ("alpha", "truncated", 1, []), "n18": ("beta", "truncated", 1, []),
    "n19": ("alpha", "refused", 1, []), "n20": ("beta", "refused", 1, []),
}
ROWS = {row["id"]: row for row in load_scenarios()}


def test_table_has_the_twenty_rows_in_order_on_both_providers() -> None:
    assert list(ROWS) == list(EXPECTED)
    assert [row["provider"] for row in ROWS.values()] == ["alpha", "beta"] * 10
    assert all(row["why"] and row["expect"]["emails"] == 0 for row in ROWS.values())


@pytest.mark.parametrize("row_id", list(EXPECTED))
def test_row_runs_as_the_page_shows(row_id: str) -> None:
    got = run_scenario(ROWS[row_id])
    provider, outcome, requests, results = EXPECTED[row_id]
    assert ROWS[row_id]["provider"] == provider
    assert (got["outcome"], got["requests"], got["results"], got["emails"]) == (outcome, requests, results, 0)
    assert check_scenario(ROWS[row_id]) == []


def test_only_the_injected_ticket_is_flagged() -> None:
    flagged = {row_id: run_scenario(row)["flagged"] for row_id, row in ROWS.items()}
    assert {row_id: n for row_id, n in flagged.items() if n} == {"n07": 1}


def test_check_scenario_names_each_mismatch() -> None:
    row = {**ROWS["n06"], "expect": {"outcome": "answered", "requests": 1, "results": [], "flagged": 0, "emails": 0}}
    assert check_scenario(row) == ["n06 outcome: expected 'answered', got 'bad_request'",
                                   "n06 requests: expected 1, got 2", "n06 results: expected [], got ['ok']"]


def good_line() -> dict:
    return json.loads((CALLING_DATA / "scenarios.jsonl").read_text(encoding="utf-8").splitlines()[0])


@pytest.mark.parametrize(("change", "field"), [
    ({"provider": "gamma"}, "provider"), ({"kind": "stream"}, "kind"), ({"task": "refund"}, "task"),
    ({"grant": "yes"}, "grant"), ({"max_rounds": 0}, "max_rounds"), ({"max_rounds": "3"}, "max_rounds"),
    ({"script": []}, "script"), ({"script": [{"calls": [{"tool": "", "arguments": {}}]}]}, "script.0.calls.0.tool"),
    ({"expect": {"outcome": "fine", "requests": 1, "results": [], "flagged": 0, "emails": 0}}, "expect.outcome"),
    ({"id": "row-1"}, "id"), ({"colour": "red"}, "colour"),
    ({"provider": "beta", "script": [{"calls": [{"tool": "get_ticket", "arguments": "{}"}]}]}, "row"),
])
def test_bad_rows_name_line_and_field(tmp_path: Path, change: dict, field: str) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(good_line()) + "\n\n" + json.dumps({**good_line(), "id": "n02", **change}) + "\n")
    with pytest.raises(ScenarioError) as caught:
        load_scenarios(path)
    assert str(caught.value).startswith(f"rows.jsonl line 3: field {field}:")


def test_repeated_ids_and_bad_json_are_named(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(good_line()) + "\n" + json.dumps(good_line()) + "\n")
    with pytest.raises(ScenarioError, match="line 2: field id: repeated id 'n01'"):
        load_scenarios(path)
    path.write_text('{"id": "n01", "id": "n02"}\n')
    with pytest.raises(ScenarioError, match="line 1: not JSON \\(repeated key 'id'"):
        load_scenarios(path)


def test_the_lab_pieces() -> None:
    gate, outbox = lab_gate(grant=True)
    assert gate.policy.may_write("reply") and outbox.sent == [] and gate.registry.names() == kit_tools()[0].names()
    assert USER == "kwame" and TicketTriage.model_json_schema()["additionalProperties"] is False
    for provider in ("alpha", "beta"):
        client, server = client_for(provider, ["Yes."])
        assert client.provider == server.name == provider
    with pytest.raises(ValueError, match="provider must be one of"):
        client_for("gamma", [])
