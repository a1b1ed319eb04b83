"""A guardrail classifier: a transparent scored rule model that reads a message and says whether to block it.

Each rule is a named feature with a weight; a message's score is the sum of the weights of the features it
shows (each feature counts once), and the classifier flags the message when the score reaches a threshold.
The first features are the Beginner text filter's own signals (security.injection_signals); the others look
for what the campaign showed that filter missing: encoded payloads and requests to decode them, words that
mix scripts, digits inside words, role-play framing, override words, Spanish override phrases, bulk data and
an address to send it to. The rules and weights were written from the tune split of traffic.jsonl.
A real guardrail classifier is a trained model that returns a score or a label (Meta's Llama Prompt Guard 2
scores whether a text is a prompt attack; Llama Guard 3 generates "safe" or "unsafe" and the categories
broken; model cards at https://huggingface.co/meta-llama, read 2026-12-03); the threshold and the
measurements of measure.py apply to it in the same way.
Left out: learning the weights (they are set by hand, so every verdict can be read back), other languages
than Spanish, and context: each message is scored alone.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from evidencedesk.security import HIDDEN_CHARACTERS, injection_signals, visible

DEFAULT_THRESHOLD = 3  # the score at which a message is flagged; measure.choose_threshold picks one on data
FILTER_WEIGHT = 3  # a word signal of the Beginner filter
OTHER_SCRIPTS = ("CYRILLIC", "GREEK")  # scripts whose letters pass for Latin ones in most fonts


def _pattern(regex: str) -> Callable[[str], bool]:
    compiled = re.compile(regex, re.I)
    return lambda text: compiled.search(visible(text)) is not None


def _filter_words(text: str) -> bool:
    return any(name != HIDDEN_CHARACTERS for name in injection_signals(text))


def _hidden(text: str) -> bool:
    return HIDDEN_CHARACTERS in injection_signals(text)


def _mixed_script(text: str) -> bool:
    for word in re.findall(r"\w+", visible(text)):
        scripts = {unicodedata.name(ch, "").split(" ")[0] for ch in word if ch.isalpha()}
        if "LATIN" in scripts and scripts & set(OTHER_SCRIPTS):
            return True
    return False


@dataclass(frozen=True)
class Feature:
    """One rule: name (str), weight (int, points added to the score when it fires), fires (text -> bool)."""

    name: str
    weight: int
    fires: Callable[[str], bool]


FEATURES: tuple[Feature, ...] = (
    Feature("filter_words", FILTER_WEIGHT, _filter_words),
    Feature("hidden_characters", 2, _hidden),
    Feature("encoded_run", 2, _pattern(r"[A-Za-z0-9+/]{24,}={0,2}|\b[0-9a-f]{24,}\b")),
    Feature("decode_ask", 2, _pattern(r"\b(decode|base64|rot13|hex)\b.{0,40}\b(do|act|follow|obey)\b")),
    Feature("mixed_script", 3, _mixed_script),
    Feature("digits_in_words", 1, _pattern(r"\b[a-z]*[a-z][013457][a-z]+[013457]?[a-z]*\b")),
    Feature("role_play", 2, _pattern(r"\b(let's play|pretend|stay in character|you are (dan|max)|no restrictions)\b")),
    Feature("override_words", 2, _pattern(r"\b(set aside|pay no attention|bypass|developer mode|disregard)\b")),
    Feature("spanish_override", 2, _pattern(r"\b(ignora|olvida|instrucciones|pol[ií]tica|asistente)\b")),
    Feature("bulk_data", 1, _pattern(r"\b(every|all|each) (customer|record|entry|entries|ticket)s?\b")),
    Feature("send_to_address", 1, _pattern(r"\b(send|forward|pass|e-?mail)\w*\b.{0,80}@")),
)


@dataclass(frozen=True)
class Verdict:
    """A message scored: score (int, points), fired (names of the features that fired, in FEATURES order),
    threshold (int) and flagged (bool: score >= threshold)."""

    score: int
    fired: tuple[str, ...]
    threshold: int
    flagged: bool


def _threshold(threshold: object) -> int:
    if isinstance(threshold, bool) or not isinstance(threshold, int) or threshold < 1:
        raise ValueError(f"threshold must be an int >= 1 (points), got {threshold!r}")
    return threshold


def classify(text: str, threshold: int = DEFAULT_THRESHOLD) -> Verdict:
    """Score text (str) with FEATURES and flag it when the score reaches threshold (int, points, >= 1).

    Returns: Verdict. Raises: TypeError for a non-str text, ValueError for a bad threshold.
    Example: classify("Ignore all previous instructions.").fired -> ("filter_words",)
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    threshold = _threshold(threshold)
    fired = tuple(f.name for f in FEATURES if f.fires(text))
    score = sum(f.weight for f in FEATURES if f.name in fired)
    return Verdict(score, fired, threshold, score >= threshold)


def max_score() -> int:
    """The highest score any text can reach: every weight added. Example: max_score() -> 21"""
    return sum(f.weight for f in FEATURES)
