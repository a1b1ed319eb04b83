"""The compaction subpackage: what a growing context costs, and two ways to pay less for it.

promptcache.py (the invented provider's prompt cache: a stable prefix, a minimum length, a lifetime on the
ManualClock, and cached input tokens reported in the usage, which usage.py prices at the cached-input
price), history.py (old observations clipped with a marker, or summarised by a model into an untrusted,
source-tagged summary, under a budget of tokens), steps.py (one scripted run of six tool calls and an
answer, sent four ways: with or without the cache and compaction, with its facts in typed state) and
scenarios.py (the table kit/data/compaction/scenarios.jsonl). Import from the modules directly, e.g.
`from evidencedesk.compaction.promptcache import PrefixCache`. Left out: real providers and real models.
"""
