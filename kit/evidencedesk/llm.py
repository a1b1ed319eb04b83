"""Provider-neutral LLM client: messages, requests, responses, tool calls, the kit's own errors, and a scripted client.

Every provider is reached through one small protocol, `LLMClient.complete(request) -> response`, so the
rest of the kit never imports a vendor SDK. Whatever goes wrong at a provider reaches the caller as one of
the kit's errors (RateLimited, Overloaded, ServerError, LLMTimeout, BadRequest, ContextTooLong, AuthFailed,
MalformedResponse), each with a code and a `retryable` flag; providers.py holds two adapters that do this
mapping. Every LLMResponse says why the model stopped (STOP_REASONS: stop, length, tool_calls,
content_filter), and require_complete() refuses a reply that is not a whole text answer. A reply that
asks for tools carries them as ToolCall objects (the kit's one shape for a tool call, which tools.py
checks and runs), and the calls themselves say so, not the stop reason: real providers also send calls
with "stop" (a forced call, or Gemini's STOP) and with "length" (a call cut at the output limit, which is
truncated and must never run). A "tool" message answers one call by its id. `ScriptedClient` replays fixed
replies (or raises scripted errors), which makes every run repeatable. This module imports nothing else
from the kit. Left out: real providers, streaming, each provider's wire format for tool calls
(providers.py), and real tokenizers (`estimate_tokens` and `request_tokens` are documented estimates).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Protocol

ROLES = frozenset({"system", "user", "assistant", "tool"})  # "tool": the result of one tool call
CHARS_PER_TOKEN = 4  # the kit's round convention for estimates, not a property of any real tokenizer
MESSAGE_OVERHEAD_TOKENS = 4  # per message, for role and separators: part of the estimate, not measured
MAX_TEMPERATURE = 2.0  # the highest sampling temperature a request may ask for (a common provider range)
TEXT = "text"  # the default response_format: free text, no schema

# The kit's error codes: what calling code sees, whichever provider answered.
RATE_LIMITED = "rate_limited"  # the provider refuses for now: too many requests or tokens; retry later
OVERLOADED = "overloaded"  # the provider has no capacity just now, for anyone; retry later, with backoff
SERVER_ERROR = "server_error"  # the provider failed on its own side; the same request may work on a retry
TIMEOUT = "timeout"  # no answer in time, reported by the provider or measured by us; retry may work
BAD_REQUEST = "bad_request"  # the provider refuses this request as written; the same request fails again
CONTEXT_TOO_LONG = "context_too_long"  # input plus output allowance exceed the model's window: shorten it
AUTH_FAILED = "auth_failed"  # the key is missing, wrong, revoked or lacks access: a person must fix it
MALFORMED_RESPONSE = "malformed_response"  # the reply does not fit the wire format; nothing usable came back
INCOMPLETE = "incomplete"  # not from a provider: require_complete refused an answer the model did not end

# Why a model stopped, whichever provider answered: every LLMResponse carries one.
STOP = "stop"  # the model ended its answer by itself
LENGTH = "length"  # cut at max_tokens: the text is incomplete, however finished it looks
TOOL_CALLS = "tool_calls"  # stopped to ask for tools (calls can also come with STOP or LENGTH)
CONTENT_FILTER = "content_filter"  # the provider withheld or cut the text under its own content policy
STOP_REASONS = (STOP, LENGTH, TOOL_CALLS, CONTENT_FILTER)


class LLMInputError(ValueError):
    """A message or request was built from bad input; the message names the field."""


class ScriptExhausted(RuntimeError):
    """A ScriptedClient was asked for more replies than its script holds."""


class LLMError(RuntimeError):
    """A model call failed at or on the way to the provider, or its reply was refused: the base of the kit's errors.

    Attributes: code (str, one of the codes above), retryable (bool: may the same request succeed later?),
    provider (str, who answered; "" when unknown). Args: message (str); provider (str).
    Example: except LLMError as error: print(error.code, error.retryable)
    """

    code = "llm_error"
    retryable = False

    def __init__(self, message: str, provider: str = "") -> None:
        super().__init__(f"{provider}: {message}" if provider else message)
        self.provider = provider


class RateLimited(LLMError):
    """The provider refused for now. retry_after_s (float, seconds): how long it asks us to wait (0 if unsaid).

    Example: RateLimited("too many requests", "alpha", retry_after_s=2.0)
    """

    code, retryable = RATE_LIMITED, True

    def __init__(self, message: str, provider: str = "", retry_after_s: float = 0.0) -> None:
        super().__init__(message, provider)
        self.retry_after_s = retry_after_s


class LLMTimeout(LLMError):
    """The call took too long: the provider gave up, or our own per-call limit did (usage.CallTimeout)."""

    code, retryable = TIMEOUT, True


class Overloaded(LLMError):
    """The provider is over capacity for everyone (not our quota): wait and retry, or use another provider."""

    code, retryable = OVERLOADED, True


class ServerError(LLMError):
    """The provider failed on its side (an internal error); the same request may succeed on a retry."""

    code, retryable = SERVER_ERROR, True


class BadRequest(LLMError):
    """The provider refused the request as written (a limit, a field); sending it again fails again."""

    code = BAD_REQUEST


class ContextTooLong(BadRequest):
    """The input and the output allowance do not fit the model's context window: a BadRequest of its own,
    since the fix is to shorten the input or lower max_tokens, not to wait. Example: except ContextTooLong: ..."""

    code = CONTEXT_TOO_LONG


class AuthFailed(LLMError):
    """The provider refused our credentials (missing, wrong, revoked, or without access to the model).

    No retry helps, and no user can fix it: an operator must. Example: except AuthFailed: alert_operator()
    """

    code = AUTH_FAILED


class MalformedResponse(LLMError):
    """The reply is not the provider's documented format (not JSON, a missing field, an unknown error type)."""

    code = MALFORMED_RESPONSE


