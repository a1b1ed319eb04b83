"""What a system prompt must never hold, checked before the prompt ships: assume it will leak.

A model reads its system prompt like any other text, and a user who asks well, or text injected into a
ticket, can make it repeat or paraphrase that prompt. So the prompt holds nothing whose disclosure hurts:
no key or password (the code that calls a tool holds those), no personal data, and no rule that decides
who may do what (the session, the tool and the gate decide that in code). audit_prompt() flags, in the
prompt's visible form: a key-shaped string or labelled secret value (security.KEY_SHAPE, SECRET), personal
data (detect.find_personal_data), and wording that reads like an access rule or a code that unlocks
something (AUTHORISATION_HINTS). The first two are findings; the last is a prompt to a reviewer, since a
pattern cannot tell "only staff may see refund notes" from "only answer in English" for certain. An empty
audit shows that these patterns found nothing, not that the prompt is safe to leak: read it as if it were
public. Left out: secrets of other shapes, and prompts assembled at run time from other sources.
"""

from __future__ import annotations

import re

from pydantic import ConfigDict
from pydantic.dataclasses import dataclass

from evidencedesk.privacy.detect import find_personal_data
from evidencedesk.security import KEY_SHAPE, SECRET, visible

KEY_IN_PROMPT, SECRET_IN_PROMPT, PERSONAL_DATA, AUTHORISATION = "key", "secret_value", "personal_data", "access_rule"
# wording a reviewer should read: a restriction naming a role or a permission, or a code that unlocks something
AUTHORISATION_HINTS = (
    re.compile(r"\b(only|unless|except|never)\b[^.\n]{0,60}?\b(admins?|staff|managers?|supervisors?|roles?|"
               r"permissions?|(?:un)?authori[sz]ed|(?:un)?verified|vip|premium)\b", re.IGNORECASE),
    re.compile(r"\b(override|unlock|staff|admin|discount|master)\s+(code|password|pin|phrase)\b", re.IGNORECASE),
)


@dataclass(frozen=True, config=ConfigDict(extra="forbid"))
class Problem:
    """One finding of audit_prompt: code (KEY_IN_PROMPT, SECRET_IN_PROMPT, PERSONAL_DATA or AUTHORISATION) and
    line (int, 1-based line of the prompt). Example: Problem("key", 3)
    """

    code: str
    line: int


def audit_prompt(system_prompt: str) -> list[Problem]:
    """Flag what a system prompt must not hold, line by line: keys, secret values, personal data, access rules.

    Args: system_prompt (str). Returns: list of Problem, by line, then in the order above ([] : none found).
    Raises: TypeError for a non-str.
    Example: audit_prompt("Only staff may see refund notes.") -> [Problem("access_rule", 1)]
    """
    if not isinstance(system_prompt, str):
        raise TypeError(f"system_prompt must be a str, got {type(system_prompt).__name__}")
    problems = []
    for number, line in enumerate(visible(system_prompt).splitlines(), start=1):
        checks = [(KEY_IN_PROMPT, KEY_SHAPE.search(line)), (SECRET_IN_PROMPT, SECRET.search(line)),
                  (PERSONAL_DATA, find_personal_data(line).spans),
                  (AUTHORISATION, any(hint.search(line) for hint in AUTHORISATION_HINTS))]
        problems += [Problem(code, number) for code, hit in checks if hit]
    return problems
