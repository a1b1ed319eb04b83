"""The retrieval subpackage: documents found for a question, only among those the asker may read.

chunking.py (documents cut into overlapping chunks with stable ids), bm25.py (a small, deterministic
lexical ranker), access.py (the library of several tenants, and filtering by tenant and owner before
ranking, with the two wrong orders kept to show their leaks), prompt.py (retrieved chunks as untrusted,
source-tagged context, with injection signals), citations.py (an answer's citations checked against the
chunks retrieved for it), metrics.py (recall@k and precision@k on a labelled query set) and scenarios.py
(the table kit/data/retrieval/scenarios.jsonl). Import from the modules directly, e.g.
`from evidencedesk.retrieval.access import retrieve`. Left out: embeddings and vector search, real
tokenizers and stemmers, indexes kept on disk, and the model itself (every answer is scripted).
"""
