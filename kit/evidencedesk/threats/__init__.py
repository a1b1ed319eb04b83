"""threats: a threat model of the help-desk agent, read from the kit's own wiring and checked by tests.

Modules, one idea each: flows (every data flow of the agent, its MCP tools, its sinks and its tenant
boundaries, built from the objects earlier pages made, with the legs of the lethal trifecta each flow
carries), trifecta (which sets of flows combine private data, untrusted content and a way out, and the
Rule of Two's verdict on each task), diagram (the flows as a Mermaid diagram of trust boundaries and as
a text table), register (the threat register: each threat of a flow mapped to its control, the page
that teaches it, a kit test that enforces it, OWASP's lists and the NCSC's guidelines; and the residual
risks no control here covers), scenarios (the page's table of tool sets and configurations).
Left out: attack trees, risk scores, and anything the kit does not wire (a mail server, a browser, the
model provider's own systems).
"""
