"""Does the verifier's confidence come true? A reliability table: replies grouped by confidence, with the
share of them that were right and its Wilson interval.

A confidence of 0.9 means something only if about nine in ten replies scored near 0.9 are right. No
verifier is calibrated out of the box: a judge model's stated score, an answer's token log-probabilities
and the agreement of samples are all scores, and post-training can make a model's probabilities
overconfident (OpenAI, "GPT-4 Technical Report", arXiv 2303.08774, March 2023, figure 8,
https://arxiv.org/abs/2303.08774, read 2026-12-03). reliability() measures it on an eval set, where a
grader says which replies were right; the threshold is then chosen from the table and the frontier, not
from the number's face value. Left out: recalibration (Platt scaling, isotonic regression) and
calibration metrics such as the expected calibration error.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from itertools import pairwise

from evidencedesk.evals.stats import Rate, wilson

EDGES = (Decimal("0"), Decimal("0.5"), Decimal("0.7"), Decimal("0.85"), Decimal("0.95"), Decimal("1"))  # buckets


@dataclass(frozen=True)
class Bucket:
    """Replies whose confidence is in [low, high) (the last bucket includes 1): right (evals.stats.Rate,
    the share that passed, with its Wilson interval) or None when the bucket is empty."""

    low: Decimal
    high: Decimal
    right: Rate | None


def reliability(scored: list[tuple[Decimal, bool]], edges: tuple[Decimal, ...] = EDGES) -> list[Bucket]:
    """Group (confidence, passed) pairs into buckets by confidence; one Bucket per pair of edges.

    Args: scored (list of (Decimal from 0 to 1, bool)); edges (increasing Decimals from 0 to 1).
    Raises ValueError naming edges or the first confidence out of range.
    Example: reliability([(Decimal("0.9"), True), (Decimal("0.3"), False)])[3].right.passed -> 1
    """
    if list(edges) != sorted(set(edges)) or edges[0] != 0 or edges[-1] != 1 or len(edges) < 2:
        raise ValueError(f"edges must increase from 0 to 1, got {[str(e) for e in edges]}")
    for confidence, _ in scored:
        if not isinstance(confidence, Decimal) or not 0 <= confidence <= 1:
            raise ValueError(f"a confidence must be a Decimal from 0 to 1, got {confidence!r}")
    buckets = []
    for low, high in pairwise(edges):
        last = high == edges[-1]
        inside = [ok for c, ok in scored if low <= c and (c < high or (last and c == high))]
        buckets.append(Bucket(low, high, wilson(sum(inside), len(inside)) if inside else None))
    return buckets
