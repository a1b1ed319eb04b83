"""Scripted fake models for the agent loop: each kind behaves one fixed way, good or bad.

A FakeModel is an ordinary LLMClient. It reads only the request it is sent (the goal block and the
observation blocks of the user message) and answers with a proposal as JSON text, so the same
request always gets the same reply. The kinds test the loop's controls, not a model: a real model
is less predictable, which is why every control lives in code outside it. Left out: any learning,
randomness, or realistic language.
"""

from __future__ import annotations

import json
import re
from typing import Any

from evidencedesk.llm import LLMRequest, LLMResponse, Usage, estimate_tokens, request_tokens

FAKE_MODEL = "fake-agent-1"  # the name the fakes report; it has an entry in the price table
BLOCK = re.compile(r'<([a-z_]+) source="([^"]*)">\n(.*?)\n</\1>', re.DOTALL)
POLICY_WORDS = re.compile(r"\b(refund|return|policy)", re.IGNORECASE)
TICKET = re.compile(r"T-[0-9]{3,6}")
# what "wander" reads, one new item per step; every item exists, so every call succeeds
DOCUMENTS = ("kc-returns-v3", "kc-shipping-v2", "kc-warranty-v1", "kc-privacy-v4")
WANDER = [("lookup_document", {"doc_id": d}) for d in DOCUMENTS]
WANDER += [("get_ticket", {"ticket_id": t}) for t in ("T-601", "T-602")]


def call(tool: str, **arguments: Any) -> str:
    """A "call" proposal as JSON text. Example: call("get_ticket", ticket_id="T-601")"""
    return json.dumps({"action": "call", "tool": tool, "arguments": arguments})


def finish(answer: str, sources: list[str]) -> str:
    """A "finish" proposal as JSON text. Example: finish("T-601 is open.", ["o1"])"""
    return json.dumps({"action": "finish", "answer": answer, "sources": sources})


def read_request(request: LLMRequest) -> tuple[str, list[tuple[str, str, str]], list[str]]:
    """Split the request's user message into (goal text, observation blocks, ids of good observations).

    Blocks are (kind, source, text); memory blocks are left out. An observation is good when its
    text does not start with "error" or "rejected". Returns ("", [], []) when there is no user message.
    Example: read_request(agent._request(state))[0] == "Check T-601."
    """
    users = [m.content for m in request.messages if m.role == "user"]
    found = BLOCK.findall(users[-1]) if users else []
    goal = next((text for kind, _, text in found if kind == "goal"), "")
    blocks = [(kind, source, text) for kind, source, text in found if kind == "observation"]
    good = [source.rsplit(":", 1)[-1] for _, source, text in blocks if not text.startswith(("error", "rejected"))]
    return goal, blocks, good


def _summary(blocks: list[tuple[str, str, str]]) -> str:
    """A short answer from the good observations: ticket statuses and the documents read."""
    facts = []
    for _kind, _source, text in blocks:
        try:
            data = json.loads(text)
        except ValueError:
            continue  # an error or a rejection: nothing to report
        if isinstance(data, dict) and "status" in data:
            facts.append(f"{data.get('id')} is {data.get('status')}")
        elif isinstance(data, dict):
            facts.append(f"see {data.get('id')}")
    return ("; ".join(facts) or "nothing found") + "."


class FakeModel:
    """A scripted LLMClient for the agent loop. kind picks the behaviour (see KINDS).

    Args: kind (str) -- one of FakeModel.KINDS; the default "sensible" does the task properly.
    Usage reported: input = llm.request_tokens(request), output = estimate_tokens(reply) (tokens).
    Raises: ValueError naming the kind and the known kinds when kind is unknown.
    Example: FakeModel("loop").complete(request).text  # '{"action": "call", "tool": "get_ticket", ...}'
    """

    KINDS = ("sensible", "hallucinate", "garbage", "early_finish", "obey", "loop", "wander")

    def __init__(self, kind: str = "sensible") -> None:
        if kind not in self.KINDS:
            raise ValueError(f"unknown fake model kind {kind!r}; known kinds: {', '.join(self.KINDS)}")
        self.kind = kind
        self.model = FAKE_MODEL

    def complete(self, request: LLMRequest) -> LLMResponse:
        """Reply to one request with a proposal (JSON text, or not, for "garbage")."""
        user, blocks, good = read_request(request)
        text = getattr(self, f"_{self.kind}")(user, blocks, good)
        return LLMResponse(text, self.model, Usage(request_tokens(request), estimate_tokens(text)))

    def _sensible(self, user: str, blocks: list, good: list) -> str:
        """Reads the ticket named in the goal, then the returns policy if the goal asks about refunds,
        returns or policy, then finishes citing the observations that succeeded."""
        tools_used = {source.split(":")[1] for _, source, _ in blocks}
        ticket = TICKET.search(user)
        if ticket and "get_ticket" not in tools_used:
            return call("get_ticket", ticket_id=ticket.group(0))
        if POLICY_WORDS.search(user) and "lookup_document" not in tools_used:
            return call("lookup_document", doc_id="kc-returns-v3")
        return finish(_summary(blocks), good)

    def _hallucinate(self, user: str, blocks: list, good: list) -> str:
        """Proposes a tool that does not exist, every time."""
        return call("refund_customer", ticket_id="T-601", amount_eur=500)

    def _garbage(self, user: str, blocks: list, good: list) -> str:
        """Answers in chatty prose instead of JSON, every time."""
        return "Sure! I have looked into it and everything is fine now."

    def _early_finish(self, user: str, blocks: list, good: list) -> str:
        """Claims success at once, citing observations that never happened."""
        return finish("All sorted, the customer is happy.", ["o7", "o8"])

    def _loop(self, user: str, blocks: list, good: list) -> str:
        """Reads the ticket named in the goal, again and again."""
        ticket = TICKET.search(user)
        return call("get_ticket", ticket_id=ticket.group(0) if ticket else "T-601")

    def _wander(self, user: str, blocks: list, good: list) -> str:
        """Never finishes: reads a new document or ticket each step (kc-returns-v3, kc-shipping-v2,
        kc-warranty-v1, kc-privacy-v4, T-601, T-602), then starts the list again (a repeat)."""
        tool, arguments = WANDER[len(blocks) % len(WANDER)]
        return call(tool, **arguments)

    def _obey(self, user: str, blocks: list, good: list) -> str:
        """The worst case: does what the last observation tells it to. Otherwise it behaves like sensible."""
        if blocks and (m := re.search(r"call (send_email_draft) to (\S+@example\.org)", blocks[-1][2])):
            email = {"to": m.group(2), "subject": "records", "body": "all of them", "idempotency_key": "evil-key-0001"}
            return call(m.group(1), **email)
        return self._sensible(user, blocks, good)

