"""Safe failure: when a check cannot decide, the answer is no; the user learns little, the team learns all.

fail_closed() runs a yes/no check and allows only a plain True: False, None, "yes", 1 and an
exception all refuse. within() compares a number with a limit so that anything that is not a
finite number (NaN, infinity, None) can only refuse. ErrorLog.report() turns one failure into two
records under the same reference: a PublicError for the user (a fixed sentence for its code,
nothing taken from the failure) and a full entry for the team, redacted with security.redact_log.
Left out: alerting, where the log is stored, and how long it is kept.
"""

from __future__ import annotations

import math
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from evidencedesk.security import redact_log
from evidencedesk.tools import (
    CALL_LIMIT,
    DUPLICATE,
    INVALID_ARGUMENTS,
    NEEDS_APPROVAL,
    NOT_ALLOWED,
    NOT_FOUND,
    TOO_LARGE,
    TOOL_ERROR,
    ToolResult,
    clip,
)

INTERNAL = "internal"  # the public code for everything without a sentence of its own: exceptions, unknown codes
# What a user is told, per code. Fixed sentences: nothing from the failure itself (ids, names, paths, values)
# can reach the user, so an error message cannot leak.
USER_MESSAGES: dict[str, str] = {
    NOT_FOUND: "We could not find that.",
    NOT_ALLOWED: "That action is not available here.",
    INVALID_ARGUMENTS: "The request was not in a form we accept.",
    TOO_LARGE: "The request was too large.",
    CALL_LIMIT: "This request reached its limit of steps.",
    NEEDS_APPROVAL: "A person has to approve this first.",
    DUPLICATE: "That was already done.",
    TOOL_ERROR: "Something went wrong on our side.",
    INTERNAL: "Something went wrong on our side.",
}
MAX_DETAIL_CHARS = 400  # one log entry's detail, after redaction


class Decision(NamedTuple):
    """The answer of a checked yes/no question: allowed (bool) and reason (str, for the log).

    Example: Decision(False, "can_read raised KeyError").allowed -> False
    """

    allowed: bool
    reason: str


def fail_closed(check: Callable[[], object], name: str = "check") -> Decision:
    """Run check() and allow only when it returns True itself; anything else refuses.

    A check that raises, returns False or None, or returns something merely truthy ("yes", 1, a list)
    has not said yes, so the answer is no. Args: check (callable without arguments); name (str, for
    the reason). Returns: Decision. Never raises (an exception from check is the reason, by type only).
    Example: fail_closed(lambda: {}["policy"], "policy lookup") -> Decision(False, "policy lookup raised KeyError")
    """
    try:
        verdict = check()
    except Exception as exc:  # a check that cannot decide has decided: no
        return Decision(False, f"{name} raised {type(exc).__name__}")
    if verdict is True:
        return Decision(True, f"{name} said yes")
    return Decision(False, f"{name} returned {type(verdict).__name__}, not True")


def within(used: object, limit: object) -> bool:
    """True only when used and limit are finite numbers (int or float, not bool) and used <= limit.

    Write limits as "go on while within", never "stop when over": NaN > limit is False, so a check
    that stops when over never stops on NaN, while within() refuses it. Units are the caller's
    (seconds, tokens, credits). Returns: bool. Never raises.
    Example: within(float("nan"), 5.0) -> False
    """
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (used, limit))
    return numbers and math.isfinite(used) and math.isfinite(limit) and used <= limit  # type: ignore[arg-type,operator]


@dataclass(frozen=True)
class PublicError:
    """What the user sees: code (a key of USER_MESSAGES), message (its fixed sentence), reference (str).

    Example: str(PublicError("not_found", "We could not find that.", "ref-0001"))  # "We could not find that. (ref-0001)"
    """

    code: str
    message: str
    reference: str

    def __str__(self) -> str:
        return f"{self.message} ({self.reference})"


def _logged(value: object, limit: int) -> str:
    """Redact the whole text first, then clip: clipping first could cut a key short enough to escape redaction."""
    return clip(redact_log(clip(value, None)), limit)


@dataclass
class ErrorLog:
    """The team's side of every failure: one redacted entry per report, under the reference the user got.

    Entries: {"reference", "code", "user", "detail", "where"}; references run ref-0001, ref-0002, ...
    Example: log = ErrorLog(); log.report("not_found", "no ticket T-503", "kwame").reference -> "ref-0001"
    """

    entries: list[dict[str, str]] = field(default_factory=list)

    def report(self, code: object, detail: object, user: object = "", where: str = "") -> PublicError:
        """Log one failure in full (redacted) and return what the user may see.

        Args: code (str, a result code; anything else is logged and shown as INTERNAL); detail (any value,
        the full story); user (str, who was affected); where (str, the function that failed).
        Returns: PublicError with a fixed sentence. Never raises.
        Example: log.report("not_found", "no ticket T-503", "kwame").message -> "We could not find that."
        """
        reference = f"ref-{len(self.entries) + 1:04d}"
        public = code if isinstance(code, str) and code in USER_MESSAGES else INTERNAL
        self.entries.append({"reference": reference, "code": _logged(code, 40), "user": _logged(user, 40),
                             "detail": _logged(detail, MAX_DETAIL_CHARS), "where": _logged(where, 80)})
        return PublicError(public, USER_MESSAGES[public], reference)

    def report_result(self, result: ToolResult, user: str = "", where: str = "") -> PublicError:
        """Report a failed ToolResult: its code and its message; where (str) names the tool or step.

        Example: log.report_result(gate.run(call, "triage", "run-1", "kwame"), "kwame", "get_ticket").code
        """
        return self.report(result.code, (result.error or {}).get("message", ""), user, where)

    def report_exception(self, exc: BaseException, user: str = "") -> PublicError:
        """Report an exception as INTERNAL: its type and message, and the function it was raised in (no paths).

        Example: log.report_exception(KeyError("policy"), "kwame").code -> "internal"
        """
        frames = traceback.extract_tb(exc.__traceback__)
        where = frames[-1].name if frames else ""
        return self.report(INTERNAL, f"{type(exc).__name__}: {clip(exc, None)}", user, where)
