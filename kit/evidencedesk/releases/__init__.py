"""releases: taking a prompt or model change to production behind page 10's gate, and back out again.

Modules, one idea each: prompts (a prompt version's id is the hash of its content; a registry that
never overwrites; labels that move, and rollback as moving one back), snapshots (pinned model snapshots
against a provider's moving aliases, and the release check that spots drift and shutdown dates),
candidates (the versions released on the page, the scripted behaviour standing in for each, and copies
of live traffic), shadow (the candidate beside the served version on copies of live requests, writes
suppressed), canary (a hash split of users, a guard metric, automatic rollback on the ManualClock),
peeking (the exact false-alarm chance of looking at a canary again and again), pipeline (the stages in
order) and scenarios (the table in kit/data/releases/scenarios.jsonl).
"""
