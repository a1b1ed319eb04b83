"""The calling subpackage: production model calls with native tool calling and structured outputs.

definitions.py (a kit Tool as the tool definition a request offers, and the definitions a task may see),
rounds.py (one round answers every call of a reply through the gate, in call order, as untrusted
source-tagged results; a loop runs rounds until the model stops, bounded, refusing a cut or filtered
reply), structured.py (a JSON reply checked against a pydantic model, with exactly one bounded repair and
then a named refusal), stopwords.py (the real providers' stop words mapped to the kit's four stop
reasons, with their sources), scenarios.py (the lab and the table kit/data/calling/scenarios.jsonl). The wire
formats themselves live with the adapters, in providers.py. Import from the modules directly, e.g.
`from evidencedesk.calling.rounds import run_rounds`. Left out: real providers, streaming, and retries.
"""
