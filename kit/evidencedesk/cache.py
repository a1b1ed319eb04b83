"""A response cache: the same request, in the same scope, is answered once and then served for 0 credits.

cache_key hashes everything that changes the answer: the model, every message in order (rules, context
and question), the output allowance, and the scope, which says who may see the answer (a user id, or
SHARED for answers built only from documents every user may read). A hit calls no provider, costs 0
credits, and is written to the ledger as a hit. Two cases must not be cached: an answer built from one
user's data must never reach another user (so it is cached under that user's scope only), and a write
(a call whose reply will send, change or refund something) must not be replayed, so CachingClient passes
it through untouched. Left out: expiry by time, "semantic" matching of similar questions (a similar
request is not the same request), and sharing a cache between processes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections import OrderedDict

from evidencedesk.llm import LLMClient, LLMRequest, LLMResponse, Usage
from evidencedesk.usage import Ledger, UsageRecord

SHARED = "shared"  # the scope of answers built only from shared documents, which any user may see


def cache_key(request: LLMRequest, scope: str) -> str:
    """The exact-match key of a request: SHA-256 over scope, model, output allowance and every message.

    Args: request (LLMRequest); scope (str, a user id or SHARED: who may be served this answer).
    Returns: str, 64 hex characters. Raises: ValueError for an empty or non-str scope.
    Example: cache_key(request, "kwame") != cache_key(request, "lena")
    """
    if not isinstance(scope, str) or not scope:
        raise ValueError(f"scope must be a non-empty str (a user id or {SHARED!r}), got {scope!r}")
    everything = {"scope": scope, "model": request.model, "max_tokens": request.max_tokens,
                  "messages": [[m.role, m.content] for m in request.messages]}  # order matters, so a list
    return hashlib.sha256(json.dumps(everything, sort_keys=True).encode()).hexdigest()


class ResponseCache:
    """Responses by key, in memory. When full, the oldest entry is dropped first.

    Args: max_entries (int, >= 1). Raises: ValueError for a max_entries that is not a positive int.
    Example: cache = ResponseCache(); cache.put(key, response); cache.get(key) is response
    """

    def __init__(self, max_entries: int = 1000) -> None:
        if isinstance(max_entries, bool) or not isinstance(max_entries, int) or max_entries < 1:
            raise ValueError(f"max_entries must be a positive int, got {max_entries!r}")
        self.max_entries = max_entries
        self._entries: OrderedDict[str, LLMResponse] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: str) -> LLMResponse | None:
        """The stored response for key, or None."""
        return self._entries.get(key)

    def put(self, key: str, response: LLMResponse) -> None:
        """Store response under key, dropping the oldest entry if the cache is full."""
        self._entries[key] = response
        if len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)


class CachingClient:
    """Wraps a client with a response cache for one scope; a hit is free and is logged in the ledger.

    Args: inner (LLMClient, e.g. a BudgetedClient, which records the misses); cache (ResponseCache);
    ledger (Ledger, where hits are recorded); scope (str, a user id, or SHARED).
    complete(request, write=False): write=True marks a call whose reply will change something; it always
    goes to inner and is never stored. A hit returns the stored response with zero usage, since none was spent.
    Example: CachingClient(inner, ResponseCache(), ledger, scope="kwame").complete(request)
    """

    def __init__(self, inner: LLMClient, cache: ResponseCache, ledger: Ledger, scope: str) -> None:
        cache_key(LLMRequest("check", (), 1), scope)  # refuse a bad scope now, not at the first call
        self.inner, self.cache, self.ledger, self.scope = inner, cache, ledger, scope
        self.hits = 0

    def complete(self, request: LLMRequest, write: bool = False) -> LLMResponse:
        """Serve from the cache when the exact request was answered before in this scope; else call inner."""
        if write:  # a write is never replayed from the cache, nor stored in it
            return self.inner.complete(request)
        key = cache_key(request, self.scope)
        if (stored := self.cache.get(key)) is not None:
            self.hits += 1
            self.ledger.add(UsageRecord(f"{self.scope}-hit{self.hits}", request.model, 0, 0, cache_hit=True))
            return dataclasses.replace(stored, usage=Usage())
        response = self.inner.complete(request)
        self.cache.put(key, response)
        return response
