"""The errors real providers return, mapped to the kit's error kinds; and an exhausted quota, which no wait clears.

The kit's providers are invented (providers.py), so their errors are the kit's own. Real providers name
theirs with an HTTP status and an error type or status string, and some arrive inside a stream that
began with HTTP 200. REAL_ERRORS is a table of documented ones, each mapped to the kit error class a
client adapter should raise for it; classify() does that lookup. Two rows are easy to get wrong:
- OpenAI answers HTTP 429 for two different things: rate_limit_exceeded (too fast; waiting clears it)
  and insufficient_quota (no credit or spend allowance left; waiting never clears it). The second maps
  to QuotaExhausted, an error of its own, not retryable, like AuthFailed: an operator must act.
- Anthropic sends `event: error` (e.g. overloaded_error) in a stream that already answered HTTP 200,
  and OpenAI's Responses API sends `error` and `response.failed` events; a client must read them as
  failures, not as the end of an answer. Those OpenAI events carry an error code of their own (a rate
  limit can arrive that way too): the table's rows for them stand for a server-side failure, and a
  client should classify a known code as it would the HTTP error of that code.
Sources (read 2026-12-03): Anthropic, https://platform.claude.com/docs/en/api/errors and
https://platform.claude.com/docs/en/build-with-claude/streaming; OpenAI,
https://developers.openai.com/api/docs/guides/error-codes and
https://developers.openai.com/api/docs/guides/streaming-responses; Google Gemini,
https://ai.google.dev/gemini-api/docs/troubleshooting.
Left out: every other status and type (an unknown pair raises MalformedResponse, as the kit's adapters
do), error bodies, headers such as retry-after, and provider SDKs' own retry rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from evidencedesk.llm import (
    AuthFailed,
    BadRequest,
    ContextTooLong,
    LLMError,
    LLMTimeout,
    MalformedResponse,
    Overloaded,
    RateLimited,
    ServerError,
)

QUOTA_EXHAUSTED = "quota_exhausted"  # the account has no credit or spend allowance left: waiting never helps
HTTP, STREAM = "http", "stream event"  # where the error arrives: as the HTTP status, or inside a 200 stream


class QuotaExhausted(LLMError):
    """The provider refused because the account's credit or spend limit is used up (OpenAI's insufficient_quota).

    Not retryable: no wait clears it; a person must add credit or raise the limit.
    Example: raise QuotaExhausted("no credit", "openai")
    """

    code = QUOTA_EXHAUSTED


@dataclass(frozen=True)
class RealError:
    """One documented provider error: provider (str); status (int, HTTP status; 200 for a stream event);
    name (str, the provider's error type, code or status string); where (HTTP or STREAM); kind (the kit's
    LLMError subclass an adapter should raise).
    Example: RealError("anthropic", 529, "overloaded_error", HTTP, Overloaded)
    """

    provider: str
    status: int
    name: str
    where: str
    kind: type[LLMError]


REAL_ERRORS: tuple[RealError, ...] = (
    RealError("anthropic", 400, "invalid_request_error", HTTP, BadRequest),  # also "prompt is too long"
    RealError("anthropic", 401, "authentication_error", HTTP, AuthFailed),
    RealError("anthropic", 413, "request_too_large", HTTP, BadRequest),  # over 32 MB, before the API
    RealError("anthropic", 429, "rate_limit_error", HTTP, RateLimited),
    RealError("anthropic", 500, "api_error", HTTP, ServerError),
    RealError("anthropic", 529, "overloaded_error", HTTP, Overloaded),
    RealError("anthropic", 200, "overloaded_error", STREAM, Overloaded),  # `event: error` mid-stream
    RealError("openai", 400, "context_length_exceeded", HTTP, ContextTooLong),  # an invalid_request_error
    RealError("openai", 401, "invalid_api_key", HTTP, AuthFailed),
    RealError("openai", 429, "rate_limit_exceeded", HTTP, RateLimited),
    RealError("openai", 429, "insufficient_quota", HTTP, QuotaExhausted),
    RealError("openai", 500, "server_error", HTTP, ServerError),
    RealError("openai", 503, "engine overloaded", HTTP, Overloaded),  # by its message; no code
    RealError("openai", 200, "error", STREAM, ServerError),  # Responses API stream
    RealError("openai", 200, "response.failed", STREAM, ServerError),  # Responses API stream
    RealError("gemini", 400, "INVALID_ARGUMENT", HTTP, BadRequest),
    RealError("gemini", 403, "PERMISSION_DENIED", HTTP, AuthFailed),  # e.g. a key without access
    RealError("gemini", 429, "RESOURCE_EXHAUSTED", HTTP, RateLimited),
    RealError("gemini", 500, "INTERNAL", HTTP, ServerError),
    RealError("gemini", 503, "UNAVAILABLE", HTTP, Overloaded),
    RealError("gemini", 504, "DEADLINE_EXCEEDED", HTTP, LLMTimeout),
)


def classify(provider: str, status: int, name: str, message: str = "") -> LLMError:
    """The kit error for a documented provider error, ready to raise.

    Args: provider (str, "anthropic", "openai" or "gemini"); status (int, HTTP status, 200 for a stream
    event); name (str, the error type, code or status string); message (str, for the error's text).
    Returns: an instance of the row's kind. An undocumented (provider, status, name) returns MalformedResponse,
    as the kit's adapters treat a reply they cannot read. Example: classify("openai", 429, "insufficient_quota").code
    -> "quota_exhausted"
    """
    for row in REAL_ERRORS:
        if (row.provider, row.status, row.name) == (provider, status, name):
            return row.kind(message or name, provider)
    return MalformedResponse(f"status {status}, undocumented error {str(name)[:40]!r}", provider)
