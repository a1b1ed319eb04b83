"""JSON from a model into code: parsed strictly, checked by a pydantic model, never run with eval.

eval() runs whatever Python the reply holds. ast.literal_eval() runs no code, but it is a parser, not a
validator: it accepts Python literals that are not JSON (tuples, sets, True, single quotes) and any shape at
all, and Python's documentation warns that a small input can exhaust memory or the C stack. parse_action()
reads the reply with strictjson.parse_json (no NaN, no repeated keys, bounded nesting) and validates it
with TicketAction, a frozen, strict pydantic model that forbids extra fields, so the code after it gets
exactly the three fields it expects, with their types and ranges, or an ActionRefused naming the problem.
Left out: the provider's own structured output (it constrains the shape the model writes, and the reply
must still be checked here), and what the code then does with a valid action (the gate decides that).
Source (read 2026-12-03): https://docs.python.org/3/library/ast.html#ast.literal_eval (its warning).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evidencedesk.strictjson import parse_json

MAX_REPLY_CHARS = 2_000  # a ticket action is a few dozen characters; longer replies are refused unread


class TicketAction(BaseModel):
    """What the model may ask the code to do to a ticket. Strict: "2" is not a priority; extra fields fail.

    Fields: ticket (T- and 3-4 digits); action ("summarise", "escalate" or "close"); priority (int, 1-4).
    Raises: pydantic.ValidationError naming the field.
    Example: TicketAction(ticket="T-1101", action="close", priority=3)
    """

    model_config = ConfigDict(frozen=True, strict=True, extra="forbid")
    ticket: Annotated[str, Field(pattern=r"^T-[0-9]{3,4}$")]
    action: Literal["summarise", "escalate", "close"]
    priority: Annotated[int, Field(ge=1, le=4)]


class ActionRefused(ValueError):
    """A reply is not a valid TicketAction; the message names the first problem."""


def parse_action(reply: str) -> TicketAction:
    """The TicketAction a reply holds, read strictly, or ActionRefused.

    Args: reply (str, the model's text, which must be one JSON object).
    Returns: TicketAction. Raises: TypeError for a non-str; ActionRefused for text that is too long, not
    strict JSON, or not a valid action (the message names the field and the problem).
    Example: parse_action('{"ticket": "T-1101", "action": "close", "priority": 3}').action -> "close"
    """
    if not isinstance(reply, str):
        raise TypeError(f"reply must be a str, got {type(reply).__name__}")
    if len(reply) > MAX_REPLY_CHARS:
        raise ActionRefused(f"reply of {len(reply)} characters; at most {MAX_REPLY_CHARS}")
    try:
        value = parse_json(reply)
    except ValueError as exc:
        raise ActionRefused(f"not strict JSON: {str(exc).split(':')[0][:50]}") from None
    try:
        return TicketAction.model_validate(value)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "reply"
        raise ActionRefused(f"{where}: {first['msg']}") from None
