"""The retrieval scenario table: each row one question (or one edit) and what must come of it.

kit/data/retrieval/scenarios.jsonl holds one row per line. A row's kind says what it runs on the kit's
library (Library.load()): "search" (access.retrieve for the row's user), "rank_then_filter" (the wrong
order, to show its leak), "stats" (the row's question before and after another tenant's document is
added, with statistics over "global" chunks or over the "allowed" ones), "answer" (citations.
answer_question with a scripted model that returns the row's reply) or "rechunk" (one document edited,
and which chunk ids that changes). run_row() reports what happened; check_row() lists how that differs
from the fields the row expects. The model is llm.ScriptedClient: it tests the checks around a model,
never a model. Left out: the wire formats of real providers (calling/ covers them).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from evidencedesk.llm import ScriptedClient
from evidencedesk.retrieval.access import Library, filter_with_global_stats, may_read, rank_then_filter, retrieve
from evidencedesk.retrieval.bm25 import TOP_K, Hit
from evidencedesk.retrieval.chunking import RETRIEVAL_DATA, Document
from evidencedesk.retrieval.citations import answer_question
from evidencedesk.retrieval.prompt import signals
from evidencedesk.security import Session
from evidencedesk.strictjson import read_jsonl

KINDS = ("search", "rank_then_filter", "stats", "answer", "rechunk")
FOUND, EMPTY = "found", "empty"  # search: some chunks came back, or none
LEAK, NO_LEAK = "leak", "no_leak"  # rank_then_filter: some of the top k were dropped, or none
CHANGED, SAME = "score_changed", "score_same"  # stats: the user's hits or scores moved, or not
STABLE, UNSTABLE = "stable", "unstable"  # rechunk: every other document's chunk ids kept, or not


class ScenarioError(ValueError):
    """A row of the scenario table is malformed; the message names the line and the field."""


class Edit(BaseModel):
    """A rechunk row's edit: in document doc, replace the text old (which must occur) by new."""

    model_config = ConfigDict(extra="forbid", strict=True)
    doc: str = Field(min_length=1)
    old: str = Field(min_length=1)
    new: str = Field(min_length=1)


class Expect(BaseModel):
    """What a row expects: an outcome, and any of docs (document ids of the hits, in rank order), hidden,
    flagged (document ids with a flagged chunk), attempts (model calls) and changed (chunk ids changed).
    Only the fields a row gives are checked."""

    model_config = ConfigDict(extra="forbid", strict=True)
    outcome: str = Field(min_length=1)
    docs: list[str] | None = None
    hidden: int | None = Field(default=None, ge=0)
    flagged: list[str] | None = None
    attempts: int | None = Field(default=None, ge=0)
    changed: int | None = Field(default=None, ge=0)


class Scenario(BaseModel):
    """One row of scenarios.jsonl. Strict types: "3" is not an int. The fields a kind needs are required."""

    model_config = ConfigDict(extra="forbid", strict=True)
    id: Annotated[str, Field(pattern=r"^t[0-9]{2}$")]
    kind: Literal["search", "rank_then_filter", "stats", "answer", "rechunk"]
    user: Annotated[str, Field(max_length=40)] = ""
    question: Annotated[str, Field(max_length=200)] = ""
    k: Annotated[int, Field(ge=1, le=10)] = TOP_K
    stats: Literal["global", "allowed"] | None = None
    add: Document | None = None
    reply: str | None = None
    edit: Edit | None = None
    expect: Expect
    why: Annotated[str, Field(min_length=1)]

    @model_validator(mode="after")
    def fields_of_the_kind(self) -> Scenario:
        needs = {"stats": ("question", "stats", "add"), "answer": ("question", "reply"), "rechunk": ("edit",),
                 "search": ("question",), "rank_then_filter": ("question",)}[self.kind]
        missing = [name for name in needs if getattr(self, name) in (None, "")]
        if missing:
            raise ValueError(f"a {self.kind} row needs {', '.join(missing)}")
        return self


def load_rows(path: str | Path | None = None) -> list[dict[str, Any]]:
    """Read and validate the scenario table (one strict JSON object per line; blank lines skipped).

    Args: path (str or Path; default kit/data/retrieval/scenarios.jsonl). Returns: the rows as dicts, in order.
    Raises: ScenarioError naming the file, and the line and the field of a bad row or a repeated id.
    Example: load_rows()[0]["id"] -> "t01"
    """
    path = Path(path) if path is not None else RETRIEVAL_DATA / "scenarios.jsonl"
    return [row for _, row, _ in read_jsonl(path, Scenario.model_validate, ScenarioError, "scenario table")]


