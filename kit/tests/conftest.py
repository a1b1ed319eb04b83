"""The kit's tests share one Hypothesis profile: the same examples on every run, no deadline, no database.

A property test must not pass on one machine and fail on another, or fail because the machine is slow: so
every @given test draws its examples from a fixed seed (derandomize=True), has no per-example time limit
(deadline=None: Hypothesis' default is 200 ms, which a loaded machine can exceed), and keeps no example
database between runs (database=None: nothing written next to the kit). A test's own @settings still sets
what it names (max_examples, phases) and inherits the rest from this profile.
Source: Hypothesis settings and profiles, https://hypothesis.readthedocs.io/en/latest/reference/api.html#settings
(read 2026-12-03).
"""

from hypothesis import settings

settings.register_profile("kit", derandomize=True, deadline=None, database=None)
settings.load_profile("kit")
