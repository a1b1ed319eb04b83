"""routing: a cheap model first, a verifier, and the expensive model only when the verifier is unsure.

Modules, one idea each: models (the scripted cheap and expensive models, the scripted verifier, and the
eval set: page 8's thirty golden cases plus a derived extension in kit/data/routing/), cascade (the cascade
itself, as an LLMClient, with one record per request: who answered, escalated or not, cost, seconds),
measure (each configuration run over the eval set with page 8's runner: pass rate, cost and latency),
frontier (which configurations are on the cost-quality Pareto frontier), breakeven (the escalation rate
at which a cascade stops saving money, or time), calibration (how often the verifier's confidence comes
true, by bucket), compose (the escalation target behind page 2's fallback chain: an availability fallback
inside a quality decision), scenarios (the table in kit/data/routing/scenarios.jsonl) and extension (the
generator of kit/data/routing/cases.jsonl and replies.jsonl: templates and seeded draws, checked by its test).
"""
