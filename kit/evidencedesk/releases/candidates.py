"""The release candidates of this page, and the live traffic they meet: page 10's configurations plus one.

Page 10 (trajectories/candidates.py) gave five configurations of the help desk's agent. This module
adds one, "snapshot-1120": the same loop on a new model snapshot, scripted by ExchangeModel. It behaves
exactly like the "sensible" fake on every golden case of page 10, and differs only on questions about
exchanging an item: once it has read the ticket it answers from the ticket, without the returns policy.
No golden case asks about an exchange, so page 10's gate cannot see the difference; live traffic can.
live_set() is that traffic: page 10's golden cases and the exchange questions in
kit/data/releases/traffic.jsonl, each with the trajectory a good run takes, graded the same way.
Everything is scripted; the snapshot's name is invented. Left out: real models and prompts.
"""

from __future__ import annotations

import re

from evidencedesk import DATA_DIR
from evidencedesk.agent.fakes import FAKE_MODEL, TICKET, FakeModel, finish, read_request
from evidencedesk.agent.loop import Agent
from evidencedesk.llm import LLMRequest, LLMResponse, Usage, estimate_tokens, request_tokens
from evidencedesk.trajectories.candidates import CONFIGS, AgentConfig
from evidencedesk.trajectories.cases import EvalSet, golden_set, load_cases

RELEASES_DATA = DATA_DIR / "releases"
EXCHANGE_WORDS = re.compile(r"\bexchang", re.IGNORECASE)  # "exchange", "exchanged", "exchanging"


class ExchangeModel:
    """A scripted fake for a new snapshot: the "sensible" model, except on exchange questions.

    On a goal with EXCHANGE_WORDS and a ticket, once the ticket is read it finishes from the ticket and
    never reads the policy; every other request goes to FakeModel("sensible").
    Example: ExchangeModel().complete(request).text
    """

    def __init__(self) -> None:
        self.model = FAKE_MODEL
        self.sensible = FakeModel("sensible")

    def complete(self, request: LLMRequest) -> LLMResponse:
        """The changed reply on an exchange question after the ticket is read, else the sensible one."""
        goal, blocks, good = read_request(request)
        used = {source.split(":")[1] for _, source, _ in blocks}
        if EXCHANGE_WORDS.search(goal) and TICKET.search(goal) and "get_ticket" in used:
            text = finish("Exchanged per the ticket.", good)
            return LLMResponse(text, self.model, Usage(request_tokens(request), estimate_tokens(text)))
        return self.sensible.complete(request)


SNAPSHOT = AgentConfig("snapshot-1120", lambda i: ExchangeModel(), Agent, "a new snapshot; skips policy on exchanges")
RELEASE_CONFIGS: dict[str, AgentConfig] = {**CONFIGS, SNAPSHOT.name: SNAPSHOT}


def live_set() -> EvalSet:
    """Copies of live requests: page 10's golden cases, then the exchange questions of traffic.jsonl.

    Raises CaseError (page 10's) for a bad line. Example: len(live_set().cases) -> 34
    """
    golden = golden_set()
    extra = load_cases(RELEASES_DATA / "traffic.jsonl")
    return EvalSet("live", golden.cases + tuple(extra), golden.tickets)
