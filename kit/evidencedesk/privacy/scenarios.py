"""The privacy scenario table: each control at its edges, one row per case, run as tests and on the page.

kit/data/privacy/scenarios.jsonl holds rows of five kinds. A "minimise" row holds a text and the known
names, and expects the text the model would receive. A "restore" row also holds the model's reply, and
expects the restored text and the placeholders missing and mangled. An "output" row holds a reply, the
known names and what the reader may see, and expects the verdict and the kinds found. A "canary" row holds
a reply to the safe system prompt of kit/data/privacy/prompts.json, in which "{canary}" stands for the
prompt's canary and "{canary_spaced}" for the canary split by spaces, and expects whether the canary is
found and how many runs of the prompt's words are copied. An "audit" row names a prompt of prompts.json
and expects audit_prompt's codes. run_scenario() says what a row produced; check_scenario() lists how that
differs from what the row expects. Left out: rows that call a model (the page runs the guarded path).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from evidencedesk.privacy.canary import canary_leaked, copied_runs, make_canary, with_canary
from evidencedesk.privacy.measure import PRIVACY_DATA
from evidencedesk.privacy.outputs import check_output
from evidencedesk.privacy.placeholders import Vault, minimise, restore
from evidencedesk.privacy.prompts import audit_prompt
from evidencedesk.strictjson import read_json, read_jsonl

PROMPT_ID = "harbourline-desk-v1"  # the id the canary of the safe prompt is made from
Names = Annotated[tuple[str, ...], Field(strict=False)]  # a JSON list, kept as a tuple


class ScenarioError(ValueError):
    """A row of the scenario table is malformed; the message names the line and the field."""


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    id: str = Field(pattern=r"^s[0-9]{2}$")
    why: str = Field(min_length=1, max_length=200)


class _Expect(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class MinimiseExpect(_Expect):
    text: str


class MinimiseRow(_Row):
    """A customer's text and the known names; the text the model receives."""

    kind: Literal["minimise"]
    text: str = Field(max_length=400)
    known_names: Names = ()
    expect: MinimiseExpect


class RestoreExpect(_Expect):
    text: str
    missing: Names
    mangled: Names


class RestoreRow(_Row):
    """A text minimised into a fresh vault, the model's reply, and what restoring it gives."""

    kind: Literal["restore"]
    text: str = Field(max_length=400)
    known_names: Names = ()
    reply: str = Field(max_length=400)
    expect: RestoreExpect


class OutputExpect(_Expect):
    verdict: Literal["pass", "redact", "block"]
    kinds: Names


class OutputRow(_Row):
    """A reply, the names to look for and the values the reader may see; the verdict and kinds expected."""

    kind: Literal["output"]
    reply: str = Field(max_length=400)
    known_names: Names = ()
    allowed: Names = ()
    expect: OutputExpect


class CanaryExpect(_Expect):
    leaked: bool
    copied: int = Field(ge=0)


class CanaryRow(_Row):
    """A reply to the safe prompt ("{canary}", "{canary_spaced}" filled in); canary found, runs copied."""

    kind: Literal["canary"]
    reply: str = Field(max_length=800)
    expect: CanaryExpect


class AuditExpect(_Expect):
    codes: Names


class AuditRow(_Row):
    """A prompt of prompts.json by name, and audit_prompt's codes, in order."""

    kind: Literal["audit"]
    prompt: Literal["leaky", "safe"]
    expect: AuditExpect


ROW = TypeAdapter(Annotated[Union[MinimiseRow, RestoreRow, OutputRow, CanaryRow, AuditRow],  # noqa: UP007
                            Field(discriminator="kind")])


def prompts() -> dict[str, str]:
    """The two system prompts of kit/data/privacy/prompts.json, "leaky" and "safe", without canaries.

    Example: prompts()["safe"].splitlines()[0]
    """
    return read_json(PRIVACY_DATA / "prompts.json")


def safe_prompt() -> tuple[str, str]:
    """The safe prompt with its canary's line first, and the canary: (system prompt, canary).

    Example: safe_prompt()[0].startswith("Prompt reference: cnry-")
    """
    canary = make_canary(PROMPT_ID)
    return with_canary(prompts()["safe"], canary), canary


def spaced(canary: str) -> str:
    """The canary with a space after every fourth character, as a model might write it. Example: spaced(c)"""
    return " ".join(canary[i:i + 4] for i in range(0, len(canary), 4))


def load_scenarios(path: str | Path | None = None) -> list[dict[str, Any]]:
    """Read and validate the scenario table (default kit/data/privacy/scenarios.jsonl); the rows as dicts.

    Raises ScenarioError naming the file when it cannot be read, and the line and field of a bad row
    (a repeated id too). Example: load_scenarios()[0]["id"] == "s01"
    """
    path = Path(path) if path is not None else PRIVACY_DATA / "scenarios.jsonl"
    return [row for _, row, _ in read_jsonl(path, ROW.validate_python, ScenarioError, "scenario table")]


def run_scenario(row: dict[str, Any]) -> dict[str, Any]:
    """Run one row and return what it produced, in the shape of its expect. Raises pydantic.ValidationError
    for a malformed row. Example: run_scenario(load_scenarios()[0])["text"]
    """
    checked = ROW.validate_python(row)
    if isinstance(checked, MinimiseRow):
        return {"text": minimise(checked.text, Vault(), checked.known_names).text}
    if isinstance(checked, RestoreRow):
        vault = Vault()
        minimise(checked.text, vault, checked.known_names)
        done = restore(checked.reply, vault)
        return {"text": done.text, "missing": done.missing, "mangled": done.mangled}
    if isinstance(checked, OutputRow):
        check = check_output(checked.reply, checked.known_names, checked.allowed)
        return {"verdict": check.verdict, "kinds": check.kinds}
    if isinstance(checked, CanaryRow):
        prompt, canary = safe_prompt()
        reply = checked.reply.replace("{canary_spaced}", spaced(canary)).replace("{canary}", canary)
        return {"leaked": canary_leaked(reply, canary), "copied": copied_runs(reply, prompt)}
    return {"codes": tuple(p.code for p in audit_prompt(prompts()[checked.prompt]))}


def check_scenario(row: dict[str, Any]) -> list[str]:
    """How a row's run differs from what it expects, one line per field (an empty list: it matches).

    Example: check_scenario(load_scenarios()[0]) == []
    """
    expect = ROW.validate_python(row).expect.model_dump()
    got = run_scenario(row)
    return [f"{row['id']} {name}: expected {want!r}, got {got[name]!r}" for name, want in expect.items()
            if got[name] != want]