class Incomplete(LLMError):
    """A reply that is not a whole answer (cut at max_tokens, filtered, refused, or tool calls), refused as one.

    Raised by require_complete, not by a provider. Not retryable: the same request is most likely cut
    again, and a retry pays for it; raise max_tokens or shorten the task. Attributes: stop_reason (str).
    Example: except Incomplete as e: e.stop_reason
    """

    code = INCOMPLETE

    def __init__(self, message: str, provider: str = "", stop_reason: str = "") -> None:
        super().__init__(message, provider)
        self.stop_reason = stop_reason


@dataclass(frozen=True)
class ToolCall:
    """A request to run one tool: what a model's reply carries, and what the registry and the gate check.

    Nothing is checked here (tools.ToolRegistry and gate.ToolGate check every call); a Message or an
    LLMResponse that carries calls checks their id and name. Args: id (str) -- unique per call, given by
    the provider; name (str) -- the tool; arguments (dict of keyword arguments, or the str a model wrote
    when it did not parse as a JSON object, which the registry then refuses as invalid_arguments).
    Example: ToolCall("call_1", "get_ticket", {"ticket_id": "T-601"})
    """

    id: str
    name: str
    arguments: dict[str, Any] | str


def _calls(value: object, where: str) -> tuple[ToolCall, ...]:
    """value as a tuple of ToolCall with distinct non-empty str ids and names; LLMInputError naming the field."""
    if not isinstance(value, tuple | list):
        raise LLMInputError(f"{where} must be a tuple of ToolCall, got {type(value).__name__}")
    for index, call in enumerate(value):
        if not isinstance(call, ToolCall):
            raise LLMInputError(f"{where}[{index}] must be a ToolCall, got {type(call).__name__}")
        for name in ("id", "name"):
            if not isinstance(getattr(call, name), str) or not getattr(call, name):
                raise LLMInputError(f"{where}[{index}].{name} must be a non-empty str")
        if not isinstance(call.arguments, dict | str):
            raise LLMInputError(f"{where}[{index}].arguments must be a dict or a str")
    if len({call.id for call in value}) < len(value):
        raise LLMInputError(f"{where}: two calls share an id")
    return tuple(value)


