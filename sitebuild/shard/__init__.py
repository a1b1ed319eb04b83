"""Sharding: a check split over machines, balanced by recorded durations, and the shards' results merged.

- shards.py: which pages each of N shards runs, from data/durations.json.
- shardio.py: what each shard records beside its results (its inputs' digests, failures of no page).
- merge.py: `python -m sitebuild merge`, which refuses results that do not fit together.

Imports find/ and verify/results.py only; never MkDocs.
"""
