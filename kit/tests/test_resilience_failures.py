"""Tests of evidencedesk.resilience.failures: what each provider error leads to, and the wait before a retry."""

from __future__ import annotations

import pytest

from evidencedesk import llm
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
from evidencedesk.resilience.failures import PROVIDER_ERRORS, handling, handling_table, retry_wait
from evidencedesk.retry import RetryPolicy
from evidencedesk.usage import CallTimeout

POLICY = RetryPolicy(max_attempts=3, base_s=0.5, cap_s=4.0)


def test_the_table_covers_every_provider_error_of_the_kit_once() -> None:
    kit_errors = {c for c in vars(llm).values() if isinstance(c, type) and issubclass(c, LLMError)}
    assert set(PROVIDER_ERRORS) == kit_errors - {LLMError, llm.Incomplete}  # Incomplete is ours, not a provider's
    assert [h.code for h in handling_table()] == [c.code for c in PROVIDER_ERRORS]


@pytest.mark.parametrize("kind, retry_here, next_provider, counts, alert", [
    (RateLimited, True, True, True, False),
    (Overloaded, True, True, True, False),
    (ServerError, True, True, True, False),
    (LLMTimeout, True, True, True, False),
    (MalformedResponse, False, True, True, False),
    (AuthFailed, False, True, True, True),
    (BadRequest, False, False, False, False),
    (ContextTooLong, False, False, False, False),
])
def test_each_error_class_is_handled_by_the_rules(kind: type[LLMError], retry_here: bool, next_provider: bool,
                                                  counts: bool, alert: bool) -> None:
    h = handling(kind)
    assert (h.retry_here, h.next_provider, h.counts, h.alert) == (retry_here, next_provider, counts, alert)
    assert h.retry_here == kind.retryable and h == handling(kind("x", "alpha"))  # an instance: the same answer


def test_a_subclass_is_handled_like_its_parent() -> None:
    assert handling(CallTimeout(2.5, 2.0)).retry_here and handling(CallTimeout).code == "timeout"


def test_the_wait_doubles_is_capped_and_attempts_run_out() -> None:
    error = Overloaded("busy", "alpha")
    assert [retry_wait(error, n, POLICY) for n in (1, 2, 3)] == [0.5, 1.0, None]
    assert retry_wait(error, 3, RetryPolicy(max_attempts=9, base_s=1.0, cap_s=2.0)) == 2.0


def test_a_retry_is_never_sooner_than_the_provider_asked_and_never_over_the_cap() -> None:
    assert retry_wait(RateLimited("busy", "alpha", retry_after_s=1.5), 1, POLICY) == 1.5
    assert retry_wait(RateLimited("busy", "alpha", retry_after_s=0.1), 2, POLICY) == 1.0  # backoff is longer
    assert retry_wait(RateLimited("busy", "alpha", retry_after_s=30.0), 1, POLICY) is None  # over the 4 s cap


@pytest.mark.parametrize("error", [AuthFailed("no", "alpha"), BadRequest("no"), ContextTooLong("no"),
                                   MalformedResponse("no")])
def test_errors_that_are_not_retryable_get_no_wait(error: LLMError) -> None:
    assert retry_wait(error, 1, POLICY) is None


@pytest.mark.parametrize("attempt", [0, -1, 1.0, True])
def test_a_bad_attempt_number_is_named(attempt: object) -> None:
    with pytest.raises(ValueError, match="attempt"):
        retry_wait(Overloaded("busy"), attempt, POLICY)  # type: ignore[arg-type]


@pytest.mark.parametrize("thing", [ValueError, ValueError("x"), "rate_limited"])
def test_something_that_is_not_a_kit_error_is_refused(thing: object) -> None:
    with pytest.raises(TypeError, match="must be an LLMError"):
        handling(thing)  # type: ignore[arg-type]
