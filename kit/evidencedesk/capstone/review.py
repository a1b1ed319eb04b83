"""The post-incident review of a drill, written from the drill's record, never typed.

review_lines() turns a drill.Drill into a short blameless review: the timeline (each Event on the
drill's clock), what detected the incident, what contained it, what was purged, how long each took,
and what to change. "What to change" is chosen, not written: each entry of CHANGES is a lesson tied to
one condition of the record (the reviewer approved a poisoned note, the email left, nothing found it,
the notes stayed), with the page that teaches the control, so the list is exactly as long as the drill
says it should be. A review always ends with the regression row, the rule of Safe Failure and Security
Regression Tests: an attack found becomes a row of a table. Left out: causes the drill does not record
(why a reviewer approved), owners and dates for each action, and the review meeting itself.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable

from evidencedesk.capstone.drill import POISONED, Drill

WIDTH = 78  # characters per line of the review

APPROVAL = "Human Approval and Multi-Agent Boundaries"
# (condition on the record, what to change, the page of the control)
CHANGES: tuple[tuple[Callable[[Drill], bool], str, str], ...] = (
    (lambda d: d.reached and d.controls.review == "approve",
     "the reviewer approved a note that asks for a later action; show "
     "each held note with its ticket, and decline notes that ask for "
     "an action", APPROVAL),
    (lambda d: d.reached and d.controls.review == "off",
     "model-proposed notes went into memory unreviewed; hold them for "
     "a person", APPROVAL),
    (lambda d: not d.contained,
     "the email tool was registered without its write flag, so the gate "
     "ran it with no grant and no person; test every write tool's flag",
     "Tool Permissions and Failure Handling"),
    (lambda d: d.reached and not d.detected,
     "nothing recorded what the runs did, so nobody learned of it; "
     "trace every run, and alert on a tool its task does not use",
     "Tracing and Cost Attribution"),
    (lambda d: d.detected and not d.purged,
     "the poisoned notes stayed in memory after the finding; purge the "
     "run's notes by run id as the first step of the response", APPROVAL),
)
REGRESSION = (f"add {POISONED}'s note as a row of the poisoning table, so every release plays it",
              "Safe Failure and Security Regression Tests")


def changes(drill: Drill) -> list[tuple[str, str]]:
    """What to change after drill (a Drill): (lesson, page title) for each condition of CHANGES the record
    meets, in order, then REGRESSION when a poisoned note reached memory.

    Example: [page for _, page in changes(run_drill(Controls(tracing=False), tmp))][0]
    """
    found = [(lesson, page) for condition, lesson, page in CHANGES if condition(drill)]
    return found + ([REGRESSION] if drill.reached else [])


def _wrap(label: str, text: str) -> list[str]:
    return textwrap.wrap(f"{label} {text}", WIDTH, subsequent_indent="    ")


def review_lines(drill: Drill) -> list[str]:
    """The post-incident review of drill (a Drill) as lines of at most WIDTH characters.

    Example: review_lines(run_drill(Controls(), tmp))[0] -> "Post-incident review: T-2201, poisoned memory"
    """
    lines = [f"Post-incident review: {POISONED}, poisoned memory", "Timeline (seconds on the drill's clock):"]
    lines += [line for e in drill.events for line in e.lines(WIDTH)]
    finding = drill.finding
    if finding is None:
        lines += _wrap("Detected by:", "nothing; the drill's record is all that shows it")
    else:
        found_at = next(e.at for e in drill.events if e.who == "traces")
        lines += _wrap("Detected by:", f"the traces: {finding.evidence}; its root span names the notes it "
                                       f"loaded, written by {', '.join(finding.source_runs) or 'no tagged run'}, "
                                       f"which read {', '.join(finding.tickets) or 'no ticket'}")
        if drill.reached_at is not None:
            lines.append(f"    {found_at - drill.reached_at:.0f} s after the poisoned notes reached memory")
    held = "no email left" if drill.contained else f"{drill.emails} email(s) left"
    how = ("the gate refused the write: summaries hold no write grant" if drill.controls.gate
           else "nothing: the gate took the email tool for a read and ran it")
    lines += _wrap("Contained by:", f"{how}; {held}"
                   + (f"; {', '.join(drill.quarantined)} quarantined" if drill.quarantined else ""))
    lines += _wrap("Purged:", f"{len(drill.purged)} notes ({', '.join(drill.purged)})" if drill.purged
                   else "nothing")
    lines.append("What to change:")
    for lesson, page in changes(drill):
        lines += textwrap.wrap(f"- {lesson} ({page})", WIDTH, subsequent_indent="  ")
    return lines
