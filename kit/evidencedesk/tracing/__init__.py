"""tracing: every model call and tool call of a question as an OpenTelemetry span, and what the spans add up to.

Modules, one idea each: setup (the real OpenTelemetry SDK with a provider of its own, an in-memory exporter,
ids from a seed and times from the ManualClock, and a one-line-per-span printout), genai (the GenAI semantic
conventions' names, and wrappers that trace calling.rounds without changing it), content (prompts
and replies kept out of spans by default, and redacted when a setup turns capture on), costs (cost per user and
per feature from the spans, summing exactly to the total), sampling (head sampling in the SDK against a tail
policy over finished traces) and scenarios (the table in kit/data/tracing/scenarios.jsonl).
"""
