"""The approval page's file-locked send log (agent/sendlog.py) under the crash this subpackage stages.

SendLog checks a key, calls the mail service and then writes the key to its log, all under one flock.
A process that dies after the mail service accepted the draft and before the line is written leaves the
log without the key, so the retry sends again. Whether the customer then gets one email or two is up to
the mail service: Outbox (helpdesk.py) remembers keys and answers a repeat with the first result;
PlainMail, a service that takes no key, sends every call. The flock itself is one machine's: processes on
two machines do not share it.
Left out: the checkpoint and decision logs of that page, which this crash does not touch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from evidencedesk.agent.sendlog import SEND_LOG, SendLog
from evidencedesk.helpdesk import Outbox
from evidencedesk.outbox.crash import Boundary, SimulatedCrash
from evidencedesk.tools import ToolResult


@dataclass
class PlainMail:
    """A mail service that takes no idempotency key: every call sends. `sent` lists what it sent."""

    sent: list[dict[str, str]] = field(default_factory=list)

    def send_email_draft(self, to: str, subject: str, body: str, idempotency_key: str) -> ToolResult:
        """Send one draft, whatever the key. Example: PlainMail().send_email_draft("a@example.org", "s", "b", "k")"""
        self.sent.append({"to": to, "subject": subject, "body": body, "idempotency_key": idempotency_key})
        return ToolResult.success({"queued": True, "idempotency_key": idempotency_key})


@dataclass
class DiesAfterSend:
    """A transport that hands the draft to `service` and then dies before returning (AFTER_SEND)."""

    service: Outbox | PlainMail

    def send_email_draft(self, to: str, subject: str, body: str, idempotency_key: str) -> ToolResult:
        """Send through the service, then raise SimulatedCrash(AFTER_SEND)."""
        self.service.send_email_draft(to, subject, body, idempotency_key)
        raise SimulatedCrash(Boundary.AFTER_SEND)


def send_log_retry(folder: str | Path, service: Outbox | PlainMail) -> tuple[int, int]:
    """One send through SendLog that dies after the service accepted it, then the retry in a new process.

    Args: folder (an existing folder for SEND_LOG); service (the mail service both lives talk to: it is
    another system, so it outlives the crash). Returns: (lines in the send log, drafts the service sent).
    Example: send_log_retry(tmp, PlainMail()) -> (1, 2)
    """
    log_path = Path(folder) / SEND_LOG
    draft = ("buyer.2001@example.org", "Re: T-2001", "Your refund is approved.", "r-2001/2/send_reply")
    try:
        SendLog(log_path, DiesAfterSend(service)).send_email_draft(*draft)  # type: ignore[arg-type]
    except SimulatedCrash:
        pass  # the process is gone; its flock went with it
    SendLog(log_path, service).send_email_draft(*draft)  # type: ignore[arg-type]
    return len(log_path.read_text(encoding="ascii").splitlines()), len(service.sent)
