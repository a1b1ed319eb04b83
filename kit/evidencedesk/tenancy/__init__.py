"""tenancy: one help desk serving several companies (tenants) that must never see one another.

Modules, one idea each: context (the tenant carried explicitly, and the job that loses it), stores
(records and credentials keyed by tenant), caches (a response-cache key with the tenant in it, a prompt
prefix that holds no tenant's data, and the prompt cache's side channel), retrieval (page 3's BM25 with an
index per tenant, against a shared index with a filter), memory (page 5's session memory per tenant and
user), audit (a log each tenant exports alone), neighbours (per-tenant limits against a shared pool),
platform (all of them behind one request handler, with the classic bugs as switches) and scenarios (the
table in kit/data/tenancy/scenarios.jsonl).
"""
