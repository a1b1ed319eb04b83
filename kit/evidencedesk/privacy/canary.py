"""Canaries: a marker in the system prompt that shows, when it turns up in a reply, that the prompt leaked.

A canary is a string that means nothing and appears nowhere else. with_canary() puts it on the first line
of a system prompt; canary_leaked() looks for it in a reply, in the reply's visible form (security.visible)
and also with every space, hyphen and underscore removed, so a copy split by spaces or hidden characters
is still found. copied_runs() is the second check: how many runs of RUN_WORDS words of the prompt a reply
repeats word for word, which finds a copy that dropped the canary line. Neither finds a paraphrase, a
summary or a translation of the prompt, nor a copy in another encoding (base64): those carry no canary and
no run of the prompt's words. And copied_runs has false alarms: a reply that faithfully quotes wording
the prompt holds on purpose (a refund policy) repeats its runs too. Checked on each reply before it is
sent, they stop a careless copy and show that someone tried; they make nothing in the prompt safe to
leak (prompts.py). make_canary() derives the marker from the prompt's id so that the course's outputs
repeat; a real one is random (secrets.token_hex), one per prompt version, kept with the prompt. Left
out: canaries in retrieved documents or tool results, and alerting.
"""

from __future__ import annotations

import hashlib
import re

from evidencedesk.security import visible

CANARY_PREFIX = "cnry-"
CANARY_HEX = 16  # hex characters after the prefix: 64 bits, too many to guess, too few to look like a key
RUN_WORDS = 8  # words in a row: a run this long copied from the prompt is no coincidence
SEPARATORS = re.compile(r"[\s_-]+")


def make_canary(prompt_id: str) -> str:
    """A canary for a prompt, derived from its id (str, non-empty): "cnry-" and CANARY_HEX hex characters.

    Deterministic so that the course's outputs repeat; in production use "cnry-" + secrets.token_hex(8).
    Raises: ValueError for an empty or non-str id. Example: make_canary("desk-v1") -> "cnry-..."
    """
    if not isinstance(prompt_id, str) or not prompt_id:
        raise ValueError("prompt_id must be a non-empty str")
    return CANARY_PREFIX + hashlib.sha256(f"evidencedesk canary {prompt_id}".encode()).hexdigest()[:CANARY_HEX]


def with_canary(system_prompt: str, canary: str) -> str:
    """The system prompt (str) with a first line that carries the canary (str, from make_canary).

    Raises: ValueError for an empty prompt or a canary not in make_canary's shape.
    Example: with_canary("You help customers.", c).splitlines()[0] -> "Prompt reference: cnry-..."
    """
    if not isinstance(system_prompt, str) or not system_prompt.strip():
        raise ValueError("system_prompt must be a non-empty str")
    if not isinstance(canary, str) or not re.fullmatch(rf"{CANARY_PREFIX}[0-9a-f]{{{CANARY_HEX}}}", canary):
        raise ValueError(f"canary must be {CANARY_PREFIX!r} and {CANARY_HEX} hex characters, from make_canary")
    return f"Prompt reference: {canary}\n{system_prompt}"


def canary_leaked(text: str, canary: str) -> bool:
    """True when text (str) holds the canary (str), in any case, even split by spaces, hyphens or hidden characters.

    Raises: TypeError for a text that is not a str. Example: canary_leaked("ref CNRY-ab12...", canary) -> True
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    squeezed = SEPARATORS.sub("", visible(text)).casefold()
    return SEPARATORS.sub("", canary).casefold() in squeezed


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", visible(text).casefold())


def copied_runs(text: str, system_prompt: str, run: int = RUN_WORDS) -> int:
    """How many runs of run (int, words) consecutive words of system_prompt the text repeats, in any case.

    Args: text (str, a reply); system_prompt (str); run (int, at least 3). Returns: int (0: no run copied).
    Raises: TypeError for a non-str; ValueError for a run below 3.
    Example: copied_runs(prompt, prompt) -> the number of runs in the prompt itself
    """
    if not isinstance(text, str) or not isinstance(system_prompt, str):
        raise TypeError("text and system_prompt must be str")
    if isinstance(run, bool) or not isinstance(run, int) or run < 3:
        raise ValueError(f"run must be an int of at least 3 words, got {run!r}")
    prompt, reply = _words(system_prompt), _words(text)
    runs = {tuple(prompt[i:i + run]) for i in range(len(prompt) - run + 1)}
    return len(runs & {tuple(reply[i:i + run]) for i in range(len(reply) - run + 1)})
