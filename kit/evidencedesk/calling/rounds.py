"""Tool-call rounds: every call of a reply answered through the gate, in order, until the model stops.

A reply may hold several calls, and the calls decide, not the stop reason: real providers also send calls with
"stop" (Gemini's STOP for every call; OpenAI's finish_reason, measured and undocumented, for a call forced by
name). answer_calls() sends each through gate.ToolGate.run (allowlist, size, schema, call limits, write grant
and approval), in the order the model wrote them, and answers each with its own "tool" message, whatever the
gate decided: a refusal or bad arguments come back as an error result the model can read ("error
invalid_arguments: ..."), never as an exception. A result enters the conversation as untrusted data: its text
(tools.result_text, clipped) inside a block tagged with its source, tool:<name>:<call id>
(context.render_untrusted), and checked for injection signals (security.injection_signals) so that a log can
flag it. next_step() reads a reply in a fixed order: withheld (CONTENT_FILTER) or refused first, then LENGTH
(with calls: TRUNCATED, and no call of it runs, since the reply did not end: its last call may be cut
mid-arguments, and calls meant after it are missing; without: INCOMPLETE), then calls (run them, whatever the
stop reason), then STOP (the answer). run_rounds() asks the model again after each round of calls, until another
step ends it, or until max_rounds model calls. Left out: running calls concurrently (they run one after another,
in call order), retries, budgets (budget.py wraps the client), and the step-by-step agent of the agent/
subpackage.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from evidencedesk.context import ContextPart, render_untrusted
from evidencedesk.gate import ToolGate
from evidencedesk.llm import CONTENT_FILTER, LENGTH, LLMClient, LLMRequest, LLMResponse, Message, ToolCall
from evidencedesk.security import injection_signals
from evidencedesk.tools import ToolResult, clip, result_text

ANSWERED = "answered"  # the model stopped by itself (STOP) without calls: its text is the answer
INCOMPLETE = "incomplete"  # the reply was cut at max_tokens or withheld by the content filter: no answer
TRUNCATED = "truncated"  # calls cut at max_tokens (LENGTH): never run, not even the whole ones before the cut
REFUSED = "refused"  # the model declined (a refusal the provider reports apart from the text)
ROUND_LIMIT = "round_limit"  # max_rounds model calls, and the model still asked for tools
REASONS = (ANSWERED, INCOMPLETE, TRUNCATED, REFUSED, ROUND_LIMIT)
RUN_CALLS = "run_calls"  # next_step: answer every call through the gate and ask again
MAX_ROUNDS = 4  # model calls per question, by default
NOT_IN_A_TAG = re.compile(r"[^A-Za-z0-9_-]")  # a model-written name or id keeps only these in a source tag


@dataclass(frozen=True)
class Round:
    """One model call: why it stopped, the calls it asked for, the gate's code and the injection signals of
    each result, in call order. Example: Round(1, "tool_calls", (call,), ("ok",), ((),))"""

    number: int
    stop_reason: str
    calls: tuple[ToolCall, ...] = ()
    codes: tuple[str, ...] = ()
    signals: tuple[tuple[str, ...], ...] = ()


@dataclass(frozen=True)
class Rounds:
    """How a question ended: reason (one of REASONS), answer (str, "" unless ANSWERED), rounds (tuple of
    Round, one per model call) and messages (the conversation as last sent, plus the last round's results).

    Example: run_rounds(...).lines()[-1] -> "round 2 stop: answered"
    """

    reason: str
    answer: str
    rounds: tuple[Round, ...]
    messages: tuple[Message, ...]

    def lines(self) -> list[str]:
        """One line per call of each round ("round 1 call_1 get_ticket -> ok"), followed by the signals of a
        flagged result ("    flagged: ignore_instructions, ..."), then how the last round ended."""
        out = []
        for r in self.rounds:
            for call, code, signals in zip(r.calls, r.codes, r.signals, strict=True):
                out.append(f"round {r.number} {call.id} {clip(call.name)} -> {code}")
                out += [f"    flagged: {', '.join(signals)}"] if signals else []
        last = self.rounds[-1]
        return [*out, f"round {last.number} {last.stop_reason}: {self.reason}"]


def result_message(call: ToolCall, result: ToolResult) -> Message:
    """The "tool" message that answers call: result_text(result) in an untrusted block tagged tool:<name>:<id>.

    The block is context.render_untrusted's: angle brackets in the text are escaped, hidden characters
    removed. A name or id written by the model keeps only letters, digits, "_" and "-" in the tag.
    Args: call (ToolCall); result (tools.ToolResult). Returns: Message (role "tool", tool_call_id=call.id).
    Example: result_message(call, gate.run(call, "triage", "run-1", "kwame")).content
    """
    source = f"tool:{NOT_IN_A_TAG.sub('_', clip(call.name, 32))}:{NOT_IN_A_TAG.sub('_', clip(call.id, 40))}"
    part = ContextPart("tool_result", result_text(result), "untrusted", source)
    return Message("tool", render_untrusted(part), tool_call_id=call.id)


def answer_calls(calls: tuple[ToolCall, ...], gate: ToolGate, task: str, run_id: str,
                 caller: str) -> list[tuple[ToolResult, Message]]:
    """Each call through gate.run, in order, and the tool message that answers it: one per call, always.

    A call the gate refuses runs nothing and is still answered, with the refusal as its result.
    Args: calls (tuple of ToolCall); gate (ToolGate); task, run_id, caller (str). Returns: list of
    (ToolResult, Message) pairs in call order. Never raises for a call (the gate answers every call).
    Example: [m.tool_call_id for _, m in answer_calls(response.tool_calls, gate, "triage", "r1", "kwame")]
    """
    answered = []
    for call in calls:
        result = gate.run(call, task, run_id, caller)
        answered.append((result, result_message(call, result)))
    return answered


def next_step(response: LLMResponse) -> str:
    """What a reply asks for: RUN_CALLS, or how the question ends (ANSWERED, INCOMPLETE, TRUNCATED, REFUSED).

    By presence of calls, not by stop reason alone. Order: CONTENT_FILTER -> INCOMPLETE; a refusal ->
    REFUSED; LENGTH -> TRUNCATED with calls (the reply did not end, its calls with it; none runs), INCOMPLETE
    without; calls -> RUN_CALLS (with TOOL_CALLS or STOP); STOP -> ANSWERED.
    Args: response (LLMResponse). Returns: str.
    Example: next_step(LLMResponse("", "m", Usage(), STOP, (call,))) -> "run_calls"
    """
    if response.stop_reason == CONTENT_FILTER:
        return INCOMPLETE
    if response.refusal:
        return REFUSED
    if response.stop_reason == LENGTH:
        return TRUNCATED if response.tool_calls else INCOMPLETE
    return RUN_CALLS if response.tool_calls else ANSWERED


def run_rounds(client: LLMClient, request: LLMRequest, gate: ToolGate, task: str, run_id: str, caller: str,
               max_rounds: int = MAX_ROUNDS) -> Rounds:
    """Ask, answer every tool call through the gate, ask again: until the model stops, or max_rounds calls.

    Args: client (LLMClient); request (LLMRequest: the question and the tools offered); gate (ToolGate);
    task, run_id, caller (str, for the gate); max_rounds (int, model calls, >= 1).
    Returns: Rounds with reason ANSWERED, INCOMPLETE (cut or withheld text), TRUNCATED (calls cut at
    max_tokens: none ran), REFUSED, or ROUND_LIMIT (see next_step).
    Raises: ValueError naming max_rounds; the client's LLMError (a refused request included) as it is.
    Example: run_rounds(client, request, gate, "triage", "run-1", "kwame").reason -> "answered"
    """
    if isinstance(max_rounds, bool) or not isinstance(max_rounds, int) or max_rounds < 1:
        raise ValueError(f"max_rounds must be an int >= 1 (model calls), got {max_rounds!r}")
    messages, done = list(request.messages), []
    for number in range(1, max_rounds + 1):
        response = client.complete(dataclasses.replace(request, messages=tuple(messages)))
        step = next_step(response)
        if step != RUN_CALLS:  # answered, or cut, truncated, withheld or refused: nothing of it runs
            done.append(Round(number, response.stop_reason))
            return Rounds(step, response.text if step == ANSWERED else "", tuple(done), tuple(messages))
        answered = answer_calls(response.tool_calls, gate, task, run_id, caller)
        messages += [Message("assistant", response.text, tool_calls=response.tool_calls), *(m for _, m in answered)]
        done.append(Round(number, response.stop_reason, response.tool_calls, tuple(r.code for r, _ in answered),
                          tuple(tuple(injection_signals(result_text(r))) for r, _ in answered)))
    return Rounds(ROUND_LIMIT, "", tuple(done), tuple(messages))
