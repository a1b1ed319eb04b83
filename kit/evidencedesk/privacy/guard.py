"""The whole path of one model call with personal data: minimise, call, check for the canary, restore, check.

guarded_reply() takes the customer's text, replaces its personal data by placeholders (placeholders.py),
sends the system prompt and that text to any LLMClient, refuses a reply that did not end by itself
(llm.require_complete), blocks a reply that holds the prompt's canary or copies a run of its words
(canary.py), restores the placeholders, holds a reply with a placeholder it cannot restore for a person to
review, and checks what is left for secrets and for personal data the reader may not see (outputs.py).
The client here is a fake (llm.ScriptedClient): it tests this path, never a model. Left out: retries,
budgets and the ledger (earlier pages), logging (Guarded.log is the line to write), what happens to a
blocked or held reply (a person, a ticket, an alert), checks on tool-call arguments, and conversations:
each call makes its own Vault, where a conversation of several turns would keep one across them.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import ConfigDict
from pydantic.dataclasses import dataclass

from evidencedesk.llm import LLMClient, LLMRequest, Message, require_complete
from evidencedesk.privacy.canary import canary_leaked, copied_runs
from evidencedesk.privacy.outputs import BLOCK, BLOCKED_REPLY, check_output
from evidencedesk.privacy.placeholders import Vault, minimise, restore
from evidencedesk.security import redact_log

REVIEW = "review"  # a verdict of this path only: a reply with a placeholder it cannot restore, held for a person
CANARY, COPIED, MANGLED = "canary", "copied_prompt", "mangled_placeholder"
HELD_REPLY = "Thanks, we have your message. A person from our team will reply shortly."


@dataclass(frozen=True, config=ConfigDict(extra="forbid"))
class Guarded:
    """What guarded_reply returns: sent (str, the user text as the model received it); verdict (outputs' PASS,
    REDACT or BLOCK, or REVIEW); kinds (tuple of str, why: the kinds found, or CANARY, COPIED, MANGLED);
    text (str, what may be sent to the customer); log (str, a line for the log).
    Example: guarded_reply(...).verdict -> "pass"
    """

    sent: str
    verdict: str
    kinds: tuple[str, ...]
    text: str
    log: str


def guarded_reply(client: LLMClient, system_prompt: str, canary: str, user_text: str,
                  known_names: Iterable[str] = (), allowed: Iterable[str] = (), model: str = "scripted-1",
                  max_tokens: int = 300) -> Guarded:
    """Answer user_text through client with the customer's personal data kept out of the request.

    Args: client (LLMClient); system_prompt (str, with its canary, see canary.with_canary); canary (str);
    user_text (str); known_names (list of str: names to replace and to look for); allowed (list of str:
    values the reader may see, see outputs.check_output); model (str); max_tokens (int, tokens).
    Returns: Guarded. Raises: what client.complete raises (the kit's LLMError family); llm.Incomplete for
    a reply that did not end by itself; TypeError and ValueError as minimise raises.
    Example: guarded_reply(ScriptedClient(["Done, <NAME_1>."]), prompt, canary, "I'm Sipho").text
    """
    names = list(known_names)
    vault = Vault()
    sent = minimise(user_text, vault, names).text
    request = LLMRequest(model, [Message("system", system_prompt), Message("user", sent)], max_tokens)
    reply = require_complete(client.complete(request)).text
    leaked = [CANARY] if canary_leaked(reply, canary) else []
    leaked += [COPIED] if copied_runs(reply, system_prompt) else []
    if leaked:
        return Guarded(sent, BLOCK, tuple(leaked), BLOCKED_REPLY, redact_log(f"blocked {leaked}"))
    restored = restore(reply, vault)
    if not restored.ok:
        return Guarded(sent, REVIEW, (MANGLED,), HELD_REPLY, redact_log(f"held {list(restored.mangled)}"))
    check = check_output(restored.text, names, allowed)
    return Guarded(sent, check.verdict, check.kinds, check.text, check.log)
