"""The evals subpackage: measuring a model-backed system on a fixed set of golden cases.

graders.py (small deterministic graders, each returning a Grade with a code and a reason: exact match
after a stated normalisation, set match with precision and recall, a number within a tolerance, JSON
against a pydantic schema, citations within the ids a case allows), cases.py (golden cases as JSONL,
validated on load, with tags, and the Grader protocol that ties a case's kind to its grader), runner.py
(a configuration is a prompt and a model; run every case through it and grade each reply), stats.py
(a pass rate with its Wilson score interval, the Wald interval it replaces, and exact coverage),
paired.py (two configurations on the same cases: the 2x2 table and the exact McNemar test), multiple.py
(Holm's and Bonferroni's corrections for several comparisons), sizing.py (how many cases a difference
needs), samples.py (several samples per case: the pass rate and its standard error counted over cases),
scenarios.py (the table kit/data/evals/scenarios.jsonl). Import
from the modules directly, e.g. `from evidencedesk.evals.stats import wilson`. Left out: model-graded
evals (a judge), graded agent traces, and real models: both configurations are scripted fakes.
"""
