"""The resilience subpackage: model calls that stream, meet deadlines and survive a provider's bad day.

stream.py (a scripted fake that streams an answer as events on the ManualClock), deadline.py (reading
a stream under a first-token timeout and a total deadline; a cut answer kept as partial, and billed),
failures.py (what to do with each of the kit's provider errors: retry here, try another provider, or
stop), breaker.py (a circuit breaker per provider), fallback.py (a chain of providers that checks the
run's budget before every attempt) and scenarios.py (the lab and the table of resilience scenarios,
kit/data/resilience/scenarios.jsonl). Import from the modules directly, e.g.
`from evidencedesk.resilience.breaker import CircuitBreaker`. Left out: real providers, networks, threads.
"""
