"""Run a configuration over an eval set of trajectory cases, grade each run's trajectory, keep every result.

run_case() builds the agent for one case in the agent page's lab (agent.scenarios.lab: the manual
clock, the gate with its default policy, the ledger, a session memory), then changes three things: the
tickets are the eval set's, the model is the configuration's unless the case pins a fake model, and the
loop is the configuration's Agent class. It runs the goal and reads the Trajectory from the run's trace
and ledger. run_set() grades every case and returns the EvalRun of evals/runner.py (results in case
order, each reply being the trajectory's one-line summary, each grade a TrajectoryGrade), so the
statistics of evals/ (wilson, pair) apply unchanged. repeat() runs a set several times, with run
indexes 0, 1, 2, ..., for finding flaky cases (flaky.py). Left out: running cases in parallel.
"""

from __future__ import annotations

from dataclasses import fields, replace
from pathlib import Path

from evidencedesk import DATA_DIR
from evidencedesk.agent.loop import Agent, ModelDecider, RunBudget
from evidencedesk.agent.scenarios import lab
from evidencedesk.evals.runner import EvalRun, Result
from evidencedesk.helpdesk import DocumentStore, TicketStore, default_registry
from evidencedesk.trajectories.candidates import AgentConfig
from evidencedesk.trajectories.cases import EvalSet, TrajectoryCase
from evidencedesk.trajectories.grade import grade_trajectory
from evidencedesk.trajectories.record import RecordingGate, Trajectory, trajectory_of
from evidencedesk.usage import SlowClient

MAX_RUNS = 50  # repeat() refuses more: re-running finds flakes in a few runs, and each run costs a full set


def build_agent(case: TrajectoryCase, config: AgentConfig, tickets_path: Path, run_index: int = 0) -> Agent:
    """The agent for one case under one configuration, ready to run (a fresh lab each time).

    Args: case (TrajectoryCase); config (AgentConfig); tickets_path (Path of the set's tickets);
    run_index (int >= 0, passed to the configuration's model). Example: build_agent(case, CONFIGS["terse"], path)
    """
    limits = case.limits.model_dump(exclude_none=True)
    max_calls = limits.pop("max_calls", 10)
    agent, outbox = lab(case.model or "sensible", user=case.user, task=case.task, grant=case.grant,
                        budget=RunBudget(**limits), slow=case.slow, max_calls=max_calls)
    registry = default_registry(TicketStore.from_file(tickets_path),
                                DocumentStore.from_file(DATA_DIR / "documents.json"), outbox)
    changes: dict[str, object] = {"gate": RecordingGate(registry, agent.gate.policy)}
    if case.model is None:  # the configuration's model, slowed like the lab's when the case asks
        client = config.model(run_index)
        changes["decider"] = ModelDecider(SlowClient(client, agent.clock, base_s=case.slow) if case.slow else client)
    agent = replace(agent, **changes)
    return config.agent(**{f.name: getattr(agent, f.name) for f in fields(Agent)})


def run_case(case: TrajectoryCase, config: AgentConfig, eval_set: EvalSet, run_index: int = 0) -> Trajectory:
    """Run one case of eval_set under config and return its trajectory.

    Raises ValueError naming run_index when it is not an int >= 0.
    Example: run_case(golden_set().cases[0], CONFIGS["baseline"], golden_set()).reason -> "done"
    """
    if isinstance(run_index, bool) or not isinstance(run_index, int) or run_index < 0:
        raise ValueError(f"run_index must be an int >= 0, got {run_index!r}")
    agent = build_agent(case, config, eval_set.tickets, run_index)
    run = agent.run(case.goal, run_id=f"{case.id}-r{run_index}")
    return trajectory_of(run, agent.gate.calls)  # the RecordingGate of build_agent: the calls' arguments


def run_set(eval_set: EvalSet, config: AgentConfig, run_index: int = 0) -> EvalRun:
    """Run and grade every case of eval_set under config, in case order; an EvalRun named after config.

    Example: run_set(agent_set(), CONFIGS["baseline"]).passed -> 14
    """
    results = []
    for case in eval_set.cases:
        trajectory = run_case(case, config, eval_set, run_index)
        results.append(Result(case.id, case.tags, trajectory.line(), grade_trajectory(case, trajectory)))
    return EvalRun(config.name, tuple(results))


def repeat(eval_set: EvalSet, config: AgentConfig, runs: int) -> list[EvalRun]:
    """run_set with run indexes 0 to runs - 1: the same cases, the same configuration, runs times.

    Raises ValueError unless 1 <= runs <= MAX_RUNS. Example: len(repeat(golden_set(), CONFIGS["sampled"], 4)) -> 4
    """
    if isinstance(runs, bool) or not isinstance(runs, int) or not 1 <= runs <= MAX_RUNS:
        raise ValueError(f"runs must be an int from 1 to {MAX_RUNS}, got {runs!r}")
    return [run_set(eval_set, config, index) for index in range(runs)]
