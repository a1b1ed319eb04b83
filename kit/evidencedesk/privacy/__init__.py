"""The privacy subpackage: personal data kept out of prompts and replies, and a system prompt that may leak.

detect.py (e-mail addresses, payment cards, phone numbers and known names, found by patterns and a list),
placeholders.py (reversible placeholders: <EMAIL_1> in the prompt, the address back in the reply, and
what restoring cannot do), outputs.py (a reply checked for secrets and for personal data the reader may
not see), prompts.py (what a system prompt must never hold), canary.py (a marker that shows a prompt
leaked, and a check for its words copied), guard.py (the whole path of one call), measure.py (the
detector's recall and precision by kind on a labelled synthetic set, with Wilson intervals from
evals.stats), scenarios.py (the table kit/data/privacy/scenarios.jsonl). Import from the modules
directly, e.g. `from evidencedesk.privacy.detect import find_personal_data`. All personal data in the kit
is invented. Left out: named-entity recognition and a real detection library (Presidio), data retention
at providers, and the law: what counts as personal data, and what you may do with it, is for your
privacy team and your jurisdiction.
"""
