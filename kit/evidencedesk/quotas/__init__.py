"""quotas: sharing one model provider among many tenants without letting one of them starve the rest.

Modules, one idea each: buckets (token buckets for requests and tokens per minute on the ManualClock, and the
Retry-After they imply), fairqueue (a bounded shared FIFO queue against bounded per-tenant queues served by
deficit round robin), wallet (a daily spend cap per tenant that refuses before the call: denial of wallet),
gateway (all of them in front of a fixed pool of upstream calls, with per-tenant concurrency limits and 429s
with Retry-After as backpressure), fairness (max-min fair shares, Jain's index, the light tenants' waits),
simulate (many tenants and more than 10,000 requests on the ManualClock, FIFO against the fair design) and
scenarios (the table in kit/data/quotas/scenarios.jsonl).
"""
