"""A response cache: the same request, in the same scope, is answered once and then served for 0 credits.

cache_key hashes every field of the request, since each can change the answer: the model, every message
in order (rules, context and question; with the tool calls it carries or the call it answers), the
output allowance, the temperature, the tools offered and the response format; and the scope, which says
who may see the answer (a user id, or SHARED for answers built only from documents every user may read).
A hit calls no provider, costs 0 credits, and is written to the ledger as a hit. A cached answer is one
answer the model gave; serving it again is sound only when the model name pins one model version, the
request asks for the likeliest answer (temperature 0), and the answer is young enough (ttl_s) for what
the prompt does not say, such as today's date or a policy read outside the prompt. Three cases are never
cached, so CachingClient passes them through: an answer built from one user's data never reaches another
user (it is cached under that user's scope only); a write (a call whose reply will send, change or
refund something) is never replayed; and a request with a temperature above 0, which asks for a fresh
sample each time. Left out: "semantic" matching of similar questions (a similar request is not the same
request), and sharing a cache between processes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from collections import OrderedDict
from collections.abc import Callable

from evidencedesk.llm import LLMClient, LLMRequest, LLMResponse, Message, Usage
from evidencedesk.usage import Ledger, UsageRecord

SHARED = "shared"  # the scope of answers built only from shared documents, which any user may see


def cache_key(request: LLMRequest, scope: str) -> str:
    """The exact-match key of a request: SHA-256 over the scope and every field of the request.

    The fields: model, every message in order (its role and content, and the tool calls it carries or the id
    of the call it answers), max_tokens, temperature, tools and response_format. A field left out would let
    two requests that can get different answers share one.

    Args: request (LLMRequest); scope (str, a user id or SHARED: who may be served this answer).
    Returns: str, 64 hex characters. Raises: ValueError for an empty or non-str scope, or for tool-call
    arguments that are not JSON data.
    Example: cache_key(request, "kwame") != cache_key(request, "lena")
    """
    if not isinstance(scope, str) or not scope:
        raise ValueError(f"scope must be a non-empty str (a user id or {SHARED!r}), got {scope!r}")
    everything = {"scope": scope, "model": request.model, "max_tokens": request.max_tokens,
                  "messages": [_message(m) for m in request.messages],  # order matters, so a list
                  "temperature": request.temperature, "tools": list(request.tools),
                  "response_format": request.response_format}
    try:
        text = json.dumps(everything, sort_keys=True)
    except (TypeError, ValueError, RecursionError):  # only tool-call arguments can hold anything but JSON data
        raise ValueError("request: tool call arguments must be JSON data to be part of a key") from None
    return hashlib.sha256(text.encode()).hexdigest()


def _message(message: Message) -> list[object]:
    """A message as key material: [role, content], plus its call id and calls when it has either."""
    if not message.tool_calls and not message.tool_call_id:
        return [message.role, message.content]
    calls = [[c.id, c.name, c.arguments] for c in message.tool_calls]  # a dict and its JSON text stay apart
    return [message.role, message.content, message.tool_call_id, calls]


class ResponseCache:
    """Responses by key, in memory, each served for at most ttl_s seconds. When full, the oldest goes first.

    Args: max_entries (int, >= 1); ttl_s (float, seconds, > 0; None: no expiry) -- how long an answer may
    be served after it was stored; clock (callable returning seconds, e.g. usage.ManualClock), needed
    with ttl_s. Raises: ValueError for a max_entries that is not a positive int, a ttl_s that is not a
    positive finite number, or a ttl_s without a clock.
    Example: cache = ResponseCache(ttl_s=3600, clock=clock); cache.put(key, response); cache.get(key) is response
    """

    def __init__(self, max_entries: int = 1000, ttl_s: float | None = None,
                 clock: Callable[[], float] | None = None) -> None:
        if isinstance(max_entries, bool) or not isinstance(max_entries, int) or max_entries < 1:
            raise ValueError(f"max_entries must be a positive int, got {max_entries!r}")
        if ttl_s is not None:
            if isinstance(ttl_s, bool) or not isinstance(ttl_s, int | float) or not (ttl_s > 0 and math.isfinite(ttl_s)):
                raise ValueError(f"ttl_s must be a positive finite number of seconds, got {ttl_s!r}")
            if clock is None:
                raise ValueError("ttl_s needs a clock (a callable returning seconds, e.g. ManualClock())")
        self.max_entries, self.ttl_s, self.clock = max_entries, ttl_s, clock
        self._entries: OrderedDict[str, tuple[float, LLMResponse]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def _now(self) -> float:
        return self.clock() if self.clock is not None else 0.0

    def get(self, key: str) -> LLMResponse | None:
        """The stored response for key while it is younger than ttl_s, else None (an expired entry is dropped)."""
        if (entry := self._entries.get(key)) is None:
            return None
        stored_at, response = entry
        if self.ttl_s is not None and not self._now() - stored_at < self.ttl_s:
            del self._entries[key]
            return None
        return response

    def put(self, key: str, response: LLMResponse) -> None:
        """Store response under key, with the time now, dropping the oldest entry if the cache is full."""
        self._entries[key] = (self._now(), response)
        if len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)


class CachingClient:
    """Wraps a client with a response cache for one scope; a hit is free and is logged in the ledger.

    Args: inner (LLMClient, e.g. a BudgetedClient, which records the misses); cache (ResponseCache);
    ledger (Ledger, where hits are recorded); scope (str, a user id, or SHARED).
    complete(request, write=False): write=True marks a call whose reply will change something; it always
    goes to inner and is never stored, and so does a request with a temperature above 0. A hit returns
    the stored response with zero usage, since none was spent.
    Example: CachingClient(inner, ResponseCache(), ledger, scope="kwame").complete(request)
    """

    def __init__(self, inner: LLMClient, cache: ResponseCache, ledger: Ledger, scope: str) -> None:
        cache_key(LLMRequest("check", (), 1), scope)  # refuse a bad scope now, not at the first call
        self.inner, self.cache, self.ledger, self.scope = inner, cache, ledger, scope
        self.hits = 0

    def complete(self, request: LLMRequest, write: bool = False) -> LLMResponse:
        """Serve from the cache when the exact request was answered before in this scope; else call inner."""
        if write or request.temperature > 0:  # a write is never replayed; a sample at temperature > 0 is asked fresh
            return self.inner.complete(request)
        key = cache_key(request, self.scope)
        if (stored := self.cache.get(key)) is not None:
            self.hits += 1
            self.ledger.add(UsageRecord(f"{self.scope}-hit{self.hits}", request.model, 0, 0, cache_hit=True))
            return dataclasses.replace(stored, usage=Usage())
        response = self.inner.complete(request)
        self.cache.put(key, response)
        return response
