"""The command line for a paused run: start it, decide on it, resume it, read its audit log.

Each command is one process that loads the checkpoint file, acts once and saves it again, so the
commands can run in separate processes, hours apart, on different machines:

    python -m evidencedesk.agent.cli start b01 run.json        # run row b01 of boundaries.jsonl until it parks
    EVIDENCEDESK_SESSION=<maria's token> python -m evidencedesk.agent.cli approve run.json pa-1 --by maria --after 120
    python -m evidencedesk.agent.cli resume run.json
    python -m evidencedesk.agent.cli audit run.json

A decision counts only for a signed-in person: the token in $EVIDENCEDESK_SESSION (identity.py)
says who is deciding, and --by, when given, must name that same person. Output names files by their
name only, never by their path. Exit status: 0 when the command did what it says, 1 when it was
refused (a named code on stderr), 2 for a bad command line.
Left out: the sign-in that issues tokens (identity.py says what a real one checks).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

from evidencedesk.agent.approval import APPROVED
from evidencedesk.agent.boundaries import load_rows, start
from evidencedesk.agent.checkpoint import Checkpoint, CheckpointError, decide, resume
from evidencedesk.agent.identity import TOKEN_ENV, IdentityError, session_of
from evidencedesk.agent.state import AWAITING
from evidencedesk.gate import one_line
from evidencedesk.helpdesk import Outbox


def _start(args: argparse.Namespace) -> int:
    rows = {row["id"]: row for row in load_rows()}
    if args.row not in rows:
        print(f"refused: no row {args.row[:10]!r} in boundaries.jsonl", file=sys.stderr)
        return 1
    try:
        checkpoint, _, _ = start(rows[args.row])
    except ValueError as exc:  # a team row: no single run to save
        print(f"refused: {exc}", file=sys.stderr)
        return 1
    state = checkpoint.state
    checkpoint.save(args.file)
    if state.status == AWAITING:
        request = checkpoint.desk.requests[state.pending_id]
        print(f"{state.run_id}: {state.status}, {request.id} ({request.tool}) asked of an approver\n"
              f"  expires at {request.expires_at:.1f} s; saved {args.file.name}")
    else:
        print(f"{state.run_id}: {state.status} {state.reason}; saved {args.file.name}")
    return 0


def _decide(args: argparse.Namespace) -> int:
    shown = one_line(args.id[:10])  # an id is printed on one line, whatever it holds
    try:
        person = session_of(os.environ.get(TOKEN_ENV), by=args.by)
    except IdentityError as exc:
        print(f"refused: {args.command} {shown}: {exc}\n  nothing ran", file=sys.stderr)
        return 1
    outbox = Outbox()  # this process's mail service; the folder's send log decides whether it is used
    try:
        verdict = decide(args.file, args.id, args.command, person, after_s=args.after, outbox=outbox)
    except OSError as exc:  # the checkpoint could not be written, perhaps after the send: say what was sent
        print(f"refused: {args.file.name}: cannot write it ({type(exc).__name__}); "
              f"emails sent by this process: {len(outbox.sent)}", file=sys.stderr)
        return 1
    sent = f"emails sent by this process: {len(outbox.sent)}"
    if not verdict.ok:
        print(f"refused: {args.command} {shown} by {person.user_id}: {verdict.code}\n  {sent}", file=sys.stderr)
        return 1
    ran = f"; the gate ran it: {verdict.result.code}" if verdict.code == APPROVED else ""
    print(f"{shown}: {verdict.code} by {person.user_id}{ran}\n  {sent}; saved {args.file.name}")
    return 0


def _resume(args: argparse.Namespace) -> int:
    resumed = resume(args.file, after_s=args.after)
    print(f"{resumed.state.run_id}: {resumed.code}, now {resumed.state.status} ({resumed.state.reason})\n"
          f"  nothing sent by this process; saved {args.file.name}")
    return 0


def _audit(args: argparse.Namespace) -> int:
    for event in Checkpoint.load(args.file).desk.gate.audit.events:
        who, what = f"{event['call_id']:<7} {event['tool']:<17} {event['caller']:<6}", event["outcome"]
        print(f"{who} {what:<17} {event['detail']}")
    return 0


def parser() -> argparse.ArgumentParser:
    """The argument parser: start, approve, decline, cancel, resume, audit."""
    top = argparse.ArgumentParser(prog="python -m evidencedesk.agent.cli", description=__doc__.split("\n")[0])
    commands = top.add_subparsers(dest="command", required=True)
    begin = commands.add_parser("start", help="run a row of boundaries.jsonl until it ends or parks; save it")
    begin.add_argument("row")
    begin.add_argument("file", type=Path)
    for verdict in ("approve", "decline", "cancel"):
        one = commands.add_parser(verdict, help=f"{verdict} the pending action of a checkpoint")
        one.add_argument("file", type=Path)
        one.add_argument("id")
        one.add_argument("--by", help=f"the person deciding (user id); must be the one ${TOKEN_ENV} signs in")
        one.add_argument("--after", type=float, default=0.0, help="seconds that pass on the run's clock first")
    again = commands.add_parser("resume", help="continue a paused run from its checkpoint")
    again.add_argument("file", type=Path)
    again.add_argument("--after", type=float, default=0.0, help="seconds that pass on the run's clock first")
    log = commands.add_parser("audit", help="print the audit log a checkpoint carries")
    log.add_argument("file", type=Path)
    return top


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns the exit status (0 done, 1 refused). Example: main(["resume", "run.json"])"""
    args = parser().parse_args(argv)
    if not 0 <= getattr(args, "after", 0.0) < math.inf:  # also false for nan
        print("refused: --after must be a finite number of seconds >= 0", file=sys.stderr)
        return 2
    action = {"start": _start, "approve": _decide, "decline": _decide, "cancel": _decide,
              "resume": _resume, "audit": _audit}[args.command]
    try:
        return action(args)
    except CheckpointError as exc:
        print(f"refused: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # the checkpoint could not be written (no such folder, no permission)
        print(f"refused: {args.file.name}: cannot write it ({type(exc).__name__})", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
