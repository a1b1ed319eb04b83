"""Shadow runs: the candidate answers copies of live requests beside the served version, is compared, never served.

shadow() runs each request twice, in two fresh labs: once under the served configuration with its
normal gate (what the user gets), and once under the candidate with a ShadowGate. The ShadowGate is
page 10's RecordingGate with one change: a write is never parked and never run. It still goes through
every check (allowlist, grant, limits), and the candidate is told what the served gate would have
said ("needs_approval"), so both runs follow the same rules; but nothing is stored for a person to
approve, so no email can leave twice. Reads run for real in both: a read has no side effect, though
it does cost a call. Each pair is compared: the path (tools and arguments), the stop reason, the
credits, and the grade of the request's expected trajectory. RULE decides whether the candidate may go
on to a canary: no request may end for another reason, and the candidate's credits may not exceed the
served version's by more than COST_TOLERANCE; a changed path is listed for a person, not blocked,
since every intended change changes paths. Left out: latency, sampling which requests to copy,
and storing shadow outputs (which hold user data, and need the same care as the served ones).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import Decimal

from evidencedesk.gate import DECISION_ORDER, ToolGate
from evidencedesk.tools import NEEDS_APPROVAL, NOT_FOUND, ToolCall, ToolResult
from evidencedesk.trajectories.candidates import AgentConfig
from evidencedesk.trajectories.cases import EvalSet, TrajectoryCase
from evidencedesk.trajectories.grade import grade_trajectory
from evidencedesk.trajectories.record import RecordingGate, Trajectory, trajectory_of
from evidencedesk.trajectories.runner import build_agent

COST_TOLERANCE = Decimal("0.25")  # the kit's choice: the candidate may spend up to 25% more credits in shadow
RULE = ("no shadow request ends for another stop reason than the served one, and the candidate's credits "
        f"exceed the served version's by at most {COST_TOLERANCE:.0%}; changed paths are listed, not blocked")


class ShadowGate(RecordingGate):
    """A gate for shadow runs: every check as usual, but a write is suppressed instead of parked.

    The caller gets the answer the served gate would give (NEEDS_APPROVAL, with a pending id
    "shadow-N"), yet nothing is kept in pending, so approve() and decline() find nothing.
    Attribute suppressed (list of (tool name, arguments)). Same arguments as ToolGate.
    Example: gate = ShadowGate(registry, policy); gate.run(call, "reply", "r1", "kwame").code -> "needs_approval"
    """

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.suppressed: list[tuple[str, dict[str, object]]] = []

    def _decide(self, call: ToolCall, task: str, run_id: str, caller: str) -> ToolResult:
        """ToolGate's checks in DECISION_ORDER, with the last one (park a write) replaced by _suppress.

        Fails closed: a write that gets past every check (a decision order without the parking check)
        is suppressed too, never executed; only a read reaches registry.execute.
        """
        for check in DECISION_ORDER:
            ask = ShadowGate._suppress if check.ask is ToolGate._park else check.ask
            if (stopped := ask(self, call, task, run_id, caller)) is not None:
                return stopped
        if (stopped := self._suppress(call, task, run_id, caller)) is not None:
            return stopped
        return self.registry.execute(call, caller)  # a read runs, as it would in the served run

    def _suppress(self, call: ToolCall, task: str, run_id: str,
                  caller: str) -> ToolResult | None:
        """In place of ToolGate._park: a write is noted, never parked."""
        if not self.registry.get(call.name).writes:
            return None  # a read goes on and runs
        args = call.arguments if isinstance(call.arguments, dict) else {}
        self.suppressed.append((call.name, dict(args)))
        return ToolResult.failure(
            NEEDS_APPROVAL, f"shadow run: {call.name} suppressed, not parked",
            pending_id=f"shadow-{len(self.suppressed)}")

    def approve(self, pending_id: str, holder: object = None) -> ToolResult:
        """Refused: a shadow run parks nothing, so there is nothing to approve."""
        return ToolResult.failure(NOT_FOUND, "shadow runs park nothing; nothing to approve")

    def decline(self, pending_id: str, holder: object = None) -> ToolResult:
        """Refused, as approve()."""
        return ToolResult.failure(NOT_FOUND, "shadow runs park nothing; nothing to decline")


@dataclass(frozen=True)
class ShadowPair:
    """One request, served and shadowed: case (TrajectoryCase), served and shadow (Trajectory), parked
    (int, writes the served gate parked for a person), suppressed (int, writes the shadow gate suppressed)."""

    case: TrajectoryCase
    served: Trajectory
    shadow: Trajectory
    parked: int
    suppressed: int

    @property
    def path_changed(self) -> bool:
        """Whether the tools or their arguments differ."""
        return (self.served.tools, self.served.arguments) != (self.shadow.tools, self.shadow.arguments)

    @property
    def reason_changed(self) -> bool:
        """Whether the two runs ended for different reasons."""
        return self.served.reason != self.shadow.reason

    def grades(self) -> tuple[bool, bool]:
        """(served passed, shadow passed) against the request's expected trajectory."""
        return (grade_trajectory(self.case, self.served).passed, grade_trajectory(self.case, self.shadow).passed)