@dataclass(frozen=True)
class Message:
    """One chat message.

    Args: role (str) -- "system", "user", "assistant" or "tool"; content (str) -- the text;
    tool_calls (tuple of ToolCall) -- the calls an assistant message asked for (assistant only);
    tool_call_id (str) -- the id of the call a "tool" message answers (required for "tool", else "").
    Raises: LLMInputError naming the field when role is unknown, content is not a str, or the tool fields
    do not fit the role.
    Example: Message("user", "Is T-601 still open?"); Message("tool", '{"status": "open"}', tool_call_id="call_1")
    """

    role: str
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str = ""

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise LLMInputError(f"role must be one of {sorted(ROLES)}, got {str(self.role)[:40]!r}")
        if not isinstance(self.content, str):
            raise LLMInputError(f"content must be a str, got {type(self.content).__name__}")
        calls = _calls(self.tool_calls, "tool_calls")
        if calls and self.role != "assistant":
            raise LLMInputError(f"tool_calls: only an assistant message carries tool calls, not a {self.role} message")
        if not isinstance(self.tool_call_id, str):
            raise LLMInputError(f"tool_call_id must be a str, got {type(self.tool_call_id).__name__}")
        if self.role == "tool" and not self.tool_call_id:
            raise LLMInputError("tool_call_id: a tool message must name the call it answers")
        if self.role != "tool" and self.tool_call_id:
            raise LLMInputError(f"tool_call_id: only a tool message answers a call, not a {self.role} message")
        object.__setattr__(self, "tool_calls", calls)


