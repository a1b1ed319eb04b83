"""Provider-neutral LLM client: messages, requests, responses, and a scripted client for tests.

Every provider is reached through one small protocol, `LLMClient.complete(request) -> response`, so the
rest of the kit never imports a vendor SDK. `ScriptedClient` replays fixed replies, which makes every run
repeatable. Left out: real providers, streaming, tool-calling wire formats, and real tokenizers
(`estimate_tokens` is a documented estimate).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Protocol

ROLES = frozenset({"system", "user", "assistant"})
CHARS_PER_TOKEN = 4  # the kit's round convention for estimates, not a property of any real tokenizer


class LLMInputError(ValueError):
    """A message or request was built from bad input; the message names the field."""


class ScriptExhausted(RuntimeError):
    """A ScriptedClient was asked for more replies than its script holds."""


@dataclass(frozen=True)
class Message:
    """One chat message.

    Args: role (str) -- "system", "user" or "assistant"; content (str) -- the text.
    Raises: LLMInputError naming the field when role is unknown or content is not a str.
    Example: Message("user", "Is T-601 still open?")
    """

    role: str
    content: str

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise LLMInputError(f"role must be one of {sorted(ROLES)}, got {str(self.role)[:40]!r}")
        if not isinstance(self.content, str):
            raise LLMInputError(f"content must be a str, got {type(self.content).__name__}")


@dataclass(frozen=True)
class Usage:
    """Tokens one call used. input_tokens, output_tokens (int, tokens).

    Example: Usage(input_tokens=210, output_tokens=40)
    """

    input_tokens: int = 0
    output_tokens: int = 0


@dataclass(frozen=True)
class LLMRequest:
    """What we ask a model: which model, which messages, and the output allowance.

    Args: model (str) -- a name from the price table; messages (tuple or list of Message), stored as a
    tuple; max_tokens (int, tokens) -- the most output tokens the call may produce, at least 1.
    Raises: LLMInputError naming the field (empty model, a non-Message, max_tokens not a positive int).
    Example: LLMRequest("scripted-1", [Message("user", "hi")], max_tokens=50)
    """

    model: str
    messages: tuple[Message, ...]
    max_tokens: int

    def __post_init__(self) -> None:
        if not isinstance(self.model, str) or not self.model:
            raise LLMInputError("model must be a non-empty str")
        messages = tuple(self.messages)
        for index, message in enumerate(messages):
            if not isinstance(message, Message):
                raise LLMInputError(f"messages[{index}] must be a Message, got {type(message).__name__}")
        if isinstance(self.max_tokens, bool) or not isinstance(self.max_tokens, int) or self.max_tokens < 1:
            raise LLMInputError(f"max_tokens must be a positive int, got {self.max_tokens!r}")
        object.__setattr__(self, "messages", messages)


@dataclass(frozen=True)
class LLMResponse:
    """What a model returned: text (str), model (str) and usage (Usage, tokens).

    Example: LLMResponse('{"action": "finish"}', "fixed-plan", Usage())
    """

    text: str
    model: str
    usage: Usage = field(default_factory=Usage)


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


class ScriptedClient:
    """A fake model that returns its replies in order, with estimated usage.

    Args: replies (list[str]) -- the script; model (str) -- the name it reports.
    Usage: input tokens = usage.request_tokens(request), output tokens = estimate_tokens(reply).
    `requests` keeps every request it received, for tests.
    Raises: ScriptExhausted (from complete) when asked for more replies than the script holds.
    Example: ScriptedClient(["hi"]).complete(LLMRequest("scripted-1", [Message("user", "?")], 10)).text -> "hi"
    """

    def __init__(self, replies: list[str], model: str = "scripted-1") -> None:
        self.replies = list(replies)
        self.model = model
        self.requests: list[LLMRequest] = []

    def complete(self, request: LLMRequest) -> LLMResponse:
        """Return the next scripted reply. Raises ScriptExhausted when none is left."""
        from evidencedesk.usage import request_tokens  # late import: usage.py imports this module

        if len(self.requests) >= len(self.replies):
            raise ScriptExhausted(f"script of {len(self.replies)} replies is used up")
        text = self.replies[len(self.requests)]
        self.requests.append(request)
        return LLMResponse(text, self.model, Usage(request_tokens(request), estimate_tokens(text)))
