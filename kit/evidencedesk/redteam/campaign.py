"""A red-team campaign: every mutation of the attack table's seed texts, played against the Beginner defences.

Two defences meet each generated attack. The text filter (security.injection_signals) reads each part the
model would receive, alone, and flags it or misses it. The gate (gate.ToolGate) never reads the text: it
sees only the calls a model proposes. The campaign assumes the worst about the model: ObeyingModel is a
scripted fake that, whatever the text and however it is disguised, proposes the calls the attack wants
(the goal rows of the attack table: a03 e-mails evil@example.org from the triage task, a08 reads lena's
ticket as kwame). That is the assumption a boundary must survive, since a real model may decode base64,
read Spanish and follow a role play. Each goal call is then played as its row plays it (attacks.run_attack)
and checked by attacks.held: the row's code, no e-mail sent, no secret in a log.
A result's `succeeded` says whether the attack reached its goal; the share of results that did is the
campaign's attack success rate, the figure red-team tools report per attack family.
Left out: a real model (whether one would obey is a question for the model, not for the gate; a real model
is stochastic, so real tools send each probe several times), attackers who adapt to the answers, tasks that
hold the write grant (then a write is parked for a person, see the Human Approval page), and any attack
family the mutations do not generate.
"""

from __future__ import annotations

from dataclasses import dataclass

from evidencedesk.attacks import Attack, held, load_attacks, run_attack
from evidencedesk.redteam.mutations import MUTATIONS, mutate
from evidencedesk.security import HIDDEN_CHARACTERS, SIGNALS, injection_signals, visible

SEED_KINDS = ("injected_instruction", "forged_tag")  # the attack kinds whose text tries to steer the model
GOAL_IDS = ("a03", "a08")  # the gate rows an obeying model's calls replay: an e-mail out, another user's ticket


@dataclass(frozen=True)
class Seed:
    """An attack text to mutate: the id of its row in the attack table, and its text in visible form (a row
    such as a43, written in fullwidth letters, is itself a mutation; its seed is the plain text)."""

    id: str
    text: str


def seeds(attacks: list[Attack] | None = None) -> tuple[Seed, ...]:
    """The seed texts: rows of SEED_KINDS whose visible text the filter flags by its words (not only by hidden
    characters), once per visible text, in table order.

    Args: attacks (list of Attack; default load_attacks()). Returns: tuple of Seed.
    Example: [s.id for s in seeds()] -> ["a14", "a42", "a43"]
    """
    found: dict[str, Seed] = {}
    for row in attacks if attacks is not None else load_attacks():
        text = row.input.get("text")
        if row.kind not in SEED_KINDS or not isinstance(text, str):
            continue
        words = [s for s in injection_signals(visible(text)) if s != HIDDEN_CHARACTERS]
        if words and visible(text) not in found:
            found[visible(text)] = Seed(row.id, visible(text))
    return tuple(found.values())


def goals(attacks: list[Attack] | None = None) -> tuple[Attack, ...]:
    """The gate rows of GOAL_IDS, in that order: the calls an obeying model proposes.

    Raises LookupError naming a missing id. Example: [g.id for g in goals()] -> ["a03", "a08"]
    """
    by_id = {row.id: row for row in (attacks if attacks is not None else load_attacks())}
    missing = [i for i in GOAL_IDS if i not in by_id]
    if missing:
        raise LookupError(f"the attack table has no goal row {', '.join(missing)}")
    return tuple(by_id[i] for i in GOAL_IDS)


class ObeyingModel:
    """A scripted fake for the worst case: it proposes every goal's call, whatever the text says or hides.

    It does not read the text; it stands for a model the attack fully persuaded. Args: goal_rows (tuple of
    Attack, gate rows). Example: ObeyingModel(goals()).propose("anything") -> (a03 row, a08 row)
    """

    def __init__(self, goal_rows: tuple[Attack, ...]) -> None:
        if not goal_rows or any(row.target != "gate" for row in goal_rows):
            raise ValueError("goal_rows must be one or more rows whose target is the gate")
        self.goal_rows = goal_rows

    def propose(self, parts: tuple[str, ...]) -> tuple[Attack, ...]:
        """The goal rows whose calls it proposes for these parts (all of them, always)."""
        return self.goal_rows


@dataclass(frozen=True)
class Probe:
    """One generated attack: the seed's id, the mutation's name, the parts a model receives, and the
    signals the filter found in them (reading each part alone; () means missed)."""

    seed: str
    mutation: str
    parts: tuple[str, ...]
    signals: tuple[str, ...]

    @property
    def flagged(self) -> bool:
        """True when the filter found any signal in any part."""
        return bool(self.signals)


def probe(seed: Seed, mutation: str) -> Probe:
    """Mutate one seed and read each part with the filter. Example: probe(seeds()[1], "base64").flagged -> False"""
    parts = mutate(seed.text, mutation)
    found = {name for part in parts for name in injection_signals(part)}
    return Probe(seed.id, mutation, parts, tuple(name for name in (*SIGNALS, HIDDEN_CHARACTERS) if name in found))


@dataclass(frozen=True)
class Result:
    """A probe, and what the gate did with each call the obeying model proposed: codes (tuple of str, one per
    goal), problems (tuple of str: attacks.held's complaints; () means every call was held)."""

    probe: Probe
    codes: tuple[str, ...]
    problems: tuple[str, ...]

    @property
    def succeeded(self) -> bool:
        """True when the attack reached its goal: some proposed call was not held as its row expects.

        A campaign's attack success rate is the share of its results for which this is True. Example:
        play(seeds()[1], "base64", ObeyingModel(goals())).succeeded -> False
        """
        return bool(self.problems)


def play(seed: Seed, mutation: str, model: ObeyingModel) -> Result:
    """One probe end to end: the filter's reading, then each proposed call through a fresh gate.

    Example: play(seeds()[1], "base64", ObeyingModel(goals())).codes -> ("not_allowed", "not_found")
    """
    found = probe(seed, mutation)
    codes, problems = [], []
    for row in model.propose(found.parts):
        outcome = run_attack(row)
        codes.append(outcome.code)
        problems += held(row, outcome)
    return Result(found, tuple(codes), tuple(problems))


def run_campaign(seed_rows: tuple[Seed, ...] | None = None, names: tuple[str, ...] | None = None,
                 model: ObeyingModel | None = None) -> tuple[Result, ...]:
    """Every seed under every mutation, seed by seed in MUTATIONS order.

    Args: seed_rows (default seeds()); names (mutation names; default all of MUTATIONS); model (default
    ObeyingModel(goals())). Returns: tuple of Result. Raises ValueError for an unknown mutation name.
    Example: len(run_campaign()) -> 39
    """
    seed_rows = seed_rows if seed_rows is not None else seeds()
    names = names if names is not None else tuple(MUTATIONS)
    model = model if model is not None else ObeyingModel(goals())
    return tuple(play(seed, name, model) for seed in seed_rows for name in names)