@dataclass(frozen=True, repr=False)
class Usage:
    """Tokens one call used. input_tokens, output_tokens (int, tokens); cached_input_tokens (int, tokens): how
    many of the input_tokens the provider read from its prompt cache (a part of input_tokens, not added to it).

    The repr names cached_input_tokens only when it is not 0.
    Example: Usage(input_tokens=210, output_tokens=40); Usage(410, 12, cached_input_tokens=384)
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0

    def __repr__(self) -> str:
        cached = f", cached_input_tokens={self.cached_input_tokens}" if self.cached_input_tokens else ""
        return f"Usage(input_tokens={self.input_tokens}, output_tokens={self.output_tokens}{cached})"


@dataclass(frozen=True)
class LLMRequest:
    """What we ask a model: which model, which messages, the output allowance, and how to sample and answer.

    Args: model (str) -- a name from the price table; messages (tuple or list of Message), stored as a
    tuple; max_tokens (int, tokens) -- the most output tokens the call may produce, at least 1;
    temperature (float, 0 to 2; default 0: ask for the likeliest next token, which providers do not promise
    to make repeatable); tools (tuple or list of str,
    stored as a tuple) -- the definitions of the tools the model is offered, each as JSON text
    {"name", "description", "parameters": a JSON schema}, which the adapters check when they encode it;
    response_format (str) -- TEXT, or the JSON schema the answer must follow, as text.
    Every field can change the answer, so wrappers that compare requests (cache.cache_key) read them all.
    Raises: LLMInputError naming the field (empty model, a non-Message, max_tokens not a positive int,
    temperature outside 0 to 2, a tool or response_format that is not a non-empty str).
    Example: LLMRequest("scripted-1", [Message("user", "hi")], max_tokens=50)
    """

    model: str
    messages: tuple[Message, ...]
    max_tokens: int
    temperature: float = 0.0
    tools: tuple[str, ...] = ()
    response_format: str = TEXT

    def __post_init__(self) -> None:
        if not isinstance(self.model, str) or not self.model:
            raise LLMInputError("model must be a non-empty str")
        messages = tuple(self.messages)
        for index, message in enumerate(messages):
            if not isinstance(message, Message):
                raise LLMInputError(f"messages[{index}] must be a Message, got {type(message).__name__}")
        if isinstance(self.max_tokens, bool) or not isinstance(self.max_tokens, int) or self.max_tokens < 1:
            raise LLMInputError(f"max_tokens must be a positive int, got {self.max_tokens!r}")
        number = isinstance(self.temperature, int | float) and not isinstance(self.temperature, bool)
        if not number or not 0 <= self.temperature <= MAX_TEMPERATURE:  # NaN fails both comparisons: refused
            raise LLMInputError(f"temperature must be a number from 0 to {MAX_TEMPERATURE}, got {self.temperature!r}")
        tools = tuple(self.tools) if isinstance(self.tools, tuple | list) else None
        if tools is None or not all(isinstance(t, str) and t for t in tools):
            raise LLMInputError("tools must be a tuple or list of non-empty str (tool definitions)")
        if not isinstance(self.response_format, str) or not self.response_format:
            raise LLMInputError("response_format must be a non-empty str: TEXT or a JSON schema")
        object.__setattr__(self, "messages", messages)
        object.__setattr__(self, "tools", tools)


@dataclass(frozen=True)
class LLMResponse:
    """What a model returned: text (str), model (str), usage (Usage, tokens), why it stopped, and its tool calls.

    stop_reason (str, one of STOP_REASONS; default STOP): LENGTH means the output was cut at max_tokens.
    tool_calls (tuple of ToolCall, in the order the model wrote them): decide by these, not by the stop
    reason. TOOL_CALLS needs at least one call, but calls also come with STOP (Gemini's STOP; OpenAI's
    "stop", measured, not documented, on a call forced by name) and with LENGTH (the reply was cut at the
    limit, its calls with it: truncated, never to be run). refusal (str, default "", not in the repr): the
    model's refusal, when the provider reports it apart from the text (OpenAI's `refusal` field).
    Raises: LLMInputError naming the field for an unknown stop_reason, a call that is not a ToolCall,
    TOOL_CALLS without calls, or a refusal that is not a str.
    Example: LLMResponse('{"action": "finish"}', "fixed-plan", Usage())
    """

    text: str
    model: str
    usage: Usage = field(default_factory=Usage)
    stop_reason: str = STOP
    tool_calls: tuple[ToolCall, ...] = ()
    refusal: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        if self.stop_reason not in STOP_REASONS:
            raise LLMInputError(f"stop_reason must be one of {STOP_REASONS}, got {str(self.stop_reason)[:40]!r}")
        calls = _calls(self.tool_calls, "tool_calls")
        if self.stop_reason == TOOL_CALLS and not calls:
            raise LLMInputError(f"tool_calls: stop_reason {TOOL_CALLS!r} needs at least one call")
        if not isinstance(self.refusal, str):
            raise LLMInputError(f"refusal must be a str, got {type(self.refusal).__name__}")
        object.__setattr__(self, "tool_calls", calls)


def require_complete(response: LLMResponse) -> LLMResponse:
    """The response itself when it is a whole answer: STOP, no tool calls, no refusal; else Incomplete.

    A reply cut at max_tokens can end on a full stop and read as finished: only stop_reason tells. A reply
    with calls asks for tools whatever its stop reason, and a refusal is not the answer asked for.
    Args: response (LLMResponse). Returns: the same LLMResponse. Raises: Incomplete (code "incomplete").
    Example: require_complete(client.complete(request)).text
    """
    if response.stop_reason != STOP:
        raise Incomplete(f"{response.model} did not end its answer: stop_reason={response.stop_reason!r}",
                         stop_reason=response.stop_reason)
    if response.tool_calls or response.refusal:
        what = f"{len(response.tool_calls)} tool call(s)" if response.tool_calls else "a refusal"
        raise Incomplete(f"{response.model} sent {what}, not an answer", stop_reason=response.stop_reason)
    return response


class LLMClient(Protocol):
    """Anything with `complete(request) -> LLMResponse` is a client: a vendor adapter, a fake, a wrapper.

    Example: client: LLMClient = ScriptedClient(["hello"])
    """

    def complete(self, request: LLMRequest) -> LLMResponse:
        """Send one request (LLMRequest) and return the LLMResponse. Example: client.complete(request).text"""
        ...


def estimate_tokens(text: str) -> int:
    """Estimate the tokens in a text as ceil(characters / 4).

    This is the kit's convention, not a tokenizer: real counts differ by model and language, so measure
    with your provider's tokenizer before relying on a number.
    Args: text (str). Returns: int, tokens (0 for "").
    Raises: TypeError if text is not a str.
    Example: estimate_tokens("hello world") -> 3
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def request_tokens(request: LLMRequest) -> int:
    """Estimate the input tokens of a request: sum of estimate_tokens(content) + 4 per message, plus the
    name and arguments of each tool call a message carries and the text of each tool definition offered.

    An estimate for budgeting before a call, not a tokenizer count.
    Args: request (LLMRequest). Returns: int, tokens.
    Example: request_tokens(LLMRequest("scripted-1", [Message("user", "hello world")], 10)) -> 7
    """
    calls = [c for m in request.messages for c in m.tool_calls]
    return (sum(estimate_tokens(m.content) + MESSAGE_OVERHEAD_TOKENS for m in request.messages)
            + sum(estimate_tokens(c.name) + estimate_tokens(arguments_text(c)) for c in calls)
            + sum(estimate_tokens(t) for t in request.tools))


