"""Tests of evidencedesk.agent.identity: a signed token says who is deciding; a typed name proves nothing."""

from __future__ import annotations

import pytest

from evidencedesk.agent.identity import BAD_TOKEN, NOT_SIGNED_IN, NOT_YOU, IdentityError, issue_token, session_of
from evidencedesk.security import Session


def test_a_token_gives_back_the_session_it_was_issued_for() -> None:
    assert session_of(issue_token("maria")) == Session("maria")
    assert session_of(issue_token("maria"), by="maria") == Session("maria")


@pytest.mark.parametrize("token, code", [
    (None, NOT_SIGNED_IN), ("", NOT_SIGNED_IN), ("maria", BAD_TOKEN), ("maria." + "0" * 64, BAD_TOKEN),
    (issue_token("kwame").replace("kwame", "maria"), BAD_TOKEN),  # another name on kwame's signature
    (issue_token("maria").upper(), BAD_TOKEN), (issue_token("maria") + "\n", BAD_TOKEN), (42, BAD_TOKEN),
    (issue_token("maria", key=b"another key"), BAD_TOKEN),
])
def test_a_missing_or_forged_token_is_refused_by_name(token: object, code: str) -> None:
    with pytest.raises(IdentityError) as exc:
        session_of(token)  # type: ignore[arg-type]
    assert exc.value.code == code and (not isinstance(token, str) or not token or token not in str(exc.value))


@pytest.mark.parametrize("by", ["kwame", "Maria", "maria\n", ""])
def test_by_must_name_the_tokens_own_user(by: str) -> None:
    with pytest.raises(IdentityError) as exc:
        session_of(issue_token("maria"), by=by)
    assert exc.value.code == NOT_YOU


@pytest.mark.parametrize("user_id", ["", "Maria", "maria\n", "x" * 41, None])
def test_only_a_plain_user_id_gets_a_token(user_id: object) -> None:
    with pytest.raises(IdentityError, match="user_id"):
        issue_token(user_id)  # type: ignore[arg-type]
