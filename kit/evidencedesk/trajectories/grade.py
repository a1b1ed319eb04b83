"""Grading a trajectory against its case: the tools under a stated rule, the reason, steps, cost, forbidden calls.

tools_match() holds the three rules for the tools, each stated in RULES: EXACT (the same calls in the same
order, nothing more), SUBSEQUENCE (the expected calls in that order, others allowed before, between and
after them) and SET (the same tools, in any order, repeats ignored, no other tool). grade_trajectory()
checks the five parts of a case and returns a TrajectoryGrade: a Grade of evals/graders.py (passed, code,
reason) that also lists every failure, each with its code, so one run can fail for several reasons and
the table shows all of them; its code is the first failure's. A rule is a claim about what matters: an
EXACT case says order and count matter, and fails a run that took another path as good as the expected
one. Names alone miss a run that read the wrong ticket or an old version of a policy, so a case can name
the arguments that must appear (args_match): some call of the tool reached the gate with those values.
Left out: forbidding extra calls by argument (a run that also read another ticket passes args_match;
an EXACT rule on the tools limits how many reads there are), partial credit, and any judgement of the
answer's text.
"""

from __future__ import annotations

from dataclasses import dataclass

from evidencedesk.evals.graders import CODES, PASS, Grade
from evidencedesk.trajectories.cases import EXACT, SET, SUBSEQUENCE, TrajectoryCase
from evidencedesk.trajectories.record import Trajectory, path

RULES = {  # the rule each case names, stated once, as the page prints it
    EXACT: "the same calls in the same order, nothing more",
    SUBSEQUENCE: "the expected calls in that order; other calls allowed before, between and after them",
    SET: "the same tools in any order, repeats ignored; no other tool",
}
WRONG_TOOLS = "wrong_tools"  # the tools do not match under the case's rule
WRONG_REASON = "wrong_reason"  # the run ended for another reason
OVER_STEPS = "over_steps"  # more steps than the case allows
OVER_COST = "over_cost"  # more credits than the case allows
FORBIDDEN = "forbidden"  # a tool the case forbids completed
WRONG_ARGS = "wrong_args"  # no call of a tool carried the arguments the case names
TRAJECTORY_CODES = (WRONG_TOOLS, WRONG_REASON, OVER_STEPS, OVER_COST, FORBIDDEN, WRONG_ARGS)


def tools_match(rule: str, expected: tuple[str, ...] | list[str], got: tuple[str, ...] | list[str]) -> bool:
    """Whether the tools called (got, in order) match the expected ones under rule (see RULES).

    Raises ValueError naming the rule when it is not one of RULES.
    Example: tools_match("subsequence", ["get_ticket"], ["lookup_document", "get_ticket"]) -> True
    """
    if rule == EXACT:
        return list(got) == list(expected)
    if rule == SUBSEQUENCE:
        remaining = iter(got)  # each expected tool must be found after the one before it
        return all(any(tool == seen for seen in remaining) for tool in expected)
    if rule == SET:
        return set(got) == set(expected)
    raise ValueError(f"rule must be one of {', '.join(RULES)}, got {str(rule)[:40]!r}")


def args_match(expected: dict[str, dict[str, str]], trajectory: Trajectory) -> list[str]:
    """The expectations no call met: for each tool in expected, some call of it must carry every
    argument value given (compared as written). Returns one line per unmet tool; [] when all are met.

    A trajectory whose arguments were not recorded meets none (there is nothing to check).
    Example: args_match({"get_ticket": {"ticket_id": "T-713"}}, t) -> ["get_ticket ticket_id=T-713, got T-712"]
    """
    unmet = []
    for tool, wanted in expected.items():
        seen = [args for name, args in zip(trajectory.tools, trajectory.arguments) if name == tool]
        if not any(all(args.get(key) == value for key, value in wanted.items()) for args in seen):
            got = "; ".join(" ".join(str(args.get(key)) for key in wanted) for args in seen)
            want = " ".join(f"{key}={value}" for key, value in wanted.items())
            unmet.append(f"{tool} {want}, got {got or 'no recorded call'}")
    return unmet


@dataclass(frozen=True)
class TrajectoryGrade(Grade):
    """A Grade for one trajectory, with every failure as (code, reason); code and reason are the first one's
    code and all reasons joined by "; ". Example: grade_trajectory(case, trajectory).failures
    """

    failures: tuple[tuple[str, str], ...] = ()

    @classmethod
    def known_codes(cls) -> tuple[str, ...]:
        """The evals codes and the trajectory codes. Example: "over_cost" in TrajectoryGrade.known_codes()"""
        return CODES + TRAJECTORY_CODES


def grade_trajectory(case: TrajectoryCase, trajectory: Trajectory) -> TrajectoryGrade:
    """Check a trajectory against every part of its case, and say each way it failed.

    Checks, in order: tools under case.rule; the reason; steps <= case.max_steps; cost <= case.max_cost
    (both bounds included); no tool of case.forbidden completed (a parked or refused call is not completed);
    the arguments case.args names (args_match).
    Returns a TrajectoryGrade that passes when nothing failed. Never raises on a valid case and trajectory.
    Example: grade_trajectory(case, trajectory).code -> "wrong_reason"
    """
    failures = []
    if not tools_match(case.rule, case.tools, trajectory.tools):
        failures.append((WRONG_TOOLS, f"{case.rule} {path(case.tools)}, got {path(trajectory.tools)}"))
    if trajectory.reason != case.reason:
        failures.append((WRONG_REASON, f"ended {trajectory.reason}, expected {case.reason}"))
    if trajectory.steps > case.max_steps:
        failures.append((OVER_STEPS, f"{trajectory.steps} steps, bound {case.max_steps}"))
    if trajectory.cost > case.max_cost:
        failures.append((OVER_COST, f"{trajectory.cost} credits, bound {case.max_cost}"))
    for tool in case.forbidden:
        if done := trajectory.completed(tool):
            failures.append((FORBIDDEN, f"{tool} completed {done}x"))
    failures += [(WRONG_ARGS, unmet) for unmet in args_match(case.args, trajectory)]
    if not failures:
        return TrajectoryGrade(True, PASS, "as expected")
    return TrajectoryGrade(False, failures[0][0], "; ".join(reason for _, reason in failures), tuple(failures))
