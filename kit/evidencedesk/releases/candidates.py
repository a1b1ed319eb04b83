"""The release candidates of this page, and the live traffic they meet: page 10's configurations plus one.

Page 10 (trajectories/candidates.py) gave five configurations of the help desk's agent. This module
adds one, "snapshot-1120": the same loop on a new model snapshot, scripted by ExchangeModel. It behaves
exactly like the "sensible" fake on every golden case of page 10, and differs only on questions about
exchanging an item: once it has read the ticket it answers from the ticket, without the returns policy.
No golden case asks about an exchange, so page 10's gate cannot see the difference; live traffic can.
live_set() is that traffic: page 10's golden cases and the exchange questions in
kit/data/releases/traffic.jsonl, each with the trajectory a good run takes, graded the same way.
catalogue() is the invented provider list of snapshots.py; CANDIDATES pairs each prompt version
released on the page with the scripted configuration that stands in for it (the fakes never read a
template or a temperature). Everything is scripted; every model name is invented. Left out: real models and prompts.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass

from evidencedesk import DATA_DIR
from evidencedesk.agent.fakes import FAKE_MODEL, TICKET, FakeModel, finish, read_request
from evidencedesk.agent.loop import Agent
from evidencedesk.llm import LLMRequest, LLMResponse, Usage, estimate_tokens, request_tokens
from evidencedesk.trajectories.candidates import CONFIGS, AgentConfig
from evidencedesk.releases.prompts import PromptVersion
from evidencedesk.releases.snapshots import Catalogue, Snapshot
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


def catalogue() -> Catalogue:
    """The kit's invented provider list: alias "desk-large" on two snapshots, and one smaller model.

    "desk-large" points at desk-large-2026-09-14 from 14 September 2026 and at desk-large-2026-11-20
    from 20 November 2026. The September snapshot answers as the "sensible" fake, the November one as
    ExchangeModel. desk-small-2026-03-02 (same fake) shuts down on 15 January 2027. Example: catalogue().resolve(...)
    """
    day = datetime.date
    snapshots = (Snapshot("desk-large-2026-09-14", day(2026, 9, 14), day(2027, 3, 14), lambda: FakeModel("sensible")),
                 Snapshot("desk-large-2026-11-20", day(2026, 11, 20), None, ExchangeModel),
                 Snapshot("desk-small-2026-03-02", day(2026, 3, 2), day(2027, 1, 15), lambda: FakeModel("sensible")))
    return Catalogue({s.id: s for s in snapshots},
                     {"desk-large": ((day(2026, 9, 14), "desk-large-2026-09-14"),
                                     (day(2026, 11, 20), "desk-large-2026-11-20")),
                      "desk-small": ((day(2026, 3, 2), "desk-small-2026-03-02"),)})


TEMPLATE = ("You answer help-desk questions. Read the ticket the user names; for refunds and returns, "
            "read the returns policy before you answer. Goal: {goal}")
V1 = PromptVersion(template=TEMPLATE, model="desk-large-2026-09-14", temperature=0.0, max_tokens=200)


@dataclass(frozen=True)
class Candidate:
    """A release candidate: name (str), version (PromptVersion, what is released), config (AgentConfig: the
    scripted behaviour that stands in for it, since the fakes do not read templates)."""

    name: str
    version: PromptVersion
    config: AgentConfig


SERVED = Candidate("v1", V1, CONFIGS["baseline"])
SHORT = "Answer from the ticket. Goal: {goal}"
MORE = " Read the warranty or shipping policy when the goal speaks of them."


def _changed(name: str, config: AgentConfig, **change: object) -> Candidate:
    return Candidate(name, V1.model_copy(update=change), config)


CANDIDATES: dict[str, Candidate] = {c.name: c for c in (
    _changed("terse", CONFIGS["terse"], template=SHORT),
    _changed("thorough", CONFIGS["thorough"], template=TEMPLATE + MORE),
    _changed("warmer", CONFIGS["sampled"], temperature=0.7),
    _changed("snapshot-1120", SNAPSHOT, model="desk-large-2026-11-20"),
    _changed("alias", CONFIGS["baseline"], model="desk-large"),
)}
