"""What to do with each provider failure: retry on the same provider, move to another one, or stop.

Each of the kit's errors (llm.py) carries a code and one decision, `retryable`: may the same request
succeed a little later? A caller with two providers needs three more answers, and handling() works
them out from the error's class alone:
- retry here: only a retryable error (rate limited, overloaded, server error, timeout), after a wait
  that is never shorter than the provider's retry_after_s, within a RetryPolicy's attempts and cap;
- next provider: every failure except a bad request. The others say "this provider, now" (its
  capacity, its key, its reply format); another provider, with its own capacity and its own key, may
  serve the same request. A bad request (ContextTooLong included) says "this request": fix it, shorten
  the input or lower max_tokens. Sent unchanged elsewhere it hides the bug and may spend money;
- alert: AuthFailed. No retry and no user can fix a refused key; an operator must.
Every failure that sends the request on also counts against the provider's circuit breaker
(breaker.py): it says something about the provider. A bad request says something about us; the
provider read it and answered, so for its breaker it counts as a provider that works.
retry_wait() is RetryClient's rule (retry.py): base_s doubled each attempt, capped, or the provider's
retry_after_s when longer; a wait over the cap means no retry here.
Left out: failures outside the kit's list (the adapters turn any other reply into MalformedResponse).
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
from evidencedesk.retry import RetryPolicy

# the kit's provider errors, in the order the page prints them
PROVIDER_ERRORS: tuple[type[LLMError], ...] = (RateLimited, Overloaded, ServerError, LLMTimeout, MalformedResponse,
                                               AuthFailed, BadRequest, ContextTooLong)


@dataclass(frozen=True)
class Handling:
    """How a caller with several providers treats one kind of failure.

    error (str, the class name); code (str, its kit code); retry_here (bool: wait, then the same request to
    the same provider); next_provider (bool: then, or at once, the next provider); counts (bool: a failure
    for the provider's circuit breaker); alert (bool: an operator must act).
    Example: handling(Overloaded).retry_here -> True
    """

    error: str
    code: str
    retry_here: bool
    next_provider: bool
    counts: bool
    alert: bool


def handling(error: LLMError | type[LLMError]) -> Handling:
    """The Handling of an error or an error class, from its class and its `retryable` flag.

    Args: error (an LLMError, or an LLMError subclass). Returns: Handling.
    Raises: TypeError naming the argument when it is not an LLMError or a subclass of it.
    Example: handling(AuthFailed("key refused", "alpha")).alert -> True
    """
    kind = error if isinstance(error, type) else type(error)
    if not issubclass(kind, LLMError):
        raise TypeError(f"error must be an LLMError or an LLMError class, got {kind.__name__}")
    request_at_fault = issubclass(kind, BadRequest)  # ContextTooLong is a BadRequest
    return Handling(kind.__name__, kind.code, retry_here=kind.retryable, next_provider=not request_at_fault,
                    counts=not request_at_fault, alert=issubclass(kind, AuthFailed))


def retry_wait(error: LLMError, attempt: int, policy: RetryPolicy) -> float | None:
    """Seconds to wait before retrying the same provider after failed attempt `attempt`, or None for no retry.

    None when the error is not retryable, attempt (int, from 1) is the policy's last, or the wait (the
    backoff, or the provider's retry_after_s when longer) is over policy.cap_s: never retry sooner than asked.
    Args: error (LLMError); attempt (int >= 1); policy (retry.RetryPolicy). Returns: float seconds, or None.
    Raises: ValueError naming attempt when it is not an int >= 1.
    Example: retry_wait(RateLimited("busy", "alpha", retry_after_s=1.5), 1, RetryPolicy()) -> 1.5
    """
    if isinstance(attempt, bool) or not isinstance(attempt, int) or attempt < 1:
        raise ValueError(f"attempt must be an int >= 1, got {attempt!r}")
    if not handling(error).retry_here or attempt >= policy.max_attempts:
        return None
    wait_s = max(policy.backoff(attempt), getattr(error, "retry_after_s", 0.0))
    return None if wait_s > policy.cap_s else wait_s


def handling_table() -> list[Handling]:
    """The Handling of every provider error of the kit, in PROVIDER_ERRORS order. Example: handling_table()[0].code"""
    return [handling(kind) for kind in PROVIDER_ERRORS]
