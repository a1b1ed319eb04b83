"""Prompt injection and access boundaries: who is asking, what text looks like an instruction,
what looks like personal data or a secret, and how to keep secrets out of logs.

These checks are signals, not proof: a pattern list catches the obvious cases and misses rephrased
ones. The real boundary is code that limits what a run may do (gate.py); these helpers feed logs,
memory rules and tests. Left out: authentication itself, classifiers, and data-loss prevention.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import ConfigDict, Field
from pydantic.dataclasses import dataclass

# Signals of text that tries to steer the assistant. Case-insensitive; a hit is a reason to distrust.
SIGNALS: dict[str, re.Pattern[str]] = {
    "ignore_instructions": re.compile(
        r"\b(ignore|disregard|forget|override)\s+(?:(?:all|any|the|previous|prior|earlier|above|your|of)\s+)*"
        r"(instructions?|polic(y|ies)|rules|guidelines)\b", re.I),
    "addressed_to_assistant": re.compile(r"note to the (assistant|ai|model)|^\s*(assistant|system)\s*:|system prompt",
                                         re.I | re.M),
    "tool_request": re.compile(r"\bcall\s+(the\s+)?[a-z]+_[a-z_]+\b|\b(use|call|run|invoke)\s+the\s+tool\b", re.I),
    "exfiltration": re.compile(
        r"\b(e-?mail|send|forward|upload)\w*\b(?=.{0,160}\b(records?|customer data|all customers|database|passwords)\b)"
        r"(?=.{0,160}@)", re.I | re.S),
}
EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")
PHONE_CANDIDATE = re.compile(r"(?<![\w.-])\+?\d[\d ()./-]{5,20}\d(?![\w-])")
ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
SECRET = re.compile(r"\b(password|passwd|secret|api[_ -]?key|token)\b\s*(?:[:=]|\bis\b)\s*(\S+)", re.I)
KEY_SHAPE = re.compile(r"\bsk-[A-Za-z0-9_-]{16,}\b")
SIMULATED_SECRET = "sk-sim-" + "NOT-A-REAL-KEY-000000000"  # 24 characters after the prefix; invented for the course
REDACTED = "[redacted]"


@dataclass(frozen=True, config=ConfigDict(extra="forbid"))
class Session:
    """Who is asking and which tasks they may run. user_id "" means not signed in.

    Args: user_id (str, at most 40 characters); tasks (frozenset or tuple of str), stored as a frozenset.
    Raises: pydantic.ValidationError naming the field for a wrong type or a too-long user_id.
    Example: Session("kwame", ("triage",))
    """

    user_id: Annotated[str, Field(max_length=40, strict=True)]
    tasks: frozenset[str] = frozenset()


def can_read(session: Session, owner: str) -> bool:
    """True when a signed-in session belongs to owner (str). Example: can_read(Session("kwame"), "lena") -> False"""
    return bool(session.user_id) and session.user_id == owner


def _text(value: object, name: str = "text") -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__}")
    return value


def injection_signals(text: str) -> list[str]:
    """Names of the injection signals found in text, in a fixed order; [] means none found.

    Signals: ignore_instructions, addressed_to_assistant, tool_request, exfiltration (see SIGNALS).
    Args: text (str). Raises: TypeError for a non-str.
    Example: injection_signals("Ignore the rules.") -> ["ignore_instructions"]
    """
    text = _text(text)
    return [name for name, pattern in SIGNALS.items() if pattern.search(text)]


def _is_phone(candidate: str) -> bool:
    digits = sum(ch.isdigit() for ch in candidate)
    separated = candidate.startswith("+") or any(ch in candidate for ch in " ()./-")
    return digits >= 7 and separated and not ISO_DATE.fullmatch(candidate)


def personal_data(text: str) -> list[str]:
    """Kinds of personal data found in text: "email" (any address), "phone" (7+ digits with separators or a +).

    Args: text (str). Returns: list of kinds in that order; [] means none found. Raises: TypeError for a non-str.
    Example: personal_data("reach him at kwame@gmail.com") -> ["email"]
    """
    text = _text(text)
    kinds = ["email"] if EMAIL.search(text) else []
    if any(_is_phone(m.group(0)) for m in PHONE_CANDIDATE.finditer(text)):
        kinds.append("phone")
    return kinds


def redact_log(text: str) -> str:
    """Text safe for a log: key-shaped strings, secret values and e-mail addresses become "[redacted]".

    Args: text (str). Returns: str. Raises: TypeError for a non-str.
    Example: redact_log("password: hunter2 for kwame@example.org") -> "password: [redacted] for [redacted]"
    """
    text = KEY_SHAPE.sub(REDACTED, _text(text))
    text = SECRET.sub(lambda m: m.group(0)[: m.start(2) - m.start(0)] + REDACTED, text)
    return EMAIL.sub(REDACTED, text)