def arguments_text(call: ToolCall) -> str:
    """A call's arguments as the JSON text a model writes: a str as it is, a dict as JSON. Never raises.

    Args: call (ToolCall). Returns: str ("<dict>" for a dict that is not JSON data).
    Example: arguments_text(ToolCall("c1", "get_ticket", {"ticket_id": "T-601"})) -> '{"ticket_id": "T-601"}'
    """
    if isinstance(call.arguments, str):
        return call.arguments
    try:
        return json.dumps(call.arguments, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):  # not JSON data: a set, a cycle, nesting too deep
        return f"<{type(call.arguments).__name__}>"


class ScriptedClient:
    """A fake model that returns its replies in order, with estimated usage. It says what it is: a script.

    Args: replies (list of str or LLMError) -- the script; an LLMError entry is raised instead of
    returned, to rehearse a failure; model (str) -- the name it reports.
    A reply longer than the request's max_tokens allows is cut there, as a model stops at its allowance,
    and its stop_reason is LENGTH (else STOP).
    Usage: input tokens = request_tokens(request), output tokens = estimate_tokens(reply).
    `requests` keeps every request it received (failed ones too), for tests.
    Raises: ScriptExhausted (from complete) when asked for more replies than the script holds.
    Example: ScriptedClient(["hi"]).complete(LLMRequest("scripted-1", [Message("user", "?")], 10)).text -> "hi"
    """

    def __init__(self, replies: list[str | LLMError], model: str = "scripted-1") -> None:
        self.replies = list(replies)
        self.model = model
        self.requests: list[LLMRequest] = []

    def complete(self, request: LLMRequest) -> LLMResponse:
        """Return the next scripted reply, or raise it if it is an LLMError. Raises ScriptExhausted when done."""
        if len(self.requests) >= len(self.replies):
            raise ScriptExhausted(f"script of {len(self.replies)} replies is used up")
        reply = self.replies[len(self.requests)]
        self.requests.append(request)
        if isinstance(reply, LLMError):
            raise reply
        text = reply[:request.max_tokens * CHARS_PER_TOKEN]  # like a model, it stops at the output allowance
        stopped = LENGTH if len(text) < len(reply) else STOP
        return LLMResponse(text, self.model, Usage(request_tokens(request), estimate_tokens(text)), stopped)
