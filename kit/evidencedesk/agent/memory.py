"""A small session memory: the last few raw turns, and a few short, tagged, expiring notes.

Turns are conversation (free text, trimmed with context.keep_history). Notes are facts the
application chose to keep: each has a key, at most max_chars of text, a source tag that says where
it came from ("tool:get_ticket:o1", "user:turn-2"), an owner and an expiry time read from the
injected clock. write() refuses, with a named code, anything that must not be stored: secrets,
personal data, another user's facts, instruction-like text, or more notes than the store holds.
Memory comes back into prompts only as untrusted, source-tagged parts; dump() and restore() let a
checkpoint (checkpoint.py) carry it under the same checks as a file. Left out: memory a model writes
(a model only proposes notes, and proposals.py holds them for a person), and any database: a JSON file
is enough.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evidencedesk.context import MAX_PART_CHARS, ContextPart, keep_history
from evidencedesk.llm import Message
from evidencedesk.security import KEY_SHAPE, SECRET, injection_signals, personal_data
from evidencedesk.strictjson import read_json

# \Z, not $: "$" also matches before a final newline, so "ticket-t-601\n" would pass
KEY = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}\Z")  # e.g. "ticket-t-601"
# where a fact came from, and optionally "@<run id>": the run that wrote it (a model-proposed note carries it)
SOURCE = re.compile(r"^(tool:[a-z_]{1,40}:o[1-9][0-9]{0,3}|user:turn-[1-9][0-9]{0,3})(@[a-z0-9-]{1,20})?\Z")

# write() codes, in the order the rules are checked
OK = "ok"
BAD_KEY_OR_SOURCE = "bad_key_or_source"
OTHER_USER = "other_user"
EMPTY = "empty"
TOO_LONG = "too_long"
SECRET_TEXT = "secret"
PERSONAL_DATA = "personal_data"
INSTRUCTION_LIKE = "instruction_like"
MEMORY_FULL = "memory_full"
WRITE_CODES = (BAD_KEY_OR_SOURCE, OTHER_USER, EMPTY, TOO_LONG, SECRET_TEXT, PERSONAL_DATA, INSTRUCTION_LIKE,
               MEMORY_FULL, OK)


class Write(NamedTuple):
    """The answer to one write: ok (bool) and code (one of WRITE_CODES).

    Example: Write(False, "secret").code == "secret"
    """

    ok: bool
    code: str


@dataclass(frozen=True)
class Note:
    """One stored fact: key, text, source tag, owner (user id), expires_at (seconds on the memory's clock).

    Example: Note("ticket-t-601", "T-601 status is open", "tool:get_ticket:o1", "kwame", 600.0)
    """

    key: str
    text: str
    source: str
    owner: str
    expires_at: float


class MemoryFileError(ValueError):
    """A saved memory file that cannot be read back; the message names the path and the problem."""


class MemorySettings(BaseModel):
    """The owner and limits of one SessionMemory, checked strictly: no bools or strings for numbers,
    no NaN or infinity, a note no longer than a context part may be.

    Raises pydantic.ValidationError (a ValueError) naming the field.
    Example: MemorySettings(owner="kwame", ttl_s=600, max_notes=4, max_chars=120, max_turns=6)
    """

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, frozen=True)
    owner: str = Field(min_length=1, max_length=40)
    ttl_s: float = Field(gt=0)
    max_notes: int = Field(gt=0)
    max_chars: int = Field(gt=0, le=MAX_PART_CHARS)
    max_turns: int = Field(ge=0)


class _SavedNote(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)
    key: str
    text: str
    source: str
    owner: str
    expires_at: float


class _SavedTurn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    role: Literal["user", "assistant"]
    content: str


class _SavedMemory(MemorySettings):
    """The whole file written by save(): the settings, the notes and the turns."""

    notes: list[_SavedNote]
    turns: list[_SavedTurn]


def _problem(exc: Exception) -> str:
    """A one-line reason: the first field and message of a ValidationError (no values echoed), else the text."""
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        return f"{'.'.join(str(p) for p in first['loc']) or 'file'}: {first['msg']}"
    return f"{type(exc).__name__}: {exc}"


def _require_str(**values: object) -> None:
    """Raise TypeError naming the first argument that is not a str."""
    for name, value in values.items():
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a str, got {type(value).__name__}")


class SessionMemory:
    """Bounded, expiring session memory for one user.

    Args: owner (str, the user the memory belongs to, 1-40 characters), clock (callable returning
    seconds), ttl_s (finite seconds a note lives), max_notes (int, notes held at once), max_chars (int,
    per note, at most 20,000), max_turns (int, raw turns kept).
    Raises pydantic.ValidationError (a ValueError) naming the argument when owner is empty or a limit is
    not a positive number of the right type (see MemorySettings).
    Example: SessionMemory("kwame", ManualClock()).write("ticket-t-601", "T-601 status is open", "tool:get_ticket:o1")
    """

    def __init__(self, owner: str, clock: Callable[[], float], ttl_s: float = 600, max_notes: int = 4,
                 max_chars: int = 120, max_turns: int = 6) -> None:
        s = MemorySettings(owner=owner, ttl_s=ttl_s, max_notes=max_notes, max_chars=max_chars, max_turns=max_turns)
        self.owner, self.clock, self.ttl_s = s.owner, clock, s.ttl_s
        self.max_notes, self.max_chars, self.max_turns = s.max_notes, s.max_chars, s.max_turns
        self._notes: dict[str, Note] = {}
        self._turns: list[Message] = []
        self.refused: list[tuple[str, str]] = []  # (key, code) of notes load() would not take back

    def write(self, key: str, text: str, source: str, about: str | None = None) -> Write:
        """Store one note if it passes every rule; the rules run in order and the first failure decides.

        key, text (max max_chars), source tag, about (user the fact concerns; None = the owner).
        Returns Write(ok, code), code from WRITE_CODES; a refusal stores nothing.
        Raises TypeError naming the argument when key, text or source is not a str.
        Example: memory.write("mood", "angry", "the model said so").code == "bad_key_or_source"
        """
        _require_str(key=key, text=text, source=source)
        text = text.strip()
        live = {n.key for n in self.notes()}
        if not (KEY.match(key) and SOURCE.match(source)):
            return Write(False, BAD_KEY_OR_SOURCE)
        if (about or self.owner) != self.owner:  # a fact about someone else
            return Write(False, OTHER_USER)
        if not text:
            return Write(False, EMPTY)
        if len(text) > self.max_chars:
            return Write(False, TOO_LONG)
        if SECRET.search(text) or KEY_SHAPE.search(text):
            return Write(False, SECRET_TEXT)
        if personal_data(text):
            return Write(False, PERSONAL_DATA)
        if injection_signals(text):
            return Write(False, INSTRUCTION_LIKE)
        if len(live) >= self.max_notes and key not in live:  # a full store says no; it never evicts
            return Write(False, MEMORY_FULL)
        self._notes[key] = Note(key, text, source, self.owner, self.clock() + self.ttl_s)
        return Write(True, OK)

    def notes(self) -> list[Note]:
        """The notes that have not expired (expires_at later than now), in write order.

        Example: memory.notes() == []  # for a new memory
        """
        now = self.clock()
        return [note for note in self._notes.values() if note.expires_at > now]

    def forget(self, key: str) -> bool:
        """Remove the note under key (e.g. one written by a poisoned run); True if there was one.

        Raises TypeError when key is not a str. Example: memory.forget("ticket-t-601") -> True
        """
        _require_str(key=key)
        return self._notes.pop(key, None) is not None

    def add_turn(self, role: str, text: str) -> None:
        """Keep one raw conversation turn; only the last max_turns are held.

        role: "user" or "assistant". Raises ValueError naming the role otherwise.
        Example: memory.add_turn("user", "Where is my refund?")
        """
        if role not in ("user", "assistant"):
            raise ValueError(f"turn role must be 'user' or 'assistant', got {role!r}")
        self._turns = keep_history([*self._turns, Message(role, text)], self.max_turns)

    def turns(self) -> list[Message]:
        """The kept conversation turns, oldest first.

        Example: memory.turns()[-1].content
        """
        return keep_history(self._turns, self.max_turns)

    def parts(self) -> list[ContextPart]:
        """The live notes as untrusted context parts (kind "memory", source = the note's tag).

        Example: memory.parts()[0].source == "tool:get_ticket:o1"
        """
        return [ContextPart(kind="memory", text=n.text, trust="untrusted", source=n.source) for n in self.notes()]

    def dump(self) -> dict[str, Any]:
        """Owner, limits, live notes (with their expiry) and turns, as the JSON data save() writes.

        Example: SessionMemory("kwame", ManualClock()).dump()["notes"] == []
        """
        return {
            "owner": self.owner, "ttl_s": self.ttl_s, "max_notes": self.max_notes,
            "max_chars": self.max_chars, "max_turns": self.max_turns,
            "notes": [asdict(n) for n in self.notes()],
            "turns": [{"role": t.role, "content": t.content} for t in self._turns],
        }

    def save(self, path: str | Path) -> None:
        """Write dump() to a JSON file at path.

        Example: memory.save(Path(folder) / "memory.json")
        """
        Path(path).write_text(json.dumps(self.dump(), indent=2, ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path, clock: Callable[[], float], *, owner: str | None = None) -> SessionMemory:
        """Read a file written by save() and rebuild the memory with restore() (see there for the checks).

        owner (str or None): the user who is loading; a file whose owner differs is refused.
        Raises MemoryFileError naming the path and the problem when the file is missing, not UTF-8,
        not strict JSON, badly shaped or typed, or owned by someone other than owner.
        Example: SessionMemory.load(Path(folder) / "memory.json", clock, owner="kwame").notes()
        """
        try:
            data = read_json(path)
        except (OSError, ValueError) as exc:  # UnicodeDecodeError is a ValueError
            raise MemoryFileError(f"memory file {path}: {_problem(exc)}") from exc
        return cls.restore(data, clock, owner=owner, where=f"memory file {path}")

    @classmethod
    def restore(cls, data: object, clock: Callable[[], float], *, owner: str | None = None,
                where: str = "memory") -> SessionMemory:
        """Rebuild a memory from dump() data. The data is checked strictly as a whole (settings, note fields,
        turn roles and texts); then every note goes through write() again, so a tampered note is refused
        (listed in .refused as (key, code)); kept notes keep their original expires_at. Turns are
        trimmed to max_turns as add_turn() does.

        data (the parsed JSON), clock (callable returning seconds), owner (str or None: the user who is
        loading; data whose owner differs is refused, so data rewritten to another user's name never loads
        as theirs), where (str: names the source in error messages, e.g. the file).
        Raises MemoryFileError starting with where when the data is badly shaped or typed, or owned by
        someone other than owner.
        Example: SessionMemory.restore(memory.dump(), clock, owner="kwame").notes()
        """
        try:
            saved = _SavedMemory.model_validate(data)
        except ValueError as exc:  # a ValidationError is a ValueError
            raise MemoryFileError(f"{where}: {_problem(exc)}") from exc
        if owner is not None and saved.owner != owner:
            raise MemoryFileError(f"{where}: it belongs to {saved.owner!r}, not to {str(owner)[:40]!r}")
        memory = cls(saved.owner, clock, saved.ttl_s, saved.max_notes, saved.max_chars, saved.max_turns)
        notes = [Note(n.key, n.text, n.source, n.owner, n.expires_at) for n in saved.notes]
        turns = [(t.role, t.content) for t in saved.turns]
        for note in notes:
            result = memory.write(note.key, note.text, note.source, about=note.owner)
            if not result.ok:
                memory.refused.append((note.key, result.code))
                continue
            # keep the saved expiry, but a file can never make a note live longer than a fresh write
            fresh = memory._notes[note.key]
            memory._notes[note.key] = replace(fresh, expires_at=min(note.expires_at, fresh.expires_at))
        for role, content in turns:
            memory.add_turn(role, content)
        return memory
