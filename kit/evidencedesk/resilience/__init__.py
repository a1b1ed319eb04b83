"""The resilience subpackage: model calls that stream, meet deadlines and survive a provider's bad day.

stream.py (a scripted fake that streams an answer as events on the ManualClock: usage where each provider
puts it, hidden or streamed thinking, an error event inside the stream), deadline.py (reading a stream
under a first-progress timeout and a total deadline, with limits per model family; a cut answer kept as
partial, and billed), errors.py (documented provider errors mapped to the kit's, and QuotaExhausted),
failures.py (what to do with each provider error: retry here with jittered backoff, try another
provider, or stop), breaker.py (a circuit breaker per provider, one probe while half-open),
fallback.py (a chain of providers that checks the run's budget before every attempt) and scenarios.py
(the lab and the table of resilience scenarios, kit/data/resilience/scenarios.jsonl). Import from the
modules directly, e.g. `from evidencedesk.resilience.breaker import CircuitBreaker`.
Left out: real providers, networks, and breakers shared between processes.
"""
