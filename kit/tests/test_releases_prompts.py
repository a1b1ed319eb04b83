"""Prompt versions are named by their content; the registry never rebinds an id; labels move and roll back."""

import hashlib
import json

import pytest
from pydantic import ValidationError

from evidencedesk.releases.prompts import PROMPT_ID, PromptRegistry, PromptVersion, RegistryError

V = PromptVersion(template="Answer {goal}", model="desk-large-2026-09-14", temperature=0.0, max_tokens=200)


def test_the_id_is_the_hash_of_the_canonical_json_of_every_field():
    data = {"max_tokens": 200, "model": "desk-large-2026-09-14", "temperature": 0.0, "template": "Answer {goal}"}
    text = json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
    assert V.canonical() == text and V.sha256 == hashlib.sha256(text).hexdigest()
    assert V.id == "pv-" + V.sha256[:16] and PROMPT_ID.match(V.id)


@pytest.mark.parametrize("change", [{"template": "Answer {goal}."}, {"model": "desk-large-2026-11-20"},
                                    {"temperature": 0.7}, {"max_tokens": 201}])
def test_any_change_is_a_new_id_and_equal_content_the_same_id(change):
    assert V.model_copy(update=change).id != V.id
    assert PromptVersion(**V.model_dump()).id == V.id


def test_versions_are_frozen_and_checked():
    with pytest.raises(ValidationError):
        V.template = "x"
    with pytest.raises(ValidationError):
        PromptVersion(template="", model="m", temperature=0.0, max_tokens=1)
    with pytest.raises(ValidationError):
        PromptVersion(template="t", model="m", temperature=3.0, max_tokens=1, extra=1)


def test_adding_again_is_a_no_op_and_an_id_is_never_rebound():
    reg = PromptRegistry()
    assert reg.add(V) == reg.add(V) == V.id
    other = V.model_copy(update={"temperature": 0.5})
    with pytest.raises(RegistryError, match="ids are computed"):
        reg.put(V.id, other)
    reg._versions["pv-0000000000000000"] = other  # a record that was edited after it was stored
    with pytest.raises(RegistryError, match="ids are computed"):
        reg.put("pv-0000000000000000", V)
    assert reg.get(V.id) == V


def test_labels_move_keep_their_history_and_roll_back():
    reg = PromptRegistry()
    v2 = V.model_copy(update={"template": "Answer briefly {goal}"})
    reg.point("production", reg.add(V))
    reg.point("production", reg.add(v2))
    assert reg.resolve("production") == v2
    assert reg.rollback("production") == V.id and reg.resolve("production") == V
    assert reg.history("production") == (V.id, v2.id, V.id) and reg.get(v2.id) == v2


def test_refusals_name_the_problem():
    reg = PromptRegistry()
    with pytest.raises(RegistryError, match="no prompt version"):
        reg.point("production", "pv-ffffffffffffffff")
    reg.add(V)
    with pytest.raises(RegistryError, match="a label must match"):
        reg.point("Prod!", V.id)
    reg.point("canary", V.id)
    with pytest.raises(RegistryError, match="no earlier version"):
        reg.rollback("canary")
    with pytest.raises(RegistryError, match="no label"):
        reg.current("production")