def _docs(hits: list[Hit]) -> list[str]:
    return [h.chunk.doc_id for h in hits]


def _flagged(hits: list[Hit]) -> list[str]:
    found = signals(hits)
    return list(dict.fromkeys(h.chunk.doc_id for h in hits if h.chunk.id in found))


def run_row(row: dict[str, Any], library: Library | None = None) -> dict[str, Any]:
    """Play one row on library (default Library.load()) and report what happened.

    Returns: {"outcome", "docs", "hidden", "flagged", "attempts", "changed"}; fields a kind does not use are
    [] or 0. Raises: pydantic.ValidationError for a malformed row; ValueError when a stats row adds a
    document its user may read (then it shows no side channel), or an edit's old text is not in its document.
    Example: run_row(load_rows()[0])["outcome"] -> "found"
    """
    s = Scenario.model_validate(row)
    library = library if library is not None else Library.load()
    session = Session(s.user)
    got: dict[str, Any] = {"outcome": "", "docs": [], "hidden": 0, "flagged": [], "attempts": 0, "changed": 0}
    if s.kind == "search":
        hits = retrieve(session, library, s.question, s.k)
        got.update(outcome=FOUND if hits else EMPTY, docs=_docs(hits), flagged=_flagged(hits))
    elif s.kind == "rank_then_filter":
        shown, hidden = rank_then_filter(session, library, s.question, s.k)
        got.update(outcome=LEAK if hidden else NO_LEAK, docs=_docs(shown), hidden=hidden)
    elif s.kind == "stats":
        assert s.add is not None  # fields_of_the_kind
        if may_read(session, s.add, library.tenants):
            raise ValueError(f"{s.id}: {s.user} may read {s.add.id}; a side channel needs a document they may not")
        rank = filter_with_global_stats if s.stats == "global" else retrieve
        before = [(h.chunk.id, h.score) for h in rank(session, library, s.question, s.k)]
        after_hits = rank(session, library.with_document(s.add), s.question, s.k)
        after = [(h.chunk.id, h.score) for h in after_hits]
        got.update(outcome=SAME if before == after else CHANGED, docs=_docs(after_hits))
    elif s.kind == "answer":
        assert s.reply is not None  # fields_of_the_kind
        outcome = answer_question(session, library, s.question, ScriptedClient([s.reply]), s.k)
        docs = [chunk_id.split("#", 1)[0] for chunk_id in outcome.retrieved]  # a chunk id starts with its document's
        flagged = [chunk_id.split("#", 1)[0] for chunk_id in outcome.flagged]
        got.update(outcome=outcome.reason, docs=docs, flagged=list(dict.fromkeys(flagged)), attempts=outcome.attempts)
    else:
        assert s.edit is not None  # fields_of_the_kind
        doc = next((d for d in library.documents if d.id == s.edit.doc), None)
        if doc is None or s.edit.old not in doc.text:
            raise ValueError(f"{s.id}: the text to edit is not in document {s.edit.doc!r}")
        edited = library.with_document(doc.model_copy(update={"text": doc.text.replace(s.edit.old, s.edit.new)}))
        before = {c.id for c in library.chunks}
        mine = [c.id for c in edited.chunks if c.doc_id == doc.id]
        others = [c.id for c in edited.chunks if c.doc_id != doc.id]
        got.update(outcome=STABLE if others == [c.id for c in library.chunks if c.doc_id != doc.id] else UNSTABLE,
                   changed=sum(1 for c in mine if c not in before))
    return got


def check_row(row: dict[str, Any], library: Library | None = None) -> list[str]:
    """Run a row and list how the run differs from the fields it expects ([] means it matches).

    Example: check_row(load_rows()[0]) -> []
    """
    expect = Scenario.model_validate(row).expect
    got = run_row(row, library)
    wanted = expect.model_dump(include=expect.model_fields_set)
    return [f"{row['id']} {name}: expected {value!r}, got {got[name]!r}" for name, value in wanted.items()
            if got[name] != value]
