"""The judging subpackage: a model as judge, the biases that make its verdicts follow what should not matter,
and the measurements that catch them.

pairs.py (pairs of answers with a human label, and padding that adds words and no content), judge.py (the
judge's prompts, its verdicts read as JSON with one repair, its calls counted in credits, and the plain
pairwise method), fakes.py (a scripted judge with known, configurable position and length biases),
bias.py (the position test: swap the order; the verbosity test: pad the worse answer; each as a rate with
its Wilson interval), agreement.py (raw agreement and Cohen's kappa against human labels, with kappa's standard error
and interval), rubric.py
(judging in both orders, and judging each answer alone against explicit criteria), versus.py (a judge as
a grader on the golden cases of evals/, against the deterministic graders, with its cost), scenarios.py
(the table kit/data/judging/scenarios.jsonl). Import from the modules directly, e.g.
`from evidencedesk.judging.agreement import cohen_kappa`. Left out: real models (the judge is a script),
self-preference (no model here judges its own family's answers), and judging agent traces.
"""
