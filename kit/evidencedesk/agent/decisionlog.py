"""Decisions that every copy of a checkpoint in one folder shares: a request decided once stays decided.

A checkpoint file records its own decision, but a copy taken before it (a backup, a file someone
copied before deciding) still shows the request pending. Without a shared record, declining the file
and then approving the copy would send the email the person declined. DecisionLog keeps one line per
decided request, (run id, request id, verdict, decider), in DECISION_LOG in the checkpoint's folder.
checkpoint.decide() holds the log's lock for the whole decision (load, decide, record, save), reads the
log first, and refuses a different verdict, or the same verdict by someone else, as already decided.
The same verdict by the same person goes through again (a retry after a failed save): its send is a
replay of the send log (sendlog.py), so it sends nothing twice.
Left out: copies in another folder (each folder has its own logs; a checkpoint moved elsewhere starts
a new record), signing the log (anyone who can write the folder can edit it), and Windows (locks.py).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from evidencedesk.strictjson import parse_json

DECISION_LOG = "decisions.jsonl"  # the file's name, in the folder of the run's checkpoint
FIELDS = ("run_id", "request_id", "verdict", "by")


class DecisionLogError(ValueError):
    """The decision log cannot be read: the message names the file (never its folder) and the line."""


class DecisionLog:
    """The decisions taken on the requests of the checkpoints in one folder, one JSON line each.

    path (str or Path): the log file, normally <run folder>/DECISION_LOG. The caller holds its lock
    (locks.locked(path)) around reading and writing it.
    Example: DecisionLog(folder / DECISION_LOG).decided("run-1", "pa-1")  # None, or ("declined", "maria")
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def decided(self, run_id: str, request_id: str) -> tuple[str, str] | None:
        """(verdict, decider) of the first decision recorded for a request of a run, or None.

        Raises DecisionLogError naming the file and the line when a line is not a decision record.
        Example: log.decided("run-1", "pa-1") == ("approved", "maria")
        """
        try:
            text = self.path.read_text(encoding="ascii") if self.path.exists() else ""
        except (OSError, ValueError) as exc:
            raise DecisionLogError(f"{self.path.name}: cannot read it ({type(exc).__name__})") from exc
        for number, line in enumerate(text.splitlines(), start=1):
            try:
                record = parse_json(line)
                ok = isinstance(record, dict) and tuple(sorted(record)) == tuple(sorted(FIELDS)) and all(
                    isinstance(record[name], str) for name in FIELDS)
            except ValueError:
                ok = False
            if not ok:
                raise DecisionLogError(f"{self.path.name} line {number}: not a decision record")
            if (record["run_id"], record["request_id"]) == (run_id, request_id):
                return record["verdict"], record["by"]
        return None

    def record(self, run_id: str, request_id: str, verdict: str, by: str) -> None:
        """Append a decision, on disk before the caller lets go of the lock. Raises OSError when it cannot write.

        Example: log.record("run-1", "pa-1", "declined", "maria")
        """
        line = json.dumps(dict(zip(FIELDS, (run_id, request_id, verdict, by), strict=True)), ensure_ascii=True)
        with self.path.open("a", encoding="ascii") as log:
            log.write(line + "\n")
            log.flush()
            os.fsync(log.fileno())
