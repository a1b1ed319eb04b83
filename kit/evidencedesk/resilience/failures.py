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
- alert: AuthFailed and QuotaExhausted (errors.py). No retry and no user can fix a refused key or an
  exhausted credit balance; an operator must. Both are never retried: a 429 that means "no quota
  left" does not clear by waiting, unlike a rate limit.
Every transient failure that sends the request on also counts against the provider's circuit breaker
(breaker.py): it says something about the provider's health. A bad request says something about us;
the provider read it and answered, so for its breaker it counts as a provider that works. An exhausted
quota is neither: it is not sent to the breaker at all (the alert carries it).
A context that is too long is handled by one policy among several (CONTEXT_POLICIES): the kit's
CONTEXT_POLICY stops the run and asks the caller to fix the request. Routing to a model with a larger
window, or compacting the input and retrying, are documented alternatives; they change the request or
the model, so they are a decision for the caller, not for a retry loop.
retry_wait() is RetryClient's rule (retry.py): base_s doubled each attempt, capped, or the provider's
retry_after_s when longer; a wait over the cap means no retry here. Given a draw function it applies
"full jitter" (a wait drawn between 0 and the capped backoff; Marc Brooker, "Exponential Backoff And
Jitter", AWS Architecture Blog, 2015, https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/,
read 2026-12-03), so that clients that failed together do not retry together. The kit injects the draw
(ScriptedDraw, or random.Random(seed).random), so its outputs stay the same on every run.
Left out: failures outside the kit's list (the adapters turn any other reply into MalformedResponse).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
from evidencedesk.resilience.errors import QuotaExhausted
from evidencedesk.retry import RetryPolicy

# the kit's provider errors, in the order the page prints them
PROVIDER_ERRORS: tuple[type[LLMError], ...] = (RateLimited, Overloaded, ServerError, LLMTimeout, MalformedResponse,
                                               AuthFailed, QuotaExhausted, BadRequest, ContextTooLong)
# What to do with an input too long for the model's window: three documented strategies, one chosen.
STOP_AND_FIX, LARGER_WINDOW, COMPACT_AND_RETRY = "stop_and_fix", "larger_window", "compact_and_retry"
CONTEXT_POLICIES = {
    STOP_AND_FIX: "stop the run; the caller shortens the input or lowers max_tokens",
    LARGER_WINDOW: "send the same request to a model whose window fits it",
    COMPACT_AND_RETRY: "summarise or truncate old context, then send again",
}
CONTEXT_POLICY = STOP_AND_FIX  # the kit's choice: the chain neither changes a request nor picks a model for it
Draw = Callable[[], float]  # returns a fraction in [0, 1), like random.random


class ScriptedDraw:
    """A scripted stand-in for random.random: returns the given fractions in turn, then starts again.

    Args: fractions (sequence of float, each in [0, 1)). Raises: ValueError naming fractions when empty or out of range.
    Example: ScriptedDraw([0.25, 0.75])() -> 0.25
    """

    def __init__(self, fractions: Sequence[float]) -> None:
        if not fractions or any(isinstance(f, bool) or not isinstance(f, int | float) or not 0 <= f < 1
                                for f in fractions):
            raise ValueError(f"fractions must be a non-empty list of numbers in [0, 1), got {fractions!r}")
        self.fractions, self.drawn = [float(f) for f in fractions], 0

    def __call__(self) -> float:
        fraction = self.fractions[self.drawn % len(self.fractions)]
        self.drawn += 1
        return fraction


def full_jitter(backoff_s: float, draw: Draw) -> float:
    """A wait drawn between 0 and backoff_s (float, seconds): backoff_s * draw(), rounded to milliseconds.

    Raises: ValueError when draw() returns something outside [0, 1).
    Example: full_jitter(2.0, ScriptedDraw([0.5])) -> 1.0
    """
    fraction = draw()
    if not 0 <= fraction < 1:
        raise ValueError(f"draw() must return a fraction in [0, 1), got {fraction!r}")
    return round(backoff_s * fraction, 3)


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
    quota = issubclass(kind, QuotaExhausted)  # persistent, not a sign of the provider's health
    return Handling(kind.__name__, kind.code, retry_here=kind.retryable, next_provider=not request_at_fault,
                    counts=not (request_at_fault or quota), alert=issubclass(kind, AuthFailed | QuotaExhausted))


def retry_wait(error: LLMError, attempt: int, policy: RetryPolicy, draw: Draw | None = None) -> float | None:
    """Seconds to wait before retrying the same provider after failed attempt `attempt`, or None for no retry.

    None when the error is not retryable, attempt (int, from 1) is the policy's last, or the wait (the
    backoff, or the provider's retry_after_s when longer) is over policy.cap_s: never retry sooner than asked.
    With draw (a function returning a fraction in [0, 1)), the backoff is full_jitter(backoff, draw), and the
    provider's retry_after_s still sets the least wait.
    Args: error (LLMError); attempt (int >= 1); policy (retry.RetryPolicy); draw (Draw or None: no jitter).
    Returns: float seconds, or None.
    Raises: ValueError naming attempt when it is not an int >= 1.
    Example: retry_wait(RateLimited("busy", "alpha", retry_after_s=1.5), 1, RetryPolicy()) -> 1.5
    """
    if isinstance(attempt, bool) or not isinstance(attempt, int) or attempt < 1:
        raise ValueError(f"attempt must be an int >= 1, got {attempt!r}")
    if not handling(error).retry_here or attempt >= policy.max_attempts:
        return None
    backoff_s = policy.backoff(attempt) if draw is None else full_jitter(policy.backoff(attempt), draw)
    wait_s = max(backoff_s, getattr(error, "retry_after_s", 0.0))
    return None if wait_s > policy.cap_s else wait_s


def handling_table() -> list[Handling]:
    """The Handling of every provider error of the kit, in PROVIDER_ERRORS order. Example: handling_table()[0].code"""
    return [handling(kind) for kind in PROVIDER_ERRORS]
