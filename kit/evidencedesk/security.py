"""Prompt injection and access boundaries: who is asking, what text looks like an instruction,
what looks like personal data or a secret, and how to keep secrets out of logs.

These checks are signals, not proof: a pattern list catches the obvious cases and misses rephrased
ones. The real boundary is code that limits what a run may do (gate.py); these helpers feed logs,
memory rules and tests. Every check reads text in its visible form (see visible()): Unicode NFKC, so
fullwidth "ｉｇｎｏｒｅ" reads as "ignore", with hidden characters (zero-width, bidi, tag and control
characters) removed; hidden characters are themselves an injection signal. Left out: authentication
itself, classifiers, look-alike letters from other scripts (Cyrillic "о" for Latin "o"; NFKC keeps
them apart), and data-loss prevention.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator
from typing import Annotated

from pydantic import ConfigDict, Field
from pydantic.dataclasses import dataclass

KEPT_CONTROLS = "\t\n\r"  # the only control characters a text may carry: tab, line feed, carriage return
# The default-ignorable code points that are not format characters (Unicode 15.1, DerivedCoreProperties.txt,
# https://www.unicode.org/Public/15.1.0/ucd/DerivedCoreProperties.txt): combining grapheme joiner, Hangul
# fillers, Khmer inherent vowels, Mongolian variation selectors, variation selectors, reserved code points,
# and the rest of the block U+E0000-U+E0FFF around the tag characters.
IGNORABLE = ((0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F), (0x2065, 0x2065),
             (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0xE0000, 0xE0FFF))


def _hidden_class() -> str:
    """A regex character class of the hidden characters: controls other than KEPT_CONTROLS, every format
    character (Unicode category Cf, which all lie in planes 0, 1 and 14) and IGNORABLE."""
    points = {c for c in range(0x20) if chr(c) not in KEPT_CONTROLS} | set(range(0x7F, 0xA0))
    planes = (range(0x20000), range(0xE0000, 0xE1000))
    points |= {c for plane in planes for c in plane if unicodedata.category(chr(c)) == "Cf"}
    points |= {c for low, high in IGNORABLE for c in range(low, high + 1)}
    ranges: list[list[int]] = []
    for c in sorted(points):  # runs of consecutive code points become ranges: a short class compiles fast
        if ranges and ranges[-1][1] == c - 1:
            ranges[-1][1] = c
        else:
            ranges.append([c, c])
    return "[" + "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in ranges) + "]"


# Characters a reader cannot see but a program (and a model) still reads.
HIDDEN = re.compile(_hidden_class())


def _text(value: object, name: str = "text") -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__}")
    return value


def visible(text: str) -> str:
    """The form in which every check reads text: hidden characters removed, then Unicode NFKC.

    NFKC folds compatibility forms into plain ones (fullwidth "ｉｇｎｏｒｅ" -> "ignore", the ligature "ﬁ" -> "fi",
    "＜" -> "<"); it does not turn a letter into its look-alike from another script (Cyrillic "о" stays).
    Applying it twice changes nothing.
    Args: text (str). Returns: str. Raises: TypeError for a non-str.
    Example: visible("ig\u200bnore ＡＬＬ") -> "ignore ALL"
    """
    text = HIDDEN.sub("", _text(text))
    return text if text.isascii() else unicodedata.normalize("NFKC", text)


class VisiblePattern:
    """A regular expression that only ever reads the visible form of a text (see visible()).

    Wrapping every pattern this way means no check can forget to normalise. search, fullmatch and
    finditer take the raw text and match its visible form; sub returns the visible form with the
    replacements made. Args: pattern (str), flags (re flags).
    Example: VisiblePattern(r"ignore", re.I).search("ｉｇｎｏｒｅ") is not None -> True
    """

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.regex = re.compile(pattern, flags)
        self.pattern, self.flags = self.regex.pattern, self.regex.flags

    def search(self, text: str) -> re.Match[str] | None:
        return self.regex.search(visible(text))

    def fullmatch(self, text: str) -> re.Match[str] | None:
        return self.regex.fullmatch(visible(text))

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self.regex.finditer(visible(text))

    def sub(self, replacement: str | Callable[[re.Match[str]], str], text: str) -> str:
        return self.regex.sub(replacement, visible(text))

    def __repr__(self) -> str:
        return f"VisiblePattern({self.pattern!r})"


# Signals of text that tries to steer the assistant. Case-insensitive; a hit is a reason to distrust.
SIGNALS: dict[str, VisiblePattern] = {
    "ignore_instructions": VisiblePattern(
        r"\b(ignore|disregard|forget|override)\s+(?:(?:all|any|the|previous|prior|earlier|above|your|of)\s+)*"
        r"(instructions?|polic(y|ies)|rules|guidelines)\b", re.I),
    "addressed_to_assistant": VisiblePattern(
        r"note to the (assistant|ai|model)|^\s*(assistant|system)\s*:|system prompt", re.I | re.M),
    "tool_request": VisiblePattern(r"\bcall\s+(the\s+)?[a-z]+_[a-z_]+\b|\b(use|call|run|invoke)\s+the\s+tool\b", re.I),
    "exfiltration": VisiblePattern(
        r"\b(e-?mail|send|forward|upload)\w*\b(?=.{0,160}\b(records?|customer data|all customers|database|passwords)\b)"
        r"(?=.{0,160}@)", re.I | re.S),
}
HIDDEN_CHARACTERS = "hidden_characters"  # the signal for text that carries characters a reader cannot see
EMAIL = VisiblePattern(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")
PHONE_CANDIDATE = VisiblePattern(r"(?<![\w.-])\+?\d[\d ()./-]{5,20}\d(?![\w-])")
ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
SECRET = VisiblePattern(r"\b(password|passwd|secret|api[_ -]?key|token)\b\s*(?:[:=]|\bis\b)\s*(\S+)", re.I)
# any case ("SK-SIM-..." is the same key), and to its last character: no \b at the end, or a key ending in "-"
# would be matched only up to its last letter, and not at all if that left fewer than 16 characters
KEY_SHAPE = VisiblePattern(r"\bsk-[A-Za-z0-9_-]{16,}", re.I)
# An address in a form that a browser, a mail client or a reader turns back into one: "@" percent-encoded (%40)
# or as an HTML character reference (&#64; &#x40; &commat;), with each "." plain or encoded the same ways; or "@"
# and every "." spelled in brackets, "[at]" and "(dot)" (a bracketed "at" beside a plain "." is ordinary text, as in
# "failed (at) handler.py"). The local part starts after no address character and is at most 64 long (RFC 5321
# section 4.5.3.1.1), so a long line with no address in it is read once, not once from every position.
_LOCAL = r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}"
_AT = r"(?:%40|&#0*64;|&#x0*40;|&commat;)"
_DOT = r"(?:\.|%2e|&#0*46;|&#x0*2e;|&period;)"
_SPELLED_AT, _SPELLED_DOT = r"\s*[\[(]\s*at\s*[\])]\s*", r"\s*[\[(]\s*dot\s*[\])]\s*"
ENCODED_EMAIL = VisiblePattern(
    rf"{_LOCAL}(?:{_AT}[A-Za-z0-9-]+(?:{_DOT}[A-Za-z0-9-]+)*{_DOT}"
    rf"|{_SPELLED_AT}[A-Za-z0-9-]+(?:{_SPELLED_DOT}[A-Za-z0-9-]+)*{_SPELLED_DOT})[A-Za-z]{{2,}}\b", re.I)
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


def injection_signals(text: str) -> list[str]:
    """Names of the injection signals found in text, in a fixed order; [] means none found.

    Signals: ignore_instructions, addressed_to_assistant, tool_request, exfiltration (see SIGNALS), matched
    on the visible form of the text; then hidden_characters, when the text carries any character in HIDDEN.
    Args: text (str). Raises: TypeError for a non-str.
    Example: injection_signals("Ｉｇｎｏｒｅ the rules.") -> ["ignore_instructions"]
    """
    hidden = [HIDDEN_CHARACTERS] if HIDDEN.search(_text(text)) else []
    return [name for name, pattern in SIGNALS.items() if pattern.search(text)] + hidden


def _is_phone(candidate: str) -> bool:
    digits = sum(ch.isdigit() for ch in candidate)
    separated = candidate.startswith("+") or any(ch in candidate for ch in " ()./-")
    return digits >= 7 and separated and not ISO_DATE.fullmatch(candidate)


def personal_data(text: str) -> list[str]:
    """Kinds of personal data found in text: "email" (any address), "phone" (7+ digits with separators or a +).

    Args: text (str). Returns: list of kinds in that order; [] means none found. Raises: TypeError for a non-str.
    Example: personal_data("reach him at kwame@gmail.com") -> ["email"]
    """
    text = visible(text)
    kinds = ["email"] if EMAIL.search(text) or ENCODED_EMAIL.search(text) else []
    if any(_is_phone(m.group(0)) for m in PHONE_CANDIDATE.finditer(text)):
        kinds.append("phone")
    return kinds


def redact_log(text: str) -> str:
    """Text safe for a log: its visible form (see visible()), with key-shaped strings in any case, secret
    values and e-mail addresses replaced by "[redacted]". Hidden characters never reach the log. An address
    also counts in the encoded forms of ENCODED_EMAIL (%40, &#64;, &commat;; "[at]" with "(dot)"), and so does a
    file name such as icon%402x.png. Not caught: an address in base64 or another encoding a reader cannot see
    through, split over two log lines or fields, spelled with bare words ("kwame at example dot org") or with only
    its "@" spelled ("kwame [at] example.org"), written with look-alike letters of another script, a real "@"
    beside an encoded dot; and personal data other than addresses and keys.

    Args: text (str). Returns: str. Raises: TypeError for a non-str.
    Example: redact_log("password: hunter2 for kwame@example.org") -> "password: [redacted] for [redacted]"
    """
    text = KEY_SHAPE.sub(REDACTED, text)
    text = SECRET.sub(lambda m: m.group(0)[: m.start(2) - m.start(0)] + REDACTED, text)
    return EMAIL.sub(REDACTED, ENCODED_EMAIL.sub(REDACTED, text))
