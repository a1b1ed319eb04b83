"""Versioned prompts: an id computed from the content, a registry that never overwrites, labels that move.

A PromptVersion is everything that decides what the model is asked: the template, the model id, and
the sampling parameters (temperature, max_tokens). Its id is "pv-" plus the first ID_HEX hex digits of
the SHA-256 of a canonical serialisation (JSON with sorted keys, no spaces, UTF-8). So the same content
always gets the same id, on every machine, and any change (a word of the template, the temperature, the
model snapshot) is a new version with a new id. The registry stores versions by id and refuses to bind
an id to other content. Labels ("production", "canary") are the only things that move: promoting or
rolling back points a label at another id, and each label keeps its history, so rolling back is
pointing it at the id it held before. The same idea as a provider's model alias over dated snapshots,
and as a git tag over commits. Left out: storage on disk, who may move a label, and template rendering.
"""

from __future__ import annotations

import hashlib
import json
import re

from pydantic import BaseModel, ConfigDict, Field

ID_HEX = 16  # hex digits kept of the SHA-256: 64 bits, ample for one team's prompts; the full hash is kept too
LABEL = r"^[a-z][a-z0-9-]{0,31}$"  # a label: "production", "canary"
PROMPT_ID = re.compile(rf"^pv-[0-9a-f]{{{ID_HEX}}}$")


class RegistryError(ValueError):
    """The registry refused: an id bound to other content, an unknown id or label, or nothing to roll back to."""


class PromptVersion(BaseModel):
    """One version of a prompt: template (str), model (str, a pinned snapshot id), temperature (float, 0 to 2),
    max_tokens (int, output allowance in tokens). Frozen; unknown fields are refused.

    Example: PromptVersion(template="Answer {goal}", model="desk-large-2026-09-14", temperature=0, max_tokens=200)
    """

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    template: str = Field(min_length=1)
    model: str = Field(min_length=1, max_length=80)
    temperature: float = Field(ge=0, le=2)
    max_tokens: int = Field(ge=1)

    def canonical(self) -> bytes:
        """The bytes that are hashed: every field, as JSON, keys sorted,
        no spaces, UTF-8."""
        fields = self.model_dump(mode="json")
        text = json.dumps(fields, sort_keys=True, separators=(",", ":"),
                          ensure_ascii=False)
        return text.encode("utf-8")

    @property
    def sha256(self) -> str:
        """The full SHA-256 of canonical(), as 64 hex digits."""
        return hashlib.sha256(self.canonical()).hexdigest()

    @property
    def id(self) -> str:
        """The content-addressed id: "pv-" and ID_HEX hex digits."""
        return f"pv-{self.sha256[:ID_HEX]}"


class PromptRegistry:
    """Versions by id, never overwritten, and labels that point at ids, each with its history.

    Example: reg = PromptRegistry(); reg.point("production", reg.add(v1)); reg.resolve("production") == v1
    """

    def __init__(self) -> None:
        self._versions: dict[str, PromptVersion] = {}
        self._labels: dict[str, list[str]] = {}  # label -> every id it has pointed at, oldest first

    def add(self, version: PromptVersion) -> str:
        """Store version under its id and return the id. Adding the same content again is a no-op.

        Raises RegistryError if the id is already bound to other content (a truncated-hash collision).
        Example: reg.add(v1) -> "pv-..."
        """
        if not isinstance(version, PromptVersion):
            raise RegistryError(f"expected a PromptVersion, got {type(version).__name__}")
        return self.put(version.id, version)

    def put(self, version_id: str, version: PromptVersion) -> str:
        """Store version under version_id, which must be its own id; an id is never rebound.

        Raises RegistryError for an id that is not version.id (a hand-made id, a record edited after it
        was hashed) or that already holds other content. Example: reg.put(v1.id, v1) -> v1.id
        """
        if version_id != version.id:
            raise RegistryError(f"{version_id!r} is not the id of this content ({version.id}); ids are computed")
        held = self._versions.setdefault(version_id, version)
        if held != version:
            raise RegistryError(f"{version_id} already holds other content; a version is never overwritten")
        return version_id

    def get(self, version_id: str) -> PromptVersion:
        """The version stored under version_id. Raises RegistryError for an unknown id."""
        if version_id not in self._versions:
            raise RegistryError(f"no prompt version {str(version_id)[:40]!r}")
        return self._versions[version_id]

    def point(self, label: str, version_id: str) -> None:
        """Point label (str, LABEL) at a stored version. Raises RegistryError for a bad label or unknown id."""
        if not isinstance(label, str) or not re.fullmatch(LABEL, label):
            raise RegistryError(f"a label must match {LABEL}, got {str(label)[:40]!r}")
        self.get(version_id)
        history = self._labels.setdefault(label, [])
        if not history or history[-1] != version_id:
            history.append(version_id)

    def resolve(self, label: str) -> PromptVersion:
        """The version label points at now. Raises RegistryError for an unknown label."""
        return self.get(self.current(label))

    def current(self, label: str) -> str:
        """The id label points at now. Raises RegistryError for an unknown label."""
        if label not in self._labels:
            raise RegistryError(f"no label {str(label)[:40]!r}")
        return self._labels[label][-1]

    def history(self, label: str) -> tuple[str, ...]:
        """Every id label has pointed at, oldest first (the last is current). Empty for an unknown label."""
        return tuple(self._labels.get(label, ()))

    def rollback(self, label: str) -> str:
        """Point label back at the id it held before the current one.

        Returns that id. Nothing is deleted: the id rolled back from stays
        stored, and the move is added to the history. Raises RegistryError
        when the label has no earlier id. Example: reg.rollback("production")
        """
        history = self.history(label)
        if len(history) < 2:
            raise RegistryError(f"label {str(label)[:40]!r} has no earlier "
                                "version to roll back to")
        previous = history[-2]
        self._labels[label].append(previous)
        return previous
