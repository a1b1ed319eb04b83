"""evidencedesk: the teaching kit of the course, one small idea per module.

In course order: llm (messages, requests, tool calls, the kit's errors, a scripted client), providers (two
invented wire formats, tool calls included, and their adapters), usage (clock, prices, ledger, latency
percentiles, slow, timed and timeout clients), budget (the per-run budget), cache (the response cache), limits
(per-user daily limits), retry (capped backoff within the budget); each imports only modules before it. Then
tools (the tool contract: schemas, registry, result codes), helpdesk (the three help-desk tools and their
data), gate (permissions, limits, approval, audit), context (trust labels and prompt assembly), security
(injection signals, personal data, redaction), failsafe (checks that fail closed, errors that leak nothing),
attacks (the attack table and its runner), strictjson (the one strict JSON reader that every data file loader
shares). The Advanced course adds subpackages, each importing only the modules and subpackages before it:
calling (tool definitions, tool-call rounds through the gate, structured output with one repair, and their
scenario table), resilience (streamed answers under deadlines, a circuit breaker and a fallback chain within
the budget), retrieval (chunks with stable ids, a BM25 ranker, filtering by tenant and owner before ranking,
citations checked against what was retrieved, recall@k and precision@k), compaction (a provider's prompt cache
and its cached-input price, old observations clipped or summarised under a budget of tokens, one run's cost
per step with and without them), agent (a loop of state, proposal, check and gated action; then a person's
approval, checkpoints, cancel, delegation, and memory that a model proposes and a person reviews), planning
(plan-then-execute: a typed plan checked whole before its first step, run through the gate, replanned within a
bound), evals (golden cases, deterministic graders, pass rates with Wilson intervals, paired comparisons of
two configurations, and how many cases a difference needs), judging (a scripted judge with known biases, the
position and verbosity tests, agreement with human labels as Cohen's kappa, a rubric, and the judge against
deterministic graders), then trajectories (agent runs graded by their traces, a regression gate for CI with a
stated rule and an exit code, flaky cases found by re-running and quarantined with an owner and an expiry),
then sinks (model output at each sink it reaches: HTML escaped and sanitised, Markdown images and links
against an allowlist of hosts, SQL through parameters on a read-only sqlite3 connection with an authorizer,
shell as an argument list, paths kept inside a folder, JSON into a strict model), then privacy (personal data
found by patterns and a list, replaced by reversible placeholders before a call and restored after it, replies
checked for secrets and other people's data, a system prompt audited as if it were public and watched with a
canary, and the detector's recall and precision measured on a labelled synthetic set), then redteam (generated
mutations of the attack table against the text filter and the gate, a scored rule classifier measured with
intervals on a tune and a holdout split, precision at a given attack prevalence, and what each layer costs a
message), then supplychain (MCP tool servers on the official SDK, in process: descriptions and results as
untrusted input, a pinned manifest checked on every listing, names namespaced by server, and each server's
tools behind the gate), then tenancy (one help desk for several tenants: the tenant carried explicitly into
every job, records, credentials, caches, a search index and memory per tenant, an audit log each tenant
exports alone, per-tenant limits, and properties that no tenant sees another's data or can tell what the
others did), then tracing (model and tool calls as spans on the real OpenTelemetry SDK with the GenAI semantic
conventions' names, content off by default and redacted when on, cost per user and per feature from the spans,
and what head and tail sampling keep), then routing (a cheap model first with a scripted verifier, escalating
to the expensive model when it is unsure, judged on page 8's eval set; the cost-quality frontier, the
break-even escalation rate, and the escalation target behind page 2's fallback chain), then quotas (one provider
shared by many tenants: token buckets for requests and tokens per minute, per-tenant concurrency and queues
served by deficit round robin, 429s with a Retry-After, a daily spend cap that refuses before the call, and
fairness measured over more than 10,000 simulated calls), then releases (prompt versions named by the hash of
their content, pinned model snapshots against moving aliases, shadow runs with writes suppressed, and a canary
with a guard metric that rolls itself back, all behind the trajectory gate), then outbox (a reply sent once
across crashes: the state change and the intent to send in one sqlite3 transaction, a relay that sends and
marks, a receiver whose UNIQUE message id drops repeats, and a crash staged at every boundary), then threats
(the agent's data flows read from the kit's wiring, the lethal trifecta and the Rule of Two per task, and a
threat register mapped to controls, pages, tests, OWASP and the NCSC), and last capstone (every table and property
of the course from one command, an incident drill in which a poisoned ticket is found, contained and purged, its
post-incident review, and a release checklist).

Everything is deterministic: no wall clock, no randomness, no network. It leaves out real providers, real
tokenizers and real money.
"""

from __future__ import annotations

from pathlib import Path

DATA_DIR = Path(__file__).resolve().parents[1] / "data"  # kit/evidencedesk/ -> kit/data/
