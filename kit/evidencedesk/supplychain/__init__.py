"""The supplychain subpackage: tool servers spoken to over the Model Context Protocol, as a supply chain.

servers.py (five in-process servers made with the official MCP Python SDK: an honest help desk, one whose
tool description carries instructions, one that changes a tool after it was approved, and two that offer the
same tool name), client.py (a client session over the SDK's in-memory transport: list the tools, call one),
manifest.py (a pinned digest of each approved tool's definition, checked on every listing; a changed tool is
refused until a person approves it again), shadowing.py (tool names namespaced by the client's own server id;
a bare name two servers offer is refused as ambiguous), privilege.py (each server's tools behind the Beginner
course's ToolGate with per-task allowlists, and their results as untrusted context), scenarios.py (the table
kit/data/supplychain/scenarios.jsonl). Import from the modules directly, e.g.
`from evidencedesk.supplychain.servers import desk_server`. Left out: remote transports (stdio, Streamable
HTTP), OAuth authorization, sampling and elicitation, resources and prompts, and where a server's package
comes from (registry provenance, signing).
"""
