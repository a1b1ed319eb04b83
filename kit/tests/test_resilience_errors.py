"""Tests of evidencedesk.resilience.errors: real provider errors mapped to the kit's kinds, and QuotaExhausted."""

from __future__ import annotations

import pytest

from evidencedesk.llm import LLMError, MalformedResponse, Overloaded, RateLimited
from evidencedesk.resilience.errors import HTTP, QUOTA_EXHAUSTED, REAL_ERRORS, STREAM, QuotaExhausted, classify


def test_openai_429_splits_into_a_rate_limit_and_an_exhausted_quota() -> None:
    limited, broke = classify("openai", 429, "rate_limit_exceeded"), classify("openai", 429, "insufficient_quota")
    assert isinstance(limited, RateLimited) and limited.retryable
    assert isinstance(broke, QuotaExhausted) and not broke.retryable and broke.code == QUOTA_EXHAUSTED
    assert not isinstance(broke, RateLimited)  # never caught by code that retries rate limits


def test_an_error_inside_a_200_stream_is_a_failure_of_its_kind() -> None:
    assert isinstance(classify("anthropic", 200, "overloaded_error"), Overloaded)
    assert {(r.provider, r.status) for r in REAL_ERRORS if r.where == STREAM} == {("anthropic", 200), ("openai", 200)}
    assert all(r.status != 200 for r in REAL_ERRORS if r.where == HTTP)


def test_every_row_classifies_to_its_kind_and_keeps_the_provider() -> None:
    for row in REAL_ERRORS:
        error = classify(row.provider, row.status, row.name, "text")
        assert type(error) is row.kind and error.provider == row.provider and "text" in str(error)
    assert len({(r.provider, r.status, r.name) for r in REAL_ERRORS}) == len(REAL_ERRORS)  # no row twice
    assert all(issubclass(r.kind, LLMError) for r in REAL_ERRORS)


@pytest.mark.parametrize("provider, status, name", [
    ("openai", 418, "teapot"), ("gemini", 429, "rate_limit_exceeded"), ("nobody", 500, "api_error"),
])
def test_an_undocumented_error_is_a_malformed_response(provider: str, status: int, name: str) -> None:
    error = classify(provider, status, name)
    assert isinstance(error, MalformedResponse) and f"status {status}" in str(error)
