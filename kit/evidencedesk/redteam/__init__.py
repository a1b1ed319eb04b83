"""The redteam subpackage: generated attacks against the Beginner course's defences, and a guardrail
classifier measured as a classifier.

mutations.py (deterministic rewrites of an attack's text: encodings, look-alike letters, splitting across
turns or fields, role-play framing, rewording by a fixed phrase table), campaign.py (every mutation of the
attack table's seeds against the text filter of security.py, and the calls an obeying model would make
against the gate of gate.py), traffic.py (a labelled set of attack and benign messages, split into tune
and holdout), classifier.py (a transparent scored rule model with a threshold), measure.py (recall,
false-positive rate and precision with Wilson intervals, the threshold curve, a threshold chosen on the
tune split, precision at a given attack prevalence), costs.py (what each layer costs a message in credits
and seconds, on the kit's clock and ledger), scenarios.py (the table kit/data/redteam/scenarios.jsonl).
Import from the modules directly, e.g. `from evidencedesk.redteam.mutations import MUTATIONS`. Left out:
real models (the guard model and the obeying model are scripted), attacks that a model writes and adapts
turn by turn, and every attack family the mutations do not generate.
"""
