"""One release, stage by stage: the pin check, page 10's gate, a shadow period, a canary; any stage can stop it.

release() takes a candidate (a prompt version and the scripted configuration that stands in for it)
and the served one, and runs, in order: the pin check of snapshots.py (the version's model must be a
snapshot, not an alias, and not shut down), page 10's regression gate on the golden set, unchanged
(decide(): anything but PASS stops the release, UNDECIDED included), a shadow period on copies of live
requests (shadow.py), and a canary on live traffic (canary.py), which rolls itself back, promotes the
version, or ends UNDECIDED (too few canary requests: rolled back, not promoted). Nothing reaches users
before the canary, and the canary reaches only its share of them. The canary's grade for each request
is the one the shadow period gave that request on each side: the scripted fakes answer a request the
same way every time, so grading it again would give the same result (in production the canary's signal
is a live one, and arrives later). Left out: approvals by a person between stages, and
rolling out in several steps after the canary.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from evidencedesk.releases.canary import ROLLED_BACK, UNDECIDED, CanaryResult, Guard, run_canary, traffic
from evidencedesk.releases.candidates import Candidate, catalogue, live_set
from evidencedesk.releases.prompts import PromptRegistry
from evidencedesk.releases.shadow import ShadowReport, shadow
from evidencedesk.releases.snapshots import ALIAS_IN_CONFIG, SHUT_DOWN, check_pin, today
from evidencedesk.trajectories.cases import agent_set, golden_set
from evidencedesk.trajectories.gate import PASS, Decision, decide
from evidencedesk.trajectories.runner import run_set
from evidencedesk.usage import ManualClock

GUARD = Guard("failed checks", tolerance=0.02, min_sample=100, check_every_s=600.0)  # the kit's choices
SHARE = 0.05  # the canary's share of users
REQUESTS, EVERY_S, USERS = 7200, 2.0, 5000  # four hours of traffic, one request every 2 s, from 5000 users
BLOCKING = (ALIAS_IN_CONFIG, SHUT_DOWN)  # pin findings that stop a release; SHUTDOWN_SOON only warns
STOPPED_AT_PIN, STOPPED_AT_GATE, STOPPED_AT_SHADOW = "stopped at pin", "stopped at gate", "stopped at shadow"


@dataclass(frozen=True)
class ReleaseReport:
    """What happened: name, version id, outcome (a STOPPED_AT_* string, ROLLED_BACK, UNDECIDED or PROMOTED), lines
    (one or more per stage reached), and the stage results (None where a stage was not reached)."""

    name: str
    version_id: str
    outcome: str
    lines: tuple[str, ...]
    gate: Decision | None = None
    shadow: ShadowReport | None = None
    canary: CanaryResult | None = None


def release(candidate: Candidate, served: Candidate, registry: PromptRegistry, clock: ManualClock,
            guard: Guard = GUARD, share: float = SHARE) -> ReleaseReport:
    """Take candidate through the stages against served; registry's labels record where each version is.

    registry gets both versions; "production" must point at served's (it is set if missing). The
    canary's salt is the candidate's id, so each release picks its own users. Raises ValueError when
    "production" points elsewhere, or the candidate's id is the served one (nothing changed).
    Example: release(CANDIDATES["thorough"], SERVED, PromptRegistry(), ManualClock()).outcome -> "PROMOTED"
    """
    vid = registry.add(candidate.version)
    if not registry.history("production"):
        registry.point("production", registry.add(served.version))
    if registry.current("production") != served.version.id:
        raise ValueError(f"production runs {registry.current('production')}, "
                         f"not the served version {served.version.id}")
    if vid == served.version.id:
        raise ValueError(f"{candidate.name} is the served version itself ({vid}): nothing to release")
    lines = [f"release {candidate.name} {vid} against {registry.current('production')}"]
    findings = check_pin(candidate.version.model, None, catalogue(), today(clock))
    lines += [w for f in findings for w in _wrap(f"  pin: {f.line()}")] or [
        f"  pin: {candidate.version.model} is a snapshot"]
    if any(f.code in BLOCKING for f in findings):
        return ReleaseReport(candidate.name, vid, STOPPED_AT_PIN, tuple(lines))
    golden = golden_set()
    gate = decide(run_set(golden, served.config), run_set(golden, candidate.config))
    lines += _wrap(f"  gate: {gate.outcome} (exit {gate.exit_code}): {gate.why}")
    if gate.outcome != PASS:
        return ReleaseReport(candidate.name, vid, STOPPED_AT_GATE, tuple(lines), gate)
    live = live_set()
    report = shadow([live, agent_set()], served.config, candidate.config)
    ok, why = report.verdict()
    lines += _wrap(f"  shadow: {len(report.pairs)} requests, {sum(p.path_changed for p in report.pairs)} "
                   f"paths changed; {why}")
    if not ok:
        return ReleaseReport(candidate.name, vid, STOPPED_AT_SHADOW, tuple(lines), gate, report)
    grades = {p.case.id: p.grades() for p in report.pairs[:len(live.cases)]}  # (served, candidate) passed
    registry.point("canary", registry.current("production"))
    registry.point("canary", vid)
    stream = traffic(list(grades), REQUESTS, EVERY_S, USERS)
    start = clock()
    result = run_canary([r.__class__(r.at + start, r.user, r.case_id) for r in stream],
                        lambda case_id, on: not grades[case_id][on], share, vid, guard, registry, clock)
    lines += _wrap(f"  canary: {result.outcome} at t={result.at - start:.0f}s; canary {result.candidate}, "
                   f"control {result.control}")
    lines.append(f"  production -> {registry.current('production')}, canary -> {registry.current('canary')}")
    return ReleaseReport(candidate.name, vid, result.outcome, tuple(lines), gate, report, result)


def _wrap(text: str) -> list[str]:
    """text as lines of at most 78 characters, continuation lines indented by four spaces."""
    return textwrap.wrap(text, 78, subsequent_indent="    ")


__all__ = ["GUARD", "ROLLED_BACK", "UNDECIDED", "ReleaseReport", "release"]
