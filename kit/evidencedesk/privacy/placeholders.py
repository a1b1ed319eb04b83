"""Reversible placeholders: personal data out of the prompt, and back into the reply.

minimise() replaces each item detect.find_personal_data finds with a placeholder such as <EMAIL_1>, and
records the pair in a Vault, which stays with the application: the model reads <EMAIL_1>, never the
address. The same value gets the same placeholder every time, so the model can still tell two people
apart. Text in the input that already looks like a placeholder is itself replaced (by <TEXT_n>), so a
user who types "<EMAIL_1>" gets back what they typed, never someone's address. restore() puts the values
back into the model's reply, and says what it could not do: a placeholder of the vault that the reply
dropped (missing), and anything that looks like a placeholder but is not one of the vault's, whether the
model invented it or rephrased one ("EMAIL_1", "<email 1>"): mangled, left as written. restore_html() is
for a reply that becomes HTML: the reply and the restored values are escaped (MarkupSafe), since a
restored value is data from outside and an HTML page is a sink. Left out: keeping the vault (it holds the
very data it hides: keep it as you keep the records it came from, and only as long as the conversation),
format-preserving or encrypted placeholders, and placeholders across conversations.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from markupsafe import Markup, escape
from pydantic import ConfigDict
from pydantic.dataclasses import dataclass

from evidencedesk.privacy.detect import KINDS, find_personal_data

LITERAL = "TEXT"  # the kind of a placeholder that stands for placeholder-shaped text the user typed
MAX_PER_KIND = 9999  # placeholders of one kind in one vault: <EMAIL_9999> at most
PLACEHOLDER = re.compile(r"<([A-Z]{2,8})_([1-9][0-9]{0,3})>")  # exactly what minimise writes: <EMAIL_1>
_KIND = "(?:" + "|".join((*KINDS, LITERAL)) + ")"
# what a model may make of a placeholder: in brackets, any case, a space or hyphen for the underscore
# ("<email 1>"); or the brackets lost but the capitals and underscore kept ("EMAIL_1")
NEAR = re.compile(rf"<[ \t]*(?i:{_KIND})[ _-]?[0-9]{{1,4}}[ \t]*>|\b{_KIND}_[0-9]{{1,4}}\b")


class Vault:
    """The application's record of which placeholder stands for which value, for one conversation.

    placeholder(kind, value) returns the value's placeholder, making one if needed; value(placeholder)
    returns the value or None; items() lists (placeholder, value) in the order they were made.
    Raises (placeholder): ValueError for an unknown kind, an empty value, or more than MAX_PER_KIND of a kind.
    Example: Vault().placeholder("EMAIL", "thandiwe@example.org") -> "<EMAIL_1>"
    """

    def __init__(self) -> None:
        self._values: dict[str, str] = {}  # placeholder -> value
        self._placeholders: dict[tuple[str, str], str] = {}  # (kind, value) -> placeholder
        self._counts: dict[str, int] = {}

    def placeholder(self, kind: str, value: str) -> str:
        """The placeholder (str) for value (str, non-empty) of kind (one of detect.KINDS, or LITERAL), made on
        first use. Raises ValueError as the class says. Example: vault.placeholder("PHONE", "+44 20 7946 0321")
        """
        if kind not in (*KINDS, LITERAL):
            raise ValueError(f"kind must be one of {(*KINDS, LITERAL)}, got {str(kind)[:20]!r}")
        if not isinstance(value, str) or not value:
            raise ValueError("value must be a non-empty str")
        key = (kind, value.casefold() if kind == "EMAIL" else value)  # an address's case does not matter
        if key not in self._placeholders:
            number = self._counts.get(kind, 0) + 1
            if number > MAX_PER_KIND:
                raise ValueError(f"more than {MAX_PER_KIND} values of kind {kind} in one vault")
            self._counts[kind] = number
            self._placeholders[key] = f"<{kind}_{number}>"
            self._values[self._placeholders[key]] = value
        return self._placeholders[key]

    def value(self, placeholder: str) -> str | None:
        """The value a placeholder (str) stands for, or None for one this vault never made.

        Example: vault.value("<EMAIL_1>") -> "thandiwe@example.org"
        """
        return self._values.get(placeholder)

    def items(self) -> list[tuple[str, str]]:
        """Every (placeholder, value) pair, in the order made. Example: vault.items()[0] -> ("<NAME_1>", "Sipho")"""
        return list(self._values.items())


@dataclass(frozen=True, config=ConfigDict(extra="forbid"))
class Minimised:
    """What minimise returns: text (str, the visible form with placeholders) and placeholders (tuple of str,
    one per item replaced, in order, repeats included). Example: minimise("hi", Vault()).placeholders -> ()
    """

    text: str
    placeholders: tuple[str, ...]


def minimise(text: str, vault: Vault, known_names: Iterable[str] = ()) -> Minimised:
    """Replace the personal data in text, and any placeholder-shaped text, by placeholders recorded in vault.

    Args: text (str); vault (Vault, for this conversation); known_names (list of str): see
    detect.find_personal_data. Returns: Minimised. Raises: TypeError for a text that is not a str; ValueError
    as Vault.placeholder and find_personal_data raise.
    Example: minimise("Mail thandiwe@example.org", Vault()).text -> "Mail <EMAIL_1>"
    """
    found = find_personal_data(text, known_names)
    shown = found.text
    spans = [(s.start, s.end, s.kind) for s in found.spans]
    spans += [(m.start(), m.end(), LITERAL) for m in NEAR.finditer(shown)
              if all(m.end() <= start or m.start() >= end for start, end, _ in spans)]
    pieces, made, cursor = [], [], 0
    for start, end, kind in sorted(spans):
        made.append(vault.placeholder(kind, shown[start:end]))
        pieces += [shown[cursor:start], made[-1]]
        cursor = end
    return Minimised("".join(pieces) + shown[cursor:], tuple(made))


@dataclass(frozen=True, config=ConfigDict(extra="forbid"))
class Restored:
    """What restore returns: text (str, the reply with the vault's values back); restored (tuple of str, the
    placeholders put back, in order); missing (the vault's placeholders the reply does not hold); mangled
    (what looks like a placeholder but is not one of the vault's, left as written).
    ok is True when nothing is mangled. Example: restore("Hi <NAME_1>", vault).restored -> ("<NAME_1>",)
    """

    text: str
    restored: tuple[str, ...]
    missing: tuple[str, ...]
    mangled: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """True when nothing in the reply is mangled (missing placeholders are allowed). Example: restored.ok"""
        return not self.mangled


def _pieces(text: str, vault: Vault) -> tuple[list[tuple[str, bool]], Restored]:
    """The reply cut into (text, is_value) pieces, and the Restored summary of it."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    pieces: list[tuple[str, bool]] = []
    restored, mangled, cursor = [], [], 0
    for match in NEAR.finditer(text):
        value = vault.value(match.group()) if PLACEHOLDER.fullmatch(match.group()) else None
        if value is None:
            mangled.append(match.group())
            continue
        pieces += [(text[cursor:match.start()], False), (value, True)]
        restored.append(match.group())
        cursor = match.end()
    pieces.append((text[cursor:], False))
    missing = tuple(p for p, _ in vault.items() if p not in restored)
    whole = "".join(piece for piece, _ in pieces)
    return pieces, Restored(whole, tuple(restored), missing, tuple(mangled))


def restore(text: str, vault: Vault) -> Restored:
    """Put the vault's values back where the reply holds its placeholders, exactly as minimise wrote them.

    Args: text (str, the model's reply); vault (Vault). Returns: Restored. Raises: TypeError for a non-str.
    Example: restore("Write to <EMAIL_1>.", vault).text -> "Write to thandiwe@example.org."
    """
    return _pieces(text, vault)[1]


def restore_html(text: str, vault: Vault) -> tuple[Markup, Restored]:
    """restore() for a reply that becomes HTML: the reply's own text and each restored value are escaped.

    Args: text (str); vault (Vault). Returns: (Markup, safe to put in a page as it is; Restored).
    Raises: TypeError for a non-str.
    Example: str(restore_html("Hi <NAME_1>", vault)[0]) -> "Hi Ann &lt;b&gt;"  # when <NAME_1> is "Ann <b>"
    """
    pieces, summary = _pieces(text, vault)
    return Markup("").join(escape(piece) for piece, _ in pieces), summary
