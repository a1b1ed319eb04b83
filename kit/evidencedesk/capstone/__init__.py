"""capstone: the course shipped as a whole, from one command and one drill.

Modules, one idea each: course (every page in course order, with the kit code it adds), tables (every
scenario and attack table, found in the kit and played in course order), properties (the Hypothesis
property tests of kit/tests, run through pytest), command (the one command, `python -m
evidencedesk.capstone`: a line per table and per property file, a verdict, an exit code), traces (the
drill's runs as OpenTelemetry spans, and the search that finds the poisoned run in them), drill (an
incident drill: a poisoned ticket reaches production, is found, contained and purged), review (the
post-incident review, written from the drill's records), checklist (a release checklist, each item a
page and the check behind it) and scenarios (the drill's table in kit/data/capstone/scenarios.jsonl).
"""
