"""The routing eval set, reply table, scripted verifier and Metered client (evidencedesk.routing.models)."""

from decimal import Decimal

import pytest

from evidencedesk.evals.cases import EVALS_DATA, load_cases
from evidencedesk.llm import LLMRequest, Message, ScriptedClient
from evidencedesk.routing.models import (
    VERIFIER_MODEL,
    Metered,
    NoRecordedScore,
    RoutingTableError,
    ScriptedVerifier,
    load_replies,
    load_route_cases,
    recorded,
)
from evidencedesk.usage import Ledger, ManualClock


def ask(question):
    return LLMRequest("small-model-1", [Message("system", "Be brief."), Message("user", question)], 50)


def test_the_eval_set_is_page_8s_thirty_then_the_extension():
    cases = load_route_cases()
    assert [c.id for c in cases[:30]] == [c.id for c in load_cases()]
    assert len(cases) == 300 and len({c.input for c in cases}) == 300


def test_the_cheap_replies_on_page_8s_cases_are_v2s():
    cases = load_cases()
    rows = load_replies(cases)
    from evidencedesk.evals.runner import configs
    v2 = configs(cases)["v2"].client
    assert all(v2.replies[c.input] == rows[c.id].cheap for c in cases)


def test_a_missing_reply_row_is_named(tmp_path):
    cases = load_cases()[:2]
    path = tmp_path / "replies.jsonl"
    path.write_text('{"id": "g01", "cheap": "a", "expensive": "b", "confidence": "0.50"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match="g02"):
        load_replies(cases, path)


def test_a_confidence_outside_0_to_1_is_refused_with_its_line(tmp_path):
    path = tmp_path / "replies.jsonl"
    path.write_text('{"id": "g01", "cheap": "a", "expensive": "b", "confidence": "1.50"}\n', encoding="utf-8")
    with pytest.raises(RoutingTableError, match="line 1"):
        load_replies(load_cases()[:1], path)


def test_a_case_repeated_across_the_two_files_is_refused(tmp_path):
    first = (EVALS_DATA / "cases.jsonl").read_text(encoding="utf-8").splitlines()[0]
    path = tmp_path / "cases.jsonl"
    path.write_text(first + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="unique"):
        load_route_cases(path)


def test_the_verifier_is_a_priced_call_on_the_verifier_model():
    ledger, clock = Ledger(), ManualClock()
    verifier = ScriptedVerifier({"Q?": ("refund", "0.93")}, lambda c: Metered(c, ledger, clock, 0.3, "verifier"))
    verdict = verifier.verify(ask("Q?"), "refund")
    assert verdict.confidence == Decimal("0.93") and clock() == 0.3
    assert [r.model for r in ledger.records] == [VERIFIER_MODEL] and ledger.summary().cost > 0


def test_the_verifier_refuses_a_reply_it_has_no_score_for():
    verifier = ScriptedVerifier({"Q?": ("refund", "0.93")})
    with pytest.raises(NoRecordedScore):
        verifier.verify(ask("Q?"), "delivery")
    with pytest.raises(NoRecordedScore):
        verifier.verify(ask("Other?"), "refund")


def test_metered_bills_the_model_it_asks_for_and_takes_its_time():
    ledger, clock = Ledger(), ManualClock()
    client = Metered(ScriptedClient(["ok"]), ledger, clock, 2.0, "expensive", "large-model-1")
    client.complete(ask("Q?"))
    assert clock() == 2.0 and ledger.records[0].model == "large-model-1" and ledger.records[0].call_id == "expensive-1"


def test_recorded_models_answer_by_question():
    cases = load_route_cases()[:3]
    cheap, expensive, scores = recorded(cases, load_replies(cases))
    assert cheap.model == "small-model-1" and expensive.model == "large-model-1"
    assert scores[cases[0].input][0] == cheap.replies[cases[0].input]
