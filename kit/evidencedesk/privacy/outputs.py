"""Checking a reply before it leaves: secrets stop it, other people's personal data is redacted.

check_output() reads the visible form of a reply (security.visible). A key-shaped string or a labelled
secret value (security.KEY_SHAPE and SECRET, the shapes the Beginner course redacts from logs) blocks the
reply: a secret in a reply means it sat somewhere the model could read, and the reply is evidence of an
incident, not something to tidy up. Personal data (detect.find_personal_data) that the reader may see,
such as their own address, passes; any other is replaced by "[redacted]". Every check also gives a line
for the log, with every secret and every item of personal data redacted, the reader's own included, and
security.redact_log applied on top. Left out: the checks of improper output handling (the reply as HTML,
SQL or a shell argument), anything the detector misses (see measure.py), and secrets of other shapes:
a real deployment adds its providers' key formats and a secret scanner.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pydantic import ConfigDict
from pydantic.dataclasses import dataclass

from evidencedesk.privacy.detect import EMAIL_KIND, NAME, Span, find_personal_data
from evidencedesk.security import KEY_SHAPE, REDACTED, SECRET, redact_log, visible

PASS, REDACT, BLOCK = "pass", "redact", "block"  # the verdicts, from least to most severe
KEY, SECRET_VALUE = "KEY", "SECRET"  # the kinds of secret a reply is checked for
BLOCKED_REPLY = "Sorry, I cannot send that answer. A person from our team will follow up."


@dataclass(frozen=True, config=ConfigDict(extra="forbid"))
class OutputCheck:
    """What check_output returns: verdict (PASS, REDACT or BLOCK); kinds (tuple of str, the kind of each item
    found that the reader may not see, secrets first); text (str, what may be sent: the reply, the reply
    redacted, or BLOCKED_REPLY); log (str, a line for the log, holding no secret and no personal data).
    Example: check_output("All done.").verdict -> "pass"
    """

    verdict: str
    kinds: tuple[str, ...]
    text: str
    log: str


def _key(span: Span) -> str:
    """How a value is compared with the allowed ones: addresses and names by case, numbers by digits."""
    if span.kind in (EMAIL_KIND, NAME):
        return span.value.casefold()
    return re.sub(r"\D", "", span.value)


def _blank(text: str, spans: Iterable[Span]) -> str:
    for span in sorted(spans, key=lambda s: s.start, reverse=True):
        text = text[:span.start] + REDACTED + text[span.end:]
    return text


def check_output(reply: str, known_names: Iterable[str] = (), allowed: Iterable[str] = ()) -> OutputCheck:
    """Check a reply for secrets and for personal data the reader may not see.

    Args: reply (str); known_names (list of str): names to look for, see detect.find_personal_data; allowed
    (list of str): values the reader may see (their own address, phone or name), compared as _key compares.
    Returns: OutputCheck. Raises: TypeError for a reply that is not a str; ValueError for a too-short name.
    Example: check_output("Mail kofi@example.com", allowed=["kofi@example.com"]).verdict -> "pass"
    """
    found = find_personal_data(reply, known_names)
    shown = found.text
    secrets = [KEY for _ in KEY_SHAPE.regex.finditer(shown)] + [SECRET_VALUE for _ in SECRET.regex.finditer(shown)]
    ok_values = {re.sub(r"\D", "", v) if re.fullmatch(r"[\d +()./-]+", v) else v.casefold()
                 for v in (visible(a) for a in allowed)}
    others = [span for span in found.spans if _key(span) not in ok_values]
    log = redact_log(_blank(shown, found.spans))
    if secrets:
        return OutputCheck(BLOCK, tuple(secrets + [s.kind for s in others]), BLOCKED_REPLY, log)
    if others:
        return OutputCheck(REDACT, tuple(s.kind for s in others), _blank(shown, others), log)
    return OutputCheck(PASS, (), shown, log)
