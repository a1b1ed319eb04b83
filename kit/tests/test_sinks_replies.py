"""Tests of evidencedesk.sinks.replies: the scripted hostile replies and the fake that says it is one."""

from __future__ import annotations

import json

import pytest

from evidencedesk.llm import LLMRequest, Message, ScriptExhausted
from evidencedesk.sinks.replies import FAKE_MODEL, ask, fake_model, load_replies


def test_every_reply_comes_back_unchanged_through_the_fake() -> None:
    for name, text in load_replies().items():
        assert ask(name) == text
    assert ask("path") == "../jonas/contract.txt"


def test_the_fake_names_itself_and_runs_out() -> None:
    model = fake_model("path", "json")
    request = LLMRequest(FAKE_MODEL, [Message("user", "?")], 50)
    assert model.model == FAKE_MODEL == "scripted-hostile"
    assert [model.complete(request).text for _ in range(2)] == [load_replies()["path"], load_replies()["json"]]
    with pytest.raises(ScriptExhausted):
        model.complete(request)


def test_unknown_names_and_bad_files_are_named(tmp_path) -> None:
    with pytest.raises(KeyError, match="nope"):
        fake_model("nope")
    with pytest.raises(ValueError, match="at least one"):
        fake_model()
    bad = tmp_path / "r.json"
    bad.write_text(json.dumps({"a": ""}), encoding="utf-8")
    with pytest.raises(ValueError, match="non-empty strings"):
        load_replies(bad)
