"""Structured output: a JSON reply checked against a pydantic model, repaired once at most, else refused by name.

ask_structured() asks for one JSON object. With native=True the schema goes as the request's response_format
(Alpha has a field for it); otherwise it goes into the instructions (Beta has none). Either way the reply is
checked in code: a refusal (the provider's refusal field, or a reply its content policy withheld) is REFUSED
at once, with no repair, since asking again for what was declined is not a repair; a reply that is not a whole
answer (llm.require_complete: cut at max_tokens, or tool calls) is refused as INCOMPLETE at once, since the
same allowance would cut a repair too; text that is not strict JSON (strictjson.parse_json) is INVALID_JSON;
JSON that does not fit the model is SCHEMA_MISMATCH. The first two failures get exactly one repair request:
the original request plus a message listing the problems (MAX_PROBLEMS at most, each clipped), which name the
field and the rule broken and never repeat a value from the reply, nor the reply itself. A second failure
raises OutputRefused with its code and the attempts made. Sending the bad reply itself back with the errors
(Instructor's "re-ask") is a reasonable alternative with other costs (the reply's tokens again, and whatever
it holds enters the context); this module sends only the problems. Left out: constrained decoding (a
provider's strict mode makes a mismatch rarer, never impossible: a cut reply is still cut), streaming, and
retries of provider errors (retry.py).
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from evidencedesk.llm import (
    CONTENT_FILTER,
    TEXT,
    Incomplete,
    LLMClient,
    LLMRequest,
    LLMResponse,
    Message,
    require_complete,
)
from evidencedesk.strictjson import parse_json
from evidencedesk.tools import clip

OK = "ok"
INVALID_JSON = "invalid_json"  # the reply is not one strict JSON value
SCHEMA_MISMATCH = "schema_mismatch"  # JSON, but not what the model describes
INCOMPLETE = "incomplete"  # the reply is not a whole answer: cut at max_tokens, or tool calls
REFUSED = "refused"  # the model declined (a refusal field) or the provider withheld the reply (content_filter)
CODES = (INVALID_JSON, SCHEMA_MISMATCH, INCOMPLETE, REFUSED)
MAX_REPAIRS = 1  # repair requests after the first reply: one, never more
MAX_PROBLEMS = 5  # problems listed in a repair request
PROBLEM_CHARS = 120  # characters of each problem
FIELD_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,39}")  # a field named in a problem; others are "<field>"


class OutputRefused(Exception):
    """The reply could not be used, after the one repair where a repair helps.

    Attributes: code (one of CODES), attempts (int, model calls made: 1 or 2), problems (tuple of str).
    Example: except OutputRefused as refused: print(refused.code, refused.attempts)
    """

    def __init__(self, code: str, attempts: int, problems: tuple[str, ...]) -> None:
        super().__init__(f"{code} after {attempts} attempt(s): {'; '.join(problems)}")
        self.code, self.attempts, self.problems = code, attempts, problems


@dataclass(frozen=True)
class Structured:
    """A reply that passed: value (an instance of the pydantic model) and attempts (int, model calls: 1 or 2)."""

    value: BaseModel
    attempts: int


def schema_text(model: type[BaseModel]) -> str:
    """model's JSON schema as compact JSON text, keys sorted. Example: schema_text(TicketTriage)"""
    return json.dumps(model.model_json_schema(), sort_keys=True, separators=(",", ":"))


def structured_request(request: LLMRequest, model: type[BaseModel], native: bool) -> LLMRequest:
    """request, asking for one JSON object of model's schema: as response_format (native) or in the instructions.

    Args: request (LLMRequest); model (pydantic model class); native (bool: the provider takes a schema).
    Returns: a new LLMRequest whose first message is the instruction. Example: structured_request(r, M, True)
    """
    schema = schema_text(model)
    instruction = "Answer with one JSON object and nothing else."
    if not native:
        instruction += f" It must follow this JSON schema: {schema}"
    return dataclasses.replace(request, messages=(Message("system", instruction), *request.messages),
                               response_format=schema if native else TEXT)


def schema_problems(error: ValidationError) -> list[str]:
    """One line per problem: the field's path and pydantic's rule ("urgent: Input should be a valid boolean").

    The value is never repeated, and a field name that is not a plain identifier shows as "<field>" (the
    model wrote it). Custom validators must keep values out of their messages too.
    Example: schema_problems(exc) -> ["category: Input should be 'refund', 'delivery', 'account' or 'other'"]
    """
    def part(p: Any) -> str:
        return str(p) if isinstance(p, int) or FIELD_NAME.fullmatch(str(p)) else "<field>"
    return [f"{'.'.join(part(p) for p in e['loc']) or 'reply'}: {e['msg']}" for e in error.errors()]


def check_reply(response: LLMResponse, model: type[BaseModel]) -> tuple[BaseModel | None, str, list[str]]:
    """(value, OK, []) when the reply is complete, strict JSON and fits model; else (None, code, problems).

    Example: check_reply(LLMResponse("{}", "m"), TicketTriage)[1] -> "schema_mismatch"
    """
    if response.refusal or response.stop_reason == CONTENT_FILTER:
        return None, REFUSED, [f"reply: declined (stop_reason {response.stop_reason}, refusal given: "
                               f"{bool(response.refusal)})"]
    try:
        require_complete(response)
    except Incomplete:
        what = "tool calls, not an answer" if response.tool_calls else "did not end by itself"
        return None, INCOMPLETE, [f"reply: {what} (stop_reason {response.stop_reason})"]
    try:
        data = parse_json(response.text)
    except (TypeError, ValueError):
        return None, INVALID_JSON, ["reply: not valid JSON; send one JSON object and nothing else"]
    try:
        return model.model_validate(data), OK, []
    except ValidationError as exc:
        return None, SCHEMA_MISMATCH, schema_problems(exc)


def repair_message(problems: list[str]) -> Message:
    """The one repair request's message: at most MAX_PROBLEMS problems, each clipped to PROBLEM_CHARS.

    Example: repair_message(["urgent: Input should be a valid boolean"]).content
    """
    shown = [clip(p, PROBLEM_CHARS) for p in problems[:MAX_PROBLEMS]]
    more = [f"- and {len(problems) - len(shown)} more"] if len(problems) > len(shown) else []
    lines = ["Your reply could not be used:", *(f"- {p}" for p in shown), *more,
             "Answer again with one JSON object that follows the schema."]
    return Message("user", "\n".join(lines))


def ask_structured(client: LLMClient, request: LLMRequest, model: type[BaseModel], native: bool) -> Structured:
    """Ask for model as JSON; check the reply; on invalid_json or schema_mismatch, send one repair request.

    Args: client (LLMClient); request (LLMRequest: the question); model (pydantic model class);
    native (bool: send the schema as response_format, for a provider that takes one).
    Returns: Structured(value, attempts). Raises: OutputRefused (INCOMPLETE or REFUSED at once; the
    other codes after 1 + MAX_REPAIRS attempts); the client's LLMError as it is.
    Example: ask_structured(client, request, TicketTriage, native=True).value.category
    """
    asked = structured_request(request, model, native)
    for attempt in range(1, MAX_REPAIRS + 2):
        value, code, problems = check_reply(client.complete(asked), model)
        if value is not None:
            return Structured(value, attempt)
        if code in (INCOMPLETE, REFUSED) or attempt > MAX_REPAIRS:
            raise OutputRefused(code, attempt, tuple(problems))
        asked = dataclasses.replace(asked, messages=(*asked.messages, repair_message(problems)))
    raise AssertionError("unreachable: the loop returns or raises")  # for type checkers
