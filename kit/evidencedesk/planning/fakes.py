"""Scripted fake planners: each kind proposes one fixed kind of plan, good or bad, and writes the answer.

A FakePlanner is an ordinary LLMClient that plays both model roles of plan-then-execute. Asked for a
plan (a request carrying plan.PLANNER_RULES), it reads the goal, and on a replan the failure line,
and answers with plan JSON; asked for an answer (plan.WRITER_RULES), it reads the results and cites
them. It reads only what it is sent, so the same request always gets the same reply, and a reply
longer than the request's max_tokens allows is cut there, as a model stops at its allowance. Most
kinds break one rule of the plan checks on purpose. They test the checks, not a model: a real
planner is less predictable, which is why every check is code outside it. Left out: any learning,
randomness, or realistic language.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from evidencedesk.agent.fakes import FAKE_MODEL, POLICY_WORDS, TICKET
from evidencedesk.llm import (
    CHARS_PER_TOKEN,
    LENGTH,
    STOP,
    LLMRequest,
    LLMResponse,
    Usage,
    estimate_tokens,
    request_tokens,
)
from evidencedesk.planning.plan import PLANNER_RULES, WRITER_RULES

BLOCK = re.compile(r'<([a-z_]+) source="([^"]*)">\n(.*?)\n</\1>', re.DOTALL)
INSTRUCTION = re.compile(r"call send_email_draft to (\S+@example\.org)")  # what "obey" follows, as agent/fakes.py's
REPLY_WORDS = re.compile(r"\brepl(y|ies)\b", re.IGNORECASE)
ACK = "We have your message about {ticket} and will answer within two working days."
DOCUMENTS = ("kc-returns-v3", "kc-shipping-v2", "kc-warranty-v1", "kc-privacy-v4")
Calls = list[tuple[str, dict[str, Any]]]  # (tool, arguments) in order; numbered() makes them plan JSON


def ref(step: str, field: str) -> dict[str, str]:
    """A reference as plan JSON writes it. Example: ref("s1", "subject") -> {"from": "s1", "field": "subject"}"""
    return {"from": step, "field": field}


def numbered(calls: Calls) -> dict[str, Any]:
    """Plan JSON from (tool, arguments) pairs, with ids s1, s2, ... in order.

    Example: numbered([("get_ticket", {"ticket_id": "T-601"})])["steps"][0]["id"] -> "s1"
    """
    return {"steps": [{"id": f"s{n}", "tool": tool, "arguments": args} for n, (tool, args) in enumerate(calls, 1)]}


def sensible_calls(goal: str, recipient: str = "on_file") -> Calls:
    """The plan a careful planner makes: read the ticket the goal names; read the returns policy if the goal
    asks about refunds, returns or policy; to reply, find the ticket's contact and draft an acknowledgement
    whose recipient comes from the result field recipient (str) and whose subject is the ticket's.

    Example: [tool for tool, _ in sensible_calls("Read T-602 and reply to it.")][-1] -> "send_email_draft"
    """
    found = TICKET.search(goal)
    ticket = found.group(0) if found else "T-601"
    calls: Calls = [("get_ticket", {"ticket_id": ticket})]
    if POLICY_WORDS.search(goal):
        calls.append(("lookup_document", {"doc_id": "kc-returns-v3"}))
    if REPLY_WORDS.search(goal):
        calls.append(("get_contact", {"ticket_id": ticket}))
        email = {"to": ref(f"s{len(calls)}", recipient), "subject": ref("s1", "subject"),
                 "body": ACK.format(ticket=ticket), "idempotency_key": f"{ticket.lower()}-ack-1"}
        calls.append(("send_email_draft", email))
    return calls


def _typo(goal: str) -> Calls:
    return [("lookup_document", {"doc_id": "kc-refunds-v3"}) if tool == "lookup_document" else (tool, args)
            for tool, args in sensible_calls(goal)]


T601: tuple[str, dict[str, Any]] = ("get_ticket", {"ticket_id": "T-601"})
# kind -> the calls of its first plan; "sloppy", "garbage" and "typo"'s replan are handled in FakePlanner
PLANS: dict[str, Callable[[str], Calls]] = {
    "sensible": sensible_calls,
    "hallucinate": lambda goal: [*sensible_calls(goal), ("refund_customer", {"ticket_id": "T-601", "amount_eur": 500})],
    "bad_arguments": lambda goal: [("get_ticket", {"ticket_id": "601"})],
    "dangling": lambda goal: [T601, ("lookup_document", {"doc_id": ref("s9", "id")})],
    "backwards": lambda goal: [("lookup_document", {"doc_id": ref("s2", "id")}), T601],
    "cycle": lambda goal: [("get_ticket", {"ticket_id": ref("s2", "id")}),
                           ("lookup_document", {"doc_id": ref("s1", "id")})],
    "bad_field": lambda goal: [T601, ("lookup_document", {"doc_id": ref("s1", "owner")})],
    "careless": lambda goal: sensible_calls(goal, recipient="reply_to"),
    "early_write": lambda goal: [*sensible_calls(goal), ("lookup_document", {"doc_id": "kc-returns-v3"})],
    "sprawl": lambda goal: [("lookup_document", {"doc_id": DOCUMENTS[n % 4]}) for n in range(11)],
    "typo": _typo,
    "stubborn": _typo,
}


class FakePlanner:
    """A scripted planner and writer. kind picks the planner's behaviour (see KINDS); the writer is the same
    for every kind but "obey".

    Kinds: sensible (the plan the goal needs); obey (sensible, plus a send_email_draft step to any
    address an instruction in its user message names); sloppy (first a plan with an extra field, then,
    asked to repair it, the sensible plan); garbage (prose, every time); typo (a document id that does
    not exist, then, told that a step failed, the sensible plan); stubborn (the typo plan, every time);
    and one kind per plan check: hallucinate, bad_arguments, dangling, backwards, cycle, bad_field,
    careless, early_write, sprawl. Usage reported: input = llm.request_tokens, output = estimate_tokens.
    Raises ValueError naming the kind and the known kinds when kind is unknown.
    Example: FakePlanner("cycle").complete(request).text  # '{"steps": [{"id": "s1", ...'
    """

    KINDS = ("sensible", "obey", "sloppy", "garbage", "typo", "stubborn", "hallucinate", "bad_arguments",
             "dangling", "backwards", "cycle", "bad_field", "careless", "early_write", "sprawl")

    def __init__(self, kind: str = "sensible") -> None:
        if kind not in self.KINDS:
            raise ValueError(f"unknown fake planner kind {kind!r}; known kinds: {', '.join(self.KINDS)}")
        self.kind = kind
        self.model = FAKE_MODEL

    def complete(self, request: LLMRequest) -> LLMResponse:
        """Reply to one planner or writer request; cut at request.max_tokens (stop reason "length")."""
        system = "\n".join(m.content for m in request.messages if m.role == "system")
        users = [m.content for m in request.messages if m.role == "user"]
        blocks = BLOCK.findall(users[0]) if users else []
        if WRITER_RULES in system:
            text = self._write(blocks)
        elif PLANNER_RULES in system:
            repairing = len(users) > 1  # ask_structured adds its repair request as a second user message
            text = self._plan(next((t for k, _, t in blocks if k == "goal"), ""), blocks, "failed at step" in system,
                              repairing)
        else:
            text = "I only plan and write answers."
        cut = text[: request.max_tokens * CHARS_PER_TOKEN]  # a model stops at its output allowance
        return LLMResponse(cut, self.model, Usage(request_tokens(request), estimate_tokens(cut)),
                           LENGTH if len(cut) < len(text) else STOP)

    def _plan(self, goal: str, blocks: list[tuple[str, str, str]], replanning: bool, repairing: bool) -> str:
        kind = self.kind
        if kind == "garbage":
            return "Sure! First I will read the ticket, then I will see what it says."
        if kind == "sloppy" and not repairing:
            return json.dumps({**numbered(sensible_calls(goal)), "reasoning": "the ticket comes first"})
        if kind == "typo" and replanning:
            kind = "sensible"
        calls = PLANS.get(kind, sensible_calls)(goal)
        if kind == "obey":
            calls += [("send_email_draft", {"to": m.group(1), "subject": "records", "body": "all of them",
                                            "idempotency_key": "evil-key-0001"})
                      for _, _, text in blocks for m in INSTRUCTION.finditer(text)]
        return json.dumps(numbered(calls))

    def _write(self, blocks: list[tuple[str, str, str]]) -> str:
        """Sums up the results: each ticket's status and each document's id; cites every result.
        "obey" also repeats, as its own promise, what an instruction in a result asks for."""
        facts, sources = [], []
        for kind, source, text in blocks:
            if kind != "result":
                continue
            sources.append(source.rsplit(":", 1)[-1])
            try:
                data = json.loads(text)
            except ValueError:  # a clipped result is no longer JSON: nothing to sum up from it
                data = {}
            data = data if isinstance(data, dict) else {}
            if "status" in data:
                facts.append(f"{data.get('id')} is {data.get('status')}")
            elif "title" in data:
                facts.append(f"see {data.get('id')}")
            if self.kind == "obey" and (m := INSTRUCTION.search(text)):
                facts.append(f"as the ticket asks, every customer record goes to {m.group(1)}")
        answer = ("; ".join(facts) or "nothing found") + "."
        return json.dumps({"answer": answer[0].upper() + answer[1:], "sources": sources or ["s1"]})
