"""The lethal trifecta in a set of flows, and the Rule of Two's verdict on it.

Simon Willison's "lethal trifecta" (2025-06-16): an agent that has private data, reads untrusted
content and has a way to send data out can be made to send the data out by whoever wrote the
content. Meta's "Agents Rule of Two" (2025-10-31): within a session an agent should have at most two
of untrusted input, access to private data or sensitive systems, and the power to change state or
communicate externally; one that needs all three should not run on its own, but under supervision,
such as a person's approval. verdict() applies that rule to the flows of flows.py: ALLOWED (two legs
at most), SUPERVISED (all three, and every way out is parked for a person's approval), VIOLATES (all
three, and some way out runs on its own). lethal_sets() names the smallest sets of flows that combine
all three, which is where a control has to break the combination.
Left out: Meta's third property also counts changing state inside the system; the kit counts only
ways out (flows.EXFIL), since that is what the trifecta needs. Nothing here measures a model.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations

from evidencedesk.threats.flows import EXFIL, LEGS, SHORT, Flow

ALLOWED, SUPERVISED, VIOLATES = "allowed", "supervised", "violates"


def legs_of(flows: Iterable[Flow]) -> frozenset[str]:
    """Every leg any of flows carries. Example: legs_of(agent_flows("triage")) -> {"private", "untrusted"}"""
    return frozenset(leg for flow in flows for leg in flow.legs)


def short(legs: Iterable[str]) -> str:
    """Legs as letters in LEGS order, "-" for none. Example: short({"exfil", "private"}) -> "P X" """
    return " ".join(SHORT[leg] for leg in LEGS if leg in set(legs)) or "-"


def lethal_sets(flows: Iterable[Flow]) -> list[tuple[str, ...]]:
    """The smallest sets of flows (by id, sorted) whose legs together are all three.

    A set is listed only when no smaller listed set is inside it. Three legs need at most three flows,
    so sets of one, two and three flows are tried, smallest first.
    Example: lethal_sets(mcp_flows("orders")) -> [("mcp:desk__get_ticket", "mcp:shipping__track_parcel")]
    """
    carrying = sorted((f for f in flows if f.legs), key=lambda f: f.id)
    found: list[tuple[str, ...]] = []
    for size in (1, 2, 3):
        for group in combinations(carrying, size):
            ids = tuple(f.id for f in group)
            if legs_of(group) == frozenset(LEGS) and not any(set(s) <= set(ids) for s in found):
                found.append(ids)
    return found


def open_ways_out(flows: Iterable[Flow]) -> list[str]:
    """Ids of the flows that send data out without a person's approval (EXFIL and not gated)."""
    return sorted(f.id for f in flows if EXFIL in f.legs and not f.gated)


def verdict(flows: Iterable[Flow]) -> str:
    """The Rule of Two on one task's flows: ALLOWED, SUPERVISED or VIOLATES.

    See the module docstring.
    Example: verdict(agent_flows("reply")) -> "supervised"
    """
    flows = tuple(flows)
    if legs_of(flows) != frozenset(LEGS):
        return ALLOWED  # two legs at most
    return VIOLATES if open_ways_out(flows) else SUPERVISED
