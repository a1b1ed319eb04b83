"""Finding personal data in text: each item's kind, where it is, and what it says.

find_personal_data() reads the visible form of a text (security.visible: hidden characters removed, then
NFKC) and returns a Detection: that visible text and the spans found in it, each an EMAIL (the Beginner
course's EMAIL pattern), a CARD (13 to 19 digits, optionally grouped by spaces or hyphens, that pass the
Luhn check), a PHONE (a candidate of security.PHONE_CANDIDATE that security.personal_data calls a phone)
or a NAME (only the names the caller already knows, such as the customer on the ticket, as whole words in
any case). Where two overlap, the earlier kind in KINDS wins. The detector is patterns and a list: it
finds what has a shape, and misses what has none. It finds no name it was not given, no street address,
nothing spelled out ("thandiwe at example dot org") or encoded (base64), and it takes any long grouped
number for a phone. measure.py counts what it finds and misses on a labelled set. Left out: named-entity
recognition, other kinds (addresses, national ids, bank accounts, dates of birth, IP addresses) and other
languages' conventions: a dedicated library such as Presidio does these with recognizers and models.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Annotated

from pydantic import ConfigDict, Field
from pydantic.dataclasses import dataclass

from evidencedesk.security import EMAIL, PHONE_CANDIDATE, personal_data, visible

EMAIL_KIND, CARD, PHONE, NAME = "EMAIL", "CARD", "PHONE", "NAME"
KINDS = (EMAIL_KIND, CARD, PHONE, NAME)  # the kinds the detector knows, in the order that wins an overlap
CARD_CANDIDATE = re.compile(r"(?<![\w-])\d(?:[ -]?\d){12,18}(?![\w-])")  # 13 to 19 digits, single separators
MIN_NAME = 2  # characters: a known name shorter than this would match inside ordinary words' neighbours


@dataclass(frozen=True, config=ConfigDict(extra="forbid"))
class Span:
    """One item found: kind (one of KINDS), start and end (int, character offsets into the visible text, end
    exclusive) and value (str, the text between them). Example: Span("EMAIL", 9, 30, "thandiwe@example.org")
    """

    kind: str
    start: Annotated[int, Field(ge=0)]
    end: Annotated[int, Field(ge=1)]
    value: Annotated[str, Field(min_length=1)]


@dataclass(frozen=True, config=ConfigDict(extra="forbid"))
class Detection:
    """What find_personal_data returns: text (str, the visible form that was read) and spans (tuple of Span,
    in order of start, none overlapping). kinds() lists the kinds found, in order. Example: detection.kinds()
    """

    text: str
    spans: tuple[Span, ...]

    def kinds(self) -> list[str]:
        """The kind of each span, in order of start. Example: find_personal_data("0 items").kinds() -> []"""
        return [span.kind for span in self.spans]


def luhn_ok(digits: str) -> bool:
    """True when a string of digits passes the Luhn check that payment card numbers carry.

    Doubling every second digit from the right, minus 9 when over 9, the sum ends in 0 (ISO/IEC 7812-1).
    Args: digits (str, digits only). Returns: bool (False for an empty or non-digit string).
    Example: luhn_ok("4111111111111111") -> True; luhn_ok("4111111111111112") -> False
    """
    if not isinstance(digits, str) or not digits.isascii() or not digits.isdigit():
        return False
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char) * (2 if position % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


def _names(known_names: Iterable[str]) -> list[str]:
    if isinstance(known_names, str):
        raise TypeError("known_names must be a list of names, not one str")
    names = []
    for name in known_names:
        if not isinstance(name, str) or len(name.strip()) < MIN_NAME:
            raise ValueError(f"each known name must be a str of at least {MIN_NAME} characters, got {name!r}")
        names.append(visible(name.strip()))
    return sorted(set(names), key=lambda n: (-len(n), n))  # longest first: "Sipho Dlamini" before "Sipho"


def _candidates(text: str, names: list[str]) -> list[Span]:
    found = [Span(EMAIL_KIND, m.start(), m.end(), m.group()) for m in EMAIL.regex.finditer(text)]
    found += [Span(CARD, m.start(), m.end(), m.group()) for m in CARD_CANDIDATE.finditer(text)
              if luhn_ok(re.sub(r"[ -]", "", m.group()))]
    found += [Span(PHONE, m.start(), m.end(), m.group()) for m in PHONE_CANDIDATE.regex.finditer(text)
              if personal_data(m.group()) == ["phone"]]
    for name in names:
        pattern = re.compile(rf"(?<!\w){re.escape(name)}(?!\w)", re.IGNORECASE)
        found += [Span(NAME, m.start(), m.end(), m.group()) for m in pattern.finditer(text)]
    return found


def find_personal_data(text: str, known_names: Iterable[str] = ()) -> Detection:
    """Find e-mail addresses, payment card numbers, phone numbers and the known names in a text.

    Args: text (str); known_names (list of str, each at least MIN_NAME characters): names the application
    already holds, such as the customer's, found as whole words in any case.
    Returns: Detection, whose spans index its visible text. Where spans overlap, the kind earlier in KINDS
    wins, then the earlier and longer span.
    Raises: TypeError for a text that is not a str, or a single str given as known_names; ValueError for a
    known name that is too short.
    Example: find_personal_data("Call +44 20 7946 0321").kinds() -> ["PHONE"]
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    shown = visible(text)
    order = {kind: rank for rank, kind in enumerate(KINDS)}
    chosen: list[Span] = []
    for span in sorted(_candidates(shown, _names(known_names)),
                       key=lambda s: (order[s.kind], s.start, -(s.end - s.start))):
        if all(span.end <= kept.start or span.start >= kept.end for kept in chosen):
            chosen.append(span)
    return Detection(shown, tuple(sorted(chosen, key=lambda s: s.start)))
