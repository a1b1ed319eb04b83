"""Tests of evidencedesk.evals.runner: the recorded fake, one run per configuration, and what a run counts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencedesk.evals.cases import EVALS_DATA, GoldenCase, grade_case, load_cases
from evidencedesk.evals.graders import INCOMPLETE, PASS, Grade
from evidencedesk.evals.runner import (
    MAX_TOKENS,
    PROMPTS,
    Config,
    NoRecordedReply,
    RecordedModel,
    ReplyTableError,
    configs,
    run_eval,
)
from evidencedesk.llm import LENGTH, STOP, LLMRequest, LLMResponse, Message, ToolCall

CASES = load_cases()
CONFIGS = configs(CASES)
RUNS = {name: run_eval(CASES, config) for name, config in CONFIGS.items()}


def ask(question: str, prompt: str = "Be brief.", max_tokens: int = 50) -> LLMRequest:
    return LLMRequest("small-model-1", [Message("system", prompt), Message("user", question)], max_tokens)


def test_the_recorded_model_answers_by_question_and_never_reads_the_prompt() -> None:
    model = RecordedModel({"Category?": "refund"})
    assert model.complete(ask("Category?", "Answer in French.")).text == "refund"
    assert model.complete(ask("Category?", "Answer in one word.")).stop_reason == STOP
    with pytest.raises(NoRecordedReply, match="no recorded reply for 'Labels\\?'"):
        model.complete(ask("Labels?"))
    assert len(model.requests) == 3  # the refused request is kept too


def test_the_recorded_model_cuts_a_reply_at_the_allowance_as_a_model_does() -> None:
    cut = RecordedModel({"Why?": "because " * 20}).complete(ask("Why?", max_tokens=2))
    assert (cut.text, cut.stop_reason) == ("because ", LENGTH)


def test_the_two_configurations_pass_21_and_26_of_30() -> None:
    assert list(CONFIGS) == ["v1", "v2"] and CONFIGS["v2"].prompt == PROMPTS["v2"]
    assert [(r.config, r.passed, r.total) for r in RUNS.values()] == [("v1", 21, 30), ("v2", 26, 30)]
    assert RUNS["v1"].codes() == {"mismatch": 6, "citation_not_allowed": 1, "no_citation": 1, "not_json": 1}
    assert RUNS["v2"].codes() == {"citation_not_allowed": 1, "mismatch": 1, "not_a_number": 1, "schema": 1}


def test_a_run_keeps_every_reply_and_grade_in_case_order() -> None:
    v2 = RUNS["v2"]
    assert [r.case_id for r in v2.results] == [c.id for c in CASES]
    g17 = v2.result("g17")
    assert (g17.reply, g17.grade.code, g17.tags) == ("€18.50", "not_a_number", ("refund", "amount"))
    with pytest.raises(KeyError, match="g99"):
        v2.result("g99")


def test_by_tag_counts_passes_and_cases_per_tag() -> None:
    assert RUNS["v1"].by_tag() == {"account": (3, 3), "amount": (3, 3), "delivery": (8, 13), "other": (1, 2),
                                   "refund": (6, 9), "warranty": (2, 2)}
    assert RUNS["v2"].by_tag()["amount"] == (2, 3)


def test_every_request_sends_the_prompt_then_the_input_with_the_allowance() -> None:
    model = CONFIGS["v1"].client
    request = model.requests[0]  # type: ignore[attr-defined]
    assert [m.role for m in request.messages] == ["system", "user"] and request.max_tokens == MAX_TOKENS
    assert (request.messages[0].content, request.messages[1].content) == (PROMPTS["v1"], CASES[0].input)


def test_a_cut_reply_is_incomplete_and_never_reaches_the_grader() -> None:
    seen: list[str] = []

    def spy(case: GoldenCase, reply: str) -> Grade:
        seen.append(case.id)
        return grade_case(case, reply)

    long = RecordedModel({CASES[0].input: "refund " * 200, CASES[1].input: "delivery"})
    run = run_eval(CASES[:2], Config("long", "Explain.", long), grader=spy)
    assert [r.grade.code for r in run.results] == [INCOMPLETE, PASS] and seen == ["g02"]
    assert run.results[0].grade.reason == "stop_reason length: not an answer"


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (LLMResponse("refund", "scripted-1", tool_calls=(ToolCall("c1", "get_ticket", {"ticket_id": "T-501"}),)),
         "tool calls with stop_reason stop: not an answer"),  # a forced call comes back with "stop"
        (LLMResponse("", "scripted-1", refusal="I cannot help with that."),
         "a refusal with stop_reason stop: not an answer"),
    ],
)
def test_calls_or_a_refusal_with_stop_are_incomplete_and_never_reach_the_grader(reply, reason) -> None:
    class Replies:
        def complete(self, request: LLMRequest) -> LLMResponse:
            return reply

    seen: list[str] = []
    run = run_eval(CASES[:1], Config("calls", "Explain.", Replies()),
                   grader=lambda case, text: seen.append(case.id) or grade_case(case, text))
    assert [r.grade.code for r in run.results] == [INCOMPLETE] and seen == []
    assert run.results[0].grade.reason == reason


def test_a_grader_of_ones_own_takes_the_place_of_grade_case() -> None:
    def everything_passes(case: GoldenCase, reply: str) -> Grade:
        return Grade(True, PASS, "no check at all")

    assert run_eval(CASES, CONFIGS["v1"], grader=everything_passes).passed == 30


def test_runs_are_the_same_every_time() -> None:
    again = run_eval(CASES, configs(CASES)["v1"])
    assert again == RUNS["v1"]


def test_repeated_case_ids_are_refused() -> None:
    with pytest.raises(ValueError, match="case ids must be unique, got \\['g01'\\]"):
        run_eval([CASES[0], CASES[0]], CONFIGS["v1"])


def test_replies_and_cases_must_match_one_to_one(tmp_path: Path) -> None:
    lines = (EVALS_DATA / "replies.jsonl").read_text(encoding="utf-8").splitlines()
    path = tmp_path / "replies.jsonl"
    path.write_text("\n".join(lines[1:]) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="no reply for \\['g01'\\], no case for \\[\\]"):
        configs(CASES, path)
    path.write_text("\n".join(lines) + "\n" + json.dumps({"id": "g31", "v1": "a", "v2": "b"}) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="no case for \\['g31'\\]"):
        configs(CASES, path)
    path.write_text(lines[0] + "\n" + json.dumps({"id": "g02", "v1": "a"}) + "\n", encoding="utf-8")
    with pytest.raises(ReplyTableError, match="replies.jsonl line 2: field v2: Field required"):
        configs(CASES, path)


def test_two_cases_with_one_input_are_refused(tmp_path: Path) -> None:
    twin = CASES[1].model_copy(update={"input": CASES[0].input})
    path = tmp_path / "replies.jsonl"
    path.write_text("\n".join((EVALS_DATA / "replies.jsonl").read_text(encoding="utf-8").splitlines()[:2]) + "\n",
                    encoding="utf-8")
    assert list(configs(CASES[:2], path)) == ["v1", "v2"]
    with pytest.raises(ValueError, match="two cases ask the same input"):
        configs([CASES[0], twin], path)
