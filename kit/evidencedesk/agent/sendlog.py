"""The idempotency store that every process able to send shares: one file in the run's folder, locked.

An Outbox (helpdesk.py) remembers its keys in memory, so it guards one process only: a second process
that approves a copy of the same checkpoint has an Outbox of its own and would send again. SendLog
puts the memory in a file instead, SEND_LOG in the folder of the checkpoint, and checks a key and
sends while it holds that file's lock (locks.py). A key is recorded with a SHA-256 of its draft (to,
subject, body) and the result the mail service gave; the draft itself is never written there. A
repeat with the same draft gets the first result back and sends nothing; the same key with another
draft is refused as DUPLICATE (the behaviour of Stripe's idempotent requests, see helpdesk.py).
Left out: a crash between the mail service's send and the log's write (a retry would send again; a
real mail service that takes the key itself closes that gap), expiry of old keys, and Windows.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from evidencedesk.agent.locks import locked
from evidencedesk.helpdesk import Outbox
from evidencedesk.strictjson import parse_json
from evidencedesk.tools import DUPLICATE, ToolResult, clip

SEND_LOG = "sends.jsonl"  # the file's name, in the folder of the run's checkpoint


class SendLogError(ValueError):
    """The send log cannot be read: the message names the file (never its folder) and the line. Nothing is sent."""


def draft_digest(to: str, subject: str, body: str) -> str:
    """SHA-256 (hex) of a draft's canonical JSON: the same draft always gives the same digest.

    Example: draft_digest("a@example.org", "Hi", "Text") == draft_digest("a@example.org", "Hi", "Text")
    """
    canonical = json.dumps([to, subject, body], ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


class SendLog:
    """An Outbox whose idempotency keys live in a locked file, so that they hold across processes.

    path (str or Path: the log file, normally <run folder>/SEND_LOG); transport (Outbox: the mail
    service this process sends through). `sent` is what this process really sent (transport.sent).
    Example: SendLog(folder / SEND_LOG, Outbox()).send_email_draft("a@example.org", "Hi", "Text", "key-0001").ok
    """

    def __init__(self, path: str | Path, transport: Outbox) -> None:
        self.path, self.transport = Path(path), transport

    @property
    def sent(self) -> list[dict[str, str]]:
        """The drafts this process sent through its transport, in order."""
        return self.transport.sent

    def send_email_draft(self, to: str, subject: str, body: str, idempotency_key: str) -> ToolResult:
        """Send a draft once per key across every process that shares the log.

        Args: to, subject, body, idempotency_key (str; the gate validates them first).
        Returns: the transport's result, recorded; on a repeat with the same draft, the recorded result
        (nothing sent); failure DUPLICATE for the same key with another draft (nothing sent).
        Raises: SendLogError naming the file and line when the log is not one of ours; OSError when the
        folder cannot be written.
        Example: log.send_email_draft("a@example.org", "Hi", "Text", "key-0001").data["queued"] -> True
        """
        digest = draft_digest(to, subject, body)
        with locked(self.path):  # no other process checks or sends from here until the line is written
            first = self._records().get(idempotency_key)
            if first is not None:
                if first["draft"] != digest:
                    return ToolResult.failure(DUPLICATE, f"idempotency key {clip(idempotency_key, 64)} was first "
                                                         "used for a different draft; nothing sent")
                return ToolResult.success(first["result"])  # the first answer, and nothing sent again
            result = self.transport.send_email_draft(to, subject, body, idempotency_key)
            if result.ok:  # only a send that happened is recorded; a refusal can be retried
                line = json.dumps({"key": idempotency_key, "draft": digest, "result": result.data},
                                  sort_keys=True, ensure_ascii=True)
                with self.path.open("a", encoding="ascii") as log:
                    log.write(line + "\n")
                    log.flush()
                    os.fsync(log.fileno())  # on disk before the lock is let go
            return result

    def _records(self) -> dict[str, dict[str, object]]:
        """key -> {"draft", "result"} of every line; raises SendLogError naming a line that is not ours."""
        records: dict[str, dict[str, object]] = {}
        try:
            text = self.path.read_text(encoding="ascii")
        except (OSError, ValueError) as exc:
            raise SendLogError(f"{self.path.name}: cannot read it ({type(exc).__name__}); nothing sent") from exc
        for number, line in enumerate(text.splitlines(), start=1):
            try:
                record = parse_json(line)
                ok = isinstance(record, dict) and set(record) == {"key", "draft", "result"} and all(
                    isinstance(record[k], t) for k, t in (("key", str), ("draft", str), ("result", dict)))
            except ValueError:
                ok = False
            if not ok:
                raise SendLogError(f"{self.path.name} line {number}: not a send record; nothing sent")
            records.setdefault(record["key"], record)
        return records
