"""The configurations the page compares: the agent as built, and four candidates, each changed one stated way.

A configuration is what a change touches: the model behind the loop and the loop's own code. Here the
models are scripted fakes that say what they do. The baseline is the agent page's "sensible" FakeModel
in its Agent. VariantModel changes that model's script one way per kind: "terse" never reads the policy
once a ticket is named; "thorough" also reads the warranty or the shipping policy when the goal speaks
of them; "sampled" reads the policy before the ticket on some runs, picked by the run index and the
ticket's number (a stand-in for a model sampled at a temperature above zero: which runs differ is
fixed, so the page prints the same outcomes on every build, and nothing here is random). RetryingAgent
changes the loop instead: it lets a repeated call run again. Left out: real models and prompts.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from evidencedesk.agent.fakes import FAKE_MODEL, POLICY_WORDS, TICKET, FakeModel, call, finish, read_request
from evidencedesk.agent.loop import REPEATED_CALL, Agent, Proposal
from evidencedesk.agent.state import AgentState
from evidencedesk.llm import LLMClient, LLMRequest, LLMResponse, Usage, estimate_tokens, request_tokens

WARRANTY_WORDS = re.compile(r"\b(warrant|guarantee)", re.IGNORECASE)  # "warranty", "guaranteed"
DELIVERY_WORDS = re.compile(r"\b(deliver|parcel|courier|shipping)", re.IGNORECASE)  # "delivered", "parcels"
FLIP_EVERY = 3  # "sampled" reads the policy first when (run index + ticket number) % FLIP_EVERY == 0


class VariantModel:
    """A scripted fake: the agent page's "sensible" model with one stated change (kind, one of KINDS).

    Args: kind (str); run_index (int >= 0, the how-many-th run of a case this is; only "sampled" reads it).
    Where its change does not apply it hands the request to FakeModel("sensible"), so it differs from the
    baseline only where its docstring says. Raises ValueError naming a bad kind or run_index.
    Example: VariantModel("terse").complete(request).text
    """

    KINDS = ("terse", "thorough", "sampled")

    def __init__(self, kind: str, run_index: int = 0) -> None:
        if kind not in self.KINDS:
            raise ValueError(f"unknown variant {str(kind)[:40]!r}; known: {', '.join(self.KINDS)}")
        if isinstance(run_index, bool) or not isinstance(run_index, int) or run_index < 0:
            raise ValueError(f"run_index must be an int >= 0, got {run_index!r}")
        self.kind, self.run_index, self.model = kind, run_index, FAKE_MODEL
        self.sensible = FakeModel("sensible")

    def complete(self, request: LLMRequest) -> LLMResponse:
        """The variant's reply where its change applies, else the sensible model's."""
        goal, blocks, good = read_request(request)
        used = {source.split(":")[1] for _, source, _ in blocks}
        text = getattr(self, f"_{self.kind}")(goal, used, good)
        if text is None:
            return self.sensible.complete(request)
        return LLMResponse(text, self.model, Usage(request_tokens(request), estimate_tokens(text)))

    def _terse(self, goal: str, used: set[str], good: list[str]) -> str | None:
        """Once the ticket named in the goal is read, finishes on it: never reads the policy after a ticket."""
        if TICKET.search(goal) and "get_ticket" in used:
            return finish("Answered from the ticket.", good)
        return None

    def _thorough(self, goal: str, used: set[str], good: list[str]) -> str | None:
        """After the ticket (if one is named), reads the warranty policy for warranty words, else the
        shipping policy for delivery words, unless a document was read already."""
        if (TICKET.search(goal) and "get_ticket" not in used) or "lookup_document" in used:
            return None
        if WARRANTY_WORDS.search(goal):
            return call("lookup_document", doc_id="kc-warranty-v1")
        if DELIVERY_WORDS.search(goal):
            return call("lookup_document", doc_id="kc-shipping-v2")
        return None

    def _sampled(self, goal: str, used: set[str], good: list[str]) -> str | None:
        """For a goal naming a ticket and the policy, reads the policy first on the runs where
        (run_index + the ticket's number) % FLIP_EVERY == 0; the sensible order on the others."""
        ticket = TICKET.search(goal)
        if ticket and POLICY_WORDS.search(goal) and not used and flips(self.run_index, ticket.group(0)):
            return call("lookup_document", doc_id="kc-returns-v3")
        return None


def flips(run_index: int, ticket: str) -> bool:
    """Whether "sampled" reads the policy first for this ticket (str, "T-704") on this run (int).

    Example: flips(0, "T-705") -> False
    """
    return (run_index + int(ticket.removeprefix("T-"))) % FLIP_EVERY == 0


class RetryingAgent(Agent):
    """A candidate change to the loop, not to the model: a repeated call runs again instead of ending the run.

    Someone wanted the agent to poll a status that changes; the agent page explains why a repeat ends
    the run instead, and where a legitimate retry belongs. Every other check of Agent._check still holds.
    Example: RetryingAgent(**fields of an Agent).run("Check T-601.").reason -> "step_budget"
    """

    def _check(self, p: Proposal, state: AgentState, seen: set[str]) -> str:
        code = super()._check(p, state, seen)
        return "ok" if code == REPEATED_CALL else code


@dataclass(frozen=True)
class AgentConfig:
    """One configuration: name (str), model (callable: run index (int) -> LLMClient; a case that pins its
    own fake model ignores it), agent (the Agent class whose loop runs), change (str, one line on what
    differs from the baseline). Example: CONFIGS["terse"].model(0)
    """

    name: str
    model: Callable[[int], LLMClient]
    agent: type[Agent]
    change: str


CONFIGS: dict[str, AgentConfig] = {c.name: c for c in (
    AgentConfig("baseline", lambda i: FakeModel("sensible"), Agent, "the agent as the agent page built it"),
    AgentConfig("terse", lambda i: VariantModel("terse"), Agent, "never reads the policy after a ticket"),
    AgentConfig("thorough", lambda i: VariantModel("thorough"), Agent, "also reads warranty and shipping policy"),
    AgentConfig("sampled", lambda i: VariantModel("sampled", i), Agent, "policy first on some runs"),
    AgentConfig("retry-reads", lambda i: FakeModel("sensible"), RetryingAgent, "a repeated call runs again"),
)}
