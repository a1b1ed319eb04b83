"""A trajectory: what one agent run did, read from its trace and its ledger, as a record you can keep.

An answer grader (evals/) reads the final reply. A trajectory grader reads the path: which tools reached
the gate and what each returned, why the run stopped, how many steps it took and what it cost. Those
facts are in the run's Trace (agent/state.py: one "tool" line per call that reached the gate, one
"stop" line at the end) and its Ledger (usage.py: credits, an invented unit). trajectory_of() reads
them into a Trajectory, a frozen, strict pydantic model that saves to JSON and loads back, so a
trajectory logged by a production run can be graded later exactly like one made here. The trace holds
tool names, not arguments, so the arguments of each call (which ticket, which document version) come
from a RecordingGate, a ToolGate that notes every call it is asked to run; without one a trajectory's
arguments are empty ("not recorded"). Left out: the tools' results, the model's words, proposals that
code refused before the gate (the trace's "check" lines), and time: a trajectory says what happened,
not how long it took.
"""

from __future__ import annotations

import re
from itertools import groupby

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from evidencedesk.agent.loop import Run
from evidencedesk.agent.scenarios import one_of
from evidencedesk.agent.state import REASONS
from evidencedesk.gate import ToolCall, ToolGate, ToolResult
from evidencedesk.usage import CreditsText

NAME = r"^[a-z][a-z0-9_]{0,39}$"  # a tool's name (get_ticket) or what a call returned (ok, not_found, ...)
OK = "ok"  # the code of a call that completed


class Trajectory(BaseModel):
    """One run's path: tools (names, in the order they reached the gate), outcomes (each call's code, "ok"
    when it completed), reason (why the run ended, a key of agent.state.REASONS), steps (int, model
    decisions), cost (Decimal, credits; written as a decimal string in JSON), arguments (one dict per call,
    in the order of tools, as the gate received them; empty when they were not recorded).

    Strict: unknown fields, wrong types, an unknown reason, or tools and outcomes of different lengths
    raise pydantic.ValidationError naming the field.
    Example: Trajectory(tools=("get_ticket",), outcomes=("ok",), reason="done", steps=2, cost=Decimal("0.0013"))
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    tools: tuple[str, ...] = Field(default=(), max_length=100, strict=False)
    outcomes: tuple[str, ...] = Field(default=(), max_length=100, strict=False)
    reason: str
    steps: int = Field(ge=0, le=1000)
    cost: CreditsText = Field(ge=0)
    arguments: tuple[dict[str, str | int | float | bool | None], ...] = Field(default=(), max_length=100,
                                                                              strict=False)

    @field_validator("tools", "outcomes")
    @classmethod
    def _names(cls, values: tuple[str, ...]) -> tuple[str, ...]:
        bad = [v for v in values if not isinstance(v, str) or not re.fullmatch(NAME, v)]
        if bad:
            raise ValueError(f"expected lower-case names like 'get_ticket', got {str(bad[0])[:40]!r}")
        return values

    @field_validator("reason")
    @classmethod
    def _known_reason(cls, reason: str) -> str:
        return one_of(reason, tuple(REASONS), "reason")

    @model_validator(mode="after")
    def _one_outcome_per_call(self) -> Trajectory:
        if len(self.tools) != len(self.outcomes):
            raise ValueError(f"{len(self.tools)} tools but {len(self.outcomes)} outcomes: one outcome per call")
        if self.arguments and len(self.arguments) != len(self.tools):
            raise ValueError(f"{len(self.tools)} tools but {len(self.arguments)} argument sets: one per call, or none")
        return self

    def completed(self, tool: str) -> int:
        """How many calls of tool completed (outcome "ok"). Example: trajectory.completed("send_email_draft") -> 0"""
        return sum(t == tool and o == OK for t, o in zip(self.tools, self.outcomes, strict=True))

    def line(self) -> str:
        """One line for a table: the tools (see path), reason, steps and credits.

        Example: "get_ticket > lookup_document | done | 3 steps | 0.002367"
        """
        return f"{path(self.tools)} | {self.reason} | {self.steps} steps | {self.cost}"


def path(tools: tuple[str, ...] | list[str]) -> str:
    """Tool names joined by " > ", a run of one tool written once as "name xN"; "(no tool)" when empty.

    Example: path(["lookup_document", "lookup_document", "get_ticket"]) -> "lookup_document x2 > get_ticket"
    """
    parts = []
    for name, run in groupby(tools):  # consecutive calls of one tool
        times = len(list(run))
        parts.append(name if times == 1 else f"{name} x{times}")
    return " > ".join(parts) or "(no tool)"


class RecordingGate(ToolGate):
    """A ToolGate that also notes each call it is asked to run, as (tool name, arguments), in order.

    Same arguments as ToolGate; attribute calls (list of (str, dict)). The gate still decides everything.
    Example: gate = RecordingGate(registry, policy); agent = replace(agent, gate=gate); gate.calls[0]
    """

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.calls: list[tuple[str, dict[str, object]]] = []

    def run(self, call: ToolCall, task: str, run_id: str, caller: str) -> ToolResult:
        """Note the call's name and a copy of its arguments, then run it as ToolGate.run does."""
        arguments = call.arguments if isinstance(call, ToolCall) and isinstance(call.arguments, dict) else {}
        self.calls.append((getattr(call, "name", "?"), dict(arguments)))
        return super().run(call, task, run_id, caller)


def trajectory_of(run: Run, calls: list[tuple[str, dict[str, object]]] | None = None) -> Trajectory:
    """Read a finished run's trajectory from its trace (tool lines, the stop line) and its ledger (credits).

    run: an agent.loop.Run; calls: a RecordingGate's calls for this run (None: arguments not recorded).
    Raises ValueError when the trace has no stop line, or one that disagrees with the run's own reason
    (a trace that is not this run's, or a run that has not ended), or when calls name other tools.
    Example: trajectory_of(run_scenario(load_scenarios()[0])[0]).tools -> ("get_ticket", "lookup_document")
    """
    entries = run.trace.entries
    stops = [(step, code) for step, kind, code, _ in entries if kind == "stop"]
    if len(stops) != 1 or stops[0][1] != run.reason:
        raise ValueError(f"the trace must end with one stop line naming the run's reason {run.reason!r}, "
                         f"found {[code for _, code in stops]}")
    tool_lines = [(detail, code) for _, kind, code, detail in entries if kind == "tool"]
    tools = tuple(name for name, _ in tool_lines)
    if calls is not None and tuple(name for name, _ in calls) != tools:
        raise ValueError(f"the recorded calls {[name for name, _ in calls]} are not the trace's tools {list(tools)}")
    return Trajectory(tools=tools, outcomes=tuple(code for _, code in tool_lines), reason=stops[0][1],
                      steps=stops[0][0], cost=run.ledger.summary().cost,
                      arguments=tuple(arguments for _, arguments in calls or ()))
