"""The trajectories subpackage: grading what an agent did, not only what it answered, and gating a change in CI.

record.py (a run's trajectory read from its trace and ledger: tools and their outcomes, stop reason,
steps, credits), cases.py (trajectory cases as data; the agent page's scenario table turned into the
first eval set; the help desk's golden trajectories), grade.py (three stated rules for the tools, and a
grade per run that names every way it failed), candidates.py (the baseline and four candidate
configurations, scripted), runner.py (run and grade a set into the EvalRun of evals/, once or several
times), flaky.py (cases whose outcome changes between runs, and quarantine with an owner and an
expiry), gate.py (the regression gate: a paired rule, a report and an exit code, as a function and a
script), scenarios.py (the table kit/data/trajectories/scenarios.jsonl). It builds on agent/ and evals/.
Import from the modules directly, e.g. `from evidencedesk.trajectories.gate import decide`. Left out:
real models, tool arguments in the expected path, and judging the answer's text.
"""
