"""A small session memory: the last few raw turns, and a few short, tagged, expiring notes.

Turns are conversation (free text, trimmed with context.keep_history). Notes are facts the
application chose to keep: each has a key, at most max_chars of text, a source tag that says where
it came from ("tool:get_ticket:o1", "user:turn-2"), an owner and an expiry time read from the
injected clock. write() refuses, with a named code, anything that must not be stored: secrets,
personal data, another user's facts, instruction-like text, or more notes than the store holds.
Memory comes back into prompts only as untrusted, source-tagged parts. Left out: model-written
memory and memory poisoning across sessions (next page), and any database: a JSON file is enough.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import NamedTuple

from evidencedesk.context import ContextPart, keep_history
from evidencedesk.llm import Message
from evidencedesk.security import KEY_SHAPE, SECRET, injection_signals, personal_data

KEY = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")  # e.g. "ticket-t-601"
SOURCE = re.compile(r"^(tool:[a-z_]{1,40}:o[1-9][0-9]{0,3}|user:turn-[1-9][0-9]{0,3})$")  # where a fact came from

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


def _require_str(**values: object) -> None:
    """Raise TypeError naming the first argument that is not a str."""
    for name, value in values.items():
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a str, got {type(value).__name__}")


class SessionMemory:
    """Bounded, expiring session memory for one user.

    Args: owner (str, the user the memory belongs to), clock (callable returning seconds),
    ttl_s (seconds a note lives), max_notes (int, notes held at once), max_chars (int, per note),
    max_turns (int, raw turns kept).
    Raises ValueError naming the argument when owner is empty or a limit is not positive.
    Example: SessionMemory("kwame", ManualClock()).write("ticket-t-601", "T-601 status is open", "tool:get_ticket:o1")
    """

    def __init__(self, owner: str, clock: Callable[[], float], ttl_s: float = 600, max_notes: int = 4,
                 max_chars: int = 120, max_turns: int = 6) -> None:
        if not owner:
            raise ValueError("owner must be a non-empty user id")
        for name, value in (("ttl_s", ttl_s), ("max_notes", max_notes), ("max_chars", max_chars)):
            if value <= 0:
                raise ValueError(f"{name} must be > 0, got {value!r}")
        if max_turns < 0:
            raise ValueError(f"max_turns must be >= 0, got {max_turns!r}")
        self.owner, self.clock, self.ttl_s = owner, clock, ttl_s
        self.max_notes, self.max_chars, self.max_turns = max_notes, max_chars, max_turns
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

    def save(self, path: str | Path) -> None:
        """Write owner, limits, live notes (with their expiry) and turns to a JSON file at path.

        Example: memory.save(Path(folder) / "memory.json")
        """
        data = {
            "owner": self.owner, "ttl_s": self.ttl_s, "max_notes": self.max_notes,
            "max_chars": self.max_chars, "max_turns": self.max_turns,
            "notes": [asdict(n) for n in self.notes()],
            "turns": [{"role": t.role, "content": t.content} for t in self._turns],
        }
        Path(path).write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path, clock: Callable[[], float]) -> SessionMemory:
        """Read a file written by save(). Every note goes through write() again, so a tampered note is
        refused (listed in .refused as (key, code)); kept notes keep their original expires_at.

        Raises MemoryFileError naming the path when the file is missing, not JSON or badly shaped.
        Example: SessionMemory.load(Path(folder) / "memory.json", clock).notes()
        """
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            memory = cls(data["owner"], clock, data["ttl_s"], data["max_notes"], data["max_chars"], data["max_turns"])
            notes = [Note(**n) for n in data["notes"]]
            turns = [(t["role"], t["content"]) for t in data["turns"]]
            for note in notes:
                if not all(isinstance(v, str) for v in (note.key, note.text, note.source, note.owner)):
                    raise TypeError(f"note {note.key!r} has a field that is not text")
                if isinstance(note.expires_at, bool) or not isinstance(note.expires_at, (int, float)):
                    raise TypeError(f"note {note.key!r} has no numeric expires_at")
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise MemoryFileError(f"memory file {path}: {exc}") from exc
        for note in notes:
            result = memory.write(note.key, note.text, note.source, about=note.owner)
            if not result.ok:
                memory.refused.append((note.key, result.code))
                continue
            # keep the saved expiry, but a file can never make a note live longer than a fresh write
            fresh = memory._notes[note.key]
            memory._notes[note.key] = replace(fresh, expires_at=min(float(note.expires_at), fresh.expires_at))
        for role, content in turns:
            memory.add_turn(role, content)
        return memory
