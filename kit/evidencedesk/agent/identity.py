"""Who is deciding: a signed session token, checked before anyone's decision counts.

An approval desk takes its decider as a Session (security.py), never as a name typed in. A person
deciding from another process (the command line) proves who they are with a token that the sign-in
service issued: "<user id>.<HMAC-SHA256 of the user id, hex>", signed under a key the application
keeps outside the kit's files. session_of() checks the token and gives back the Session; a name
given next to it must be the token's own (--by cannot name someone else).
Left out: the sign-in itself (passwords, single sign-on), expiry and revocation of tokens, and
rotating the key.
"""

from __future__ import annotations

import hashlib
import hmac
import re

from evidencedesk.security import Session

# Invented for the course: a real key lives in the sign-in service's secret store, never in code or files.
SIMULATED_SESSION_KEY = b"simulated-session-key-not-for-production"
TOKEN_ENV = "EVIDENCEDESK_SESSION"  # the environment variable the command line reads the token from
USER_ID = r"[a-z][a-z0-9-]{0,39}"
TOKEN = re.compile(rf"^({USER_ID})\.([0-9a-f]{{64}})$")

# Why a token is refused (IdentityError.code)
NOT_SIGNED_IN = "not_signed_in"  # no token at all
BAD_TOKEN = "bad_token"  # not a token, or a signature that does not match
NOT_YOU = "not_you"  # a name was given that is not the token's


class IdentityError(ValueError):
    """A token or name that does not prove who is deciding. code: NOT_SIGNED_IN, BAD_TOKEN or NOT_YOU.

    The message never repeats the token. Example: IdentityError("bad_token", "the signature does not match")
    """

    def __init__(self, code: str, problem: str) -> None:
        super().__init__(f"{code}: {problem}")
        self.code = code


def _signature(user_id: str, key: bytes) -> str:
    return hmac.new(key, user_id.encode("ascii"), hashlib.sha256).hexdigest()


def issue_token(user_id: str, key: bytes = SIMULATED_SESSION_KEY) -> str:
    """What the sign-in service hands a person it has checked: their token.

    Args: user_id (str, lower-case letters, digits and "-", at most 40 characters); key (bytes).
    Raises: IdentityError(BAD_TOKEN) naming user_id when it is not such a name.
    Example: issue_token("maria").startswith("maria.") -> True
    """
    if not isinstance(user_id, str) or not re.fullmatch(USER_ID, user_id):
        raise IdentityError(BAD_TOKEN, "user_id must be lower-case letters, digits and '-', at most 40 characters")
    return f"{user_id}.{_signature(user_id, key)}"


def session_of(token: str | None, by: str | None = None, key: bytes = SIMULATED_SESSION_KEY) -> Session:
    """The Session a token proves, after checking its signature; by, when given, must be that user.

    Args: token (str or None, as issue_token made it); by (str or None, a name typed next to it); key (bytes).
    Returns: Session(user_id). Raises IdentityError: NOT_SIGNED_IN (no token), BAD_TOKEN (malformed, or a
    signature that does not match), NOT_YOU (by names someone else).
    Example: session_of(issue_token("maria"), by="maria").user_id -> "maria"
    """
    if token is None or token == "":
        raise IdentityError(NOT_SIGNED_IN, f"no session token (set {TOKEN_ENV})")
    match = TOKEN.fullmatch(token) if isinstance(token, str) else None
    if match is None or not hmac.compare_digest(match.group(2), _signature(match.group(1), key)):
        raise IdentityError(BAD_TOKEN, "the session token is malformed or its signature does not match")
    if by is not None and by != match.group(1):
        raise IdentityError(NOT_YOU, f"the session belongs to {match.group(1)}, not to the name given")
    return Session(match.group(1))
