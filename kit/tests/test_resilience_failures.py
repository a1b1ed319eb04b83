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
from evidencedesk.resilience.errors import QuotaExhausted
from evidencedesk.resilience.failures import (
    CONTEXT_POLICIES,
    CONTEXT_POLICY,
    PROVIDER_ERRORS,
    STOP_AND_FIX,
    ScriptedDraw,
    full_jitter,
    handling,
    handling_table,
    retry_wait,
)
from evidencedesk.retry import RetryPolicy
from evidencedesk.usage import CallTimeout

POLICY = RetryPolicy(max_attempts=3, base_s=0.5, cap_s=4.0)


def test_the_table_covers_every_provider_error_of_the_kit_once() -> None:
    kit_errors = {c for c in vars(llm).values() if isinstance(c, type) and issubclass(c, LLMError)}
    # Incomplete is ours, not a provider's; QuotaExhausted is resilience's own (errors.py)
    assert set(PROVIDER_ERRORS) == kit_errors - {LLMError, llm.Incomplete} | {QuotaExhausted}
    assert [h.code for h in handling_table()] == [c.code for c in PROVIDER_ERRORS]


@pytest.mark.parametrize("kind, retry_here, next_provider, counts, alert", [
    (RateLimited, True, True, True, False),
    (Overloaded, True, True, True, False),
    (ServerError, True, True, True, False),
    (LLMTimeout, True, True, True, False),
    (MalformedResponse, False, True, True, False),
    (AuthFailed, False, True, True, True),
    (QuotaExhausted, False, True, False, True),
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
                                   MalformedResponse("no"), QuotaExhausted("no credit", "openai")])
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


def test_full_jitter_draws_a_wait_between_zero_and_the_backoff() -> None:
    draw = ScriptedDraw([0.0, 0.5, 0.999])
    assert [full_jitter(2.0, draw) for _ in range(4)] == [0.0, 1.0, 1.998, 0.0]  # the script starts again
    assert draw.drawn == 4


def test_jitter_never_waits_less_than_the_provider_asked() -> None:
    draw = ScriptedDraw([0.1])
    assert retry_wait(Overloaded("busy"), 2, POLICY, draw) == 0.1  # 1.0 s backoff, a tenth of it
    assert retry_wait(RateLimited("busy", retry_after_s=1.5), 1, POLICY, draw) == 1.5


@pytest.mark.parametrize("fractions", [[], [1.0], [-0.1], [True], ["0.5"]])
def test_a_bad_script_of_fractions_is_named(fractions: list[object]) -> None:
    with pytest.raises(ValueError, match="fractions"):
        ScriptedDraw(fractions)  # type: ignore[arg-type]


def test_a_draw_outside_zero_to_one_is_refused() -> None:
    with pytest.raises(ValueError, match="draw"):
        full_jitter(1.0, lambda: 1.5)


def test_the_context_policy_is_one_named_choice_among_the_documented_ones() -> None:
    assert CONTEXT_POLICY == STOP_AND_FIX and CONTEXT_POLICY in CONTEXT_POLICIES and len(CONTEXT_POLICIES) == 3
    assert not handling(ContextTooLong).next_provider  # the choice the chain follows
