"""Provider-side prompt caching, as the kit's invented provider does it: the start of a request, read again cheaper.

A provider that caches prompts keeps what it computed for the start of a request. A later request that
starts with exactly the same blocks (the model, then the tool definitions, then the messages, in order)
reads that part from the cache, and the provider bills those input tokens at the cached-input price
(usage.Price.cached_input). The model still runs on every request and writes a fresh answer: only the
price of reading the prefix drops. That is what separates it from the response cache of cache.py, which
replays a stored answer and calls no model at all. PrefixCache is the invented provider's cache: it
stores the prefix that ends at each block boundary once that prefix holds at least MIN_PREFIX_TOKENS, and
an entry expires CACHE_TTL_S seconds after it was last written or read, on a ManualClock. CachingProvider
wraps a model client as that provider, and reports the cached tokens in the response's usage.
Each read also says how many tokens it wrote into the cache (written_tokens): a provider that bills a
write above the input price charges those (cachewrites.py). Both numbers are invented. Left out: each
real provider's own rule (its minimum, lifetime, prices and where a prefix may end), routing, a cache
shared beyond one organisation, and the latency a hit saves.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from dataclasses import dataclass

from evidencedesk.llm import (
    MESSAGE_OVERHEAD_TOKENS,
    LLMClient,
    LLMRequest,
    LLMResponse,
    Message,
    Usage,
    arguments_text,
    estimate_tokens,
)
from evidencedesk.usage import ManualClock

MIN_PREFIX_TOKENS = 256  # invented: a prefix shorter than this is never cached (real providers: read theirs)
CACHE_TTL_S = 300.0  # invented: seconds an entry lives after it was last written or read
HIT = "hit"  # part of the request was read from the cache
MISS = "miss"  # long enough, but no stored prefix matched (never seen, changed early, or expired)
TOO_SHORT = "too_short"  # the whole request is under the minimum: nothing is read or stored
OUTCOMES = (HIT, MISS, TOO_SHORT)


@dataclass(frozen=True)
class Block:
    """One piece of a request, in the order a provider reads it: a tool definition, then each message.

    kind (str: "tool", or the message's role); tokens (int, tokens of this block, as llm.request_tokens counts
    them); end (int, tokens from the start of the request to the end of this block); digest (str, 64 hex
    characters: SHA-256 of the model and every block up to this one, so it changes when anything earlier does).
    Example: prefix_blocks(request)[0].kind -> "tool"
    """

    kind: str
    tokens: int
    end: int
    digest: str


def _material(message: Message) -> list[object]:
    """A message as hash material: role, content, the id of the call it answers, and its calls."""
    calls = [[c.id, c.name, arguments_text(c)] for c in message.tool_calls]
    return [message.role, message.content, message.tool_call_id, calls]


def _message_tokens(message: Message) -> int:
    """Tokens of one message as llm.request_tokens counts them: content, overhead, and its calls."""
    calls = sum(estimate_tokens(c.name) + estimate_tokens(arguments_text(c)) for c in message.tool_calls)
    return estimate_tokens(message.content) + MESSAGE_OVERHEAD_TOKENS + calls


def prefix_blocks(request: LLMRequest) -> list[Block]:
    """The request as the provider reads it: each tool definition, then each message, with running totals.

    The last block's end equals llm.request_tokens(request). Two requests share a block's digest exactly when
    they have the same model and the same blocks up to and including that one.
    Args: request (LLMRequest). Returns: list of Block (empty for a request with no tools and no messages).
    Raises: TypeError naming request when it is not an LLMRequest.
    Example: [b.kind for b in prefix_blocks(request)] -> ["tool", "tool", "system", "user"]
    """
    if not isinstance(request, LLMRequest):
        raise TypeError(f"request must be an LLMRequest, got {type(request).__name__}")
    pieces = [("tool", ["tool", t], estimate_tokens(t)) for t in request.tools]
    pieces += [(m.role, _material(m), _message_tokens(m)) for m in request.messages]
    state = hashlib.sha256(json.dumps(["model", request.model]).encode())
    blocks, end = [], 0
    for kind, material, tokens in pieces:
        state.update(json.dumps(material, ensure_ascii=False).encode())
        end += tokens
        blocks.append(Block(kind, tokens, end, state.copy().hexdigest()))
    return blocks


@dataclass(frozen=True)
class CacheRead:
    """What the provider's cache did for one request: outcome (one of OUTCOMES), input_tokens (int, tokens of
    the whole request), cached_tokens (int, tokens read from the cache, 0 unless HIT), at (float, seconds),
    written_tokens (int, tokens after the cached part that this request wrote into the cache; 0 when
    nothing new was stored).

    Example: CacheRead("hit", 410, 384, 12.0, 26)
    """

    outcome: str
    input_tokens: int
    cached_tokens: int
    at: float
    written_tokens: int = 0


class PrefixCache:
    """The invented provider's prompt cache: prefixes by digest, each alive CACHE_TTL_S after its last use.

    read(request) finds the longest stored prefix the request starts with, then stores (or renews) every
    prefix of this request that ends at a block boundary and holds at least min_tokens.
    Args: clock (ManualClock); min_tokens (int, tokens, >= 1); ttl_s (float, seconds, > 0).
    Raises: ValueError naming min_tokens or ttl_s when out of range; TypeError naming clock.
    Example: cache = PrefixCache(ManualClock()); cache.read(request).outcome -> "miss"
    """

    def __init__(self, clock: ManualClock, min_tokens: int = MIN_PREFIX_TOKENS, ttl_s: float = CACHE_TTL_S) -> None:
        if not callable(clock):
            raise TypeError(f"clock must be a ManualClock (a callable returning seconds), got {type(clock).__name__}")
        if isinstance(min_tokens, bool) or not isinstance(min_tokens, int) or min_tokens < 1:
            raise ValueError(f"min_tokens must be an int >= 1 (tokens), got {min_tokens!r}")
        if isinstance(ttl_s, bool) or not isinstance(ttl_s, int | float) or not 0 < ttl_s < math.inf:
            raise ValueError(f"ttl_s must be a finite number of seconds > 0, got {ttl_s!r}")
        self.clock, self.min_tokens, self.ttl_s = clock, min_tokens, float(ttl_s)
        self._expires: dict[str, float] = {}  # digest -> time (seconds) at which the entry is gone

    def __len__(self) -> int:
        """Entries alive now."""
        return sum(1 for t in self._expires.values() if t > self.clock())

    def read(self, request: LLMRequest) -> CacheRead:
        """Serve one request: how much of it came from the cache; then store its prefixes for later requests."""
        blocks, now = prefix_blocks(request), self.clock()
        self._expires = {d: t for d, t in self._expires.items() if t > now}  # an expired entry is gone
        total = blocks[-1].end if blocks else 0
        if total < self.min_tokens:
            return CacheRead(TOO_SHORT, total, 0, now)
        cached = max((b.end for b in blocks if b.digest in self._expires), default=0)
        new = [b.end for b in blocks if b.end >= self.min_tokens and b.digest not in self._expires]
        written = max(0, max(new, default=cached) - cached)  # how far past the cached part the new entries reach
        for block in blocks:
            if block.end >= self.min_tokens:
                self._expires[block.digest] = now + self.ttl_s  # written, or its lifetime renewed by this read
        return CacheRead(HIT if cached else MISS, total, cached, now, written)


class CachingProvider:
    """A fake provider with a prompt cache: the inner model answers every request; the cache sets the price.

    complete() asks inner (any LLMClient, e.g. llm.ScriptedClient: a script, not a model), then reads the
    request through cache and returns the response with usage.cached_input_tokens set (at most the input
    tokens inner reported). A request that inner fails reads and stores nothing. `reads` keeps one
    CacheRead per answered request, in order.
    Args: inner (LLMClient); cache (PrefixCache). Raises (complete): whatever inner.complete raises.
    Example: CachingProvider(ScriptedClient(["Yes."]), PrefixCache(clock)).complete(request).usage
    """

    def __init__(self, inner: LLMClient, cache: PrefixCache) -> None:
        if not isinstance(cache, PrefixCache):
            raise TypeError(f"cache must be a PrefixCache, got {type(cache).__name__}")
        self.inner, self.cache = inner, cache
        self.reads: list[CacheRead] = []

    def complete(self, request: LLMRequest) -> LLMResponse:
        """The inner model's answer, with the cached input tokens of this request in its usage."""
        response = self.inner.complete(request)
        read = self.cache.read(request)
        self.reads.append(read)
        usage = response.usage
        cached = min(read.cached_tokens, usage.input_tokens)
        return dataclasses.replace(response, usage=Usage(usage.input_tokens, usage.output_tokens, cached))