def shadow_pair(case: TrajectoryCase, served: AgentConfig, candidate: AgentConfig, eval_set: EvalSet) -> ShadowPair:
    """Run one request under served (normal gate) and candidate (ShadowGate), each in a fresh lab.

    Example: shadow_pair(case, CONFIGS["baseline"], CONFIGS["terse"], golden_set()).path_changed
    """
    live = build_agent(case, served, eval_set.tickets)
    live_run = live.run(case.goal, run_id=f"{case.id}-live")
    copy = build_agent(case, candidate, eval_set.tickets)
    gate = ShadowGate(copy.gate.registry, copy.gate.policy)
    copy = replace(copy, gate=gate)
    copy_run = copy.run(case.goal, run_id=f"{case.id}-shadow")
    return ShadowPair(case, trajectory_of(live_run, live.gate.calls), trajectory_of(copy_run, gate.calls),
                      len(live.gate.pending), len(gate.suppressed))


@dataclass(frozen=True)
class ShadowReport:
    """The comparison of a shadow period: pairs (ShadowPair, in request order), the verdict and why."""

    served: str
    candidate: str
    pairs: tuple[ShadowPair, ...]

    @property
    def costs(self) -> tuple[Decimal, Decimal]:
        """(served credits, shadow credits), summed over the pairs."""
        return (sum((p.served.cost for p in self.pairs), Decimal(0)),
                sum((p.shadow.cost for p in self.pairs), Decimal(0)))

    def verdict(self) -> tuple[bool, str]:
        """(may go on to a canary, one line why), by RULE."""
        changed = [p.case.id for p in self.pairs if p.reason_changed]
        if changed:
            return False, f"stop reason changed on {' '.join(changed)}"
        served, shadow = self.costs
        if shadow > served * (1 + COST_TOLERANCE):
            return False, f"credits {shadow} against {served}: over {COST_TOLERANCE:.0%} more"
        return True, f"same stop reasons; credits {shadow} against {served}"

    def lines(self) -> list[str]:
        """A short report: counts, the changed paths, and the verdict."""
        paths = [p.case.id for p in self.pairs if p.path_changed]
        worse = [p.case.id for p in self.pairs if p.grades() == (True, False)]
        ok, why = self.verdict()
        return [f"shadow: {self.served} served, {self.candidate} shadowed, {len(self.pairs)} requests",
                f"  paths changed {len(paths)}: {' '.join(paths) or 'none'}",
                f"  passed served, failed shadow {len(worse)}: {' '.join(worse) or 'none'}",
                f"  writes: {sum(p.parked for p in self.pairs)} parked by the served gate, "
                f"{sum(p.suppressed for p in self.pairs)} suppressed in shadow",
                f"{'GO ON' if ok else 'STOP'}: {why}"]


def shadow(sets: Sequence[EvalSet], served: AgentConfig, candidate: AgentConfig) -> ShadowReport:
    """Shadow every request of every set, in order. Example: shadow([live_set()], base, cand).verdict()"""
    pairs = tuple(shadow_pair(c, served, candidate, s) for s in sets for c in s.cases)
    return ShadowReport(served.name, candidate.name, pairs)
