"""Several samples per case: with a sampled model a case's pass is a random variable, and the samples of one
case are not independent draws.

A model whose output is sampled can answer the same case differently on each run, so one sample per
case measures each case's pass once, with noise. Drawing k
samples per case and averaging them gives each case a pass share; the eval's rate is the mean of those
shares. Its standard error must be taken over cases, the clusters: the k samples of one case share that
case's difficulty, so counting all n x k samples as independent draws (the binomial formula over every
sample) makes the error look smaller than it is. The same holds for cases written about one document or
one ticket: they fail together. Source: E. Miller, "Adding Error Bars to Evals: A Statistical Approach to
Language Model Evaluations", November 2024, arXiv 2411.00640 (read 2026-12-03), which recommends
resampling each question and clustered standard errors. Left out: the choice of k (Miller's paper weighs
it against the spread between cases), unequal weights, and the paired comparison of two configurations
with several samples each (the per-case share differences take the place of +1, 0, -1).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class SampledRate:
    """A pass rate from several samples per case: cases (int), draws (int, samples in all), rate (float, the
    mean of the per-case shares), se_cases (float, the standard error over cases: the clustered one) and
    se_draws (float, the binomial one over all draws, as if every sample were independent: too small).

    Example: sampled({"g01": [True, False], "g02": [True, True]}).rate -> 0.75
    """

    cases: int
    draws: int
    rate: float
    se_cases: float
    se_draws: float

    @property
    def design_effect(self) -> float:
        """(se_cases / se_draws) squared: how many draws count as one independent one (float; inf when
        se_draws is 0 and se_cases is not, 1.0 when both are 0)."""
        if self.se_draws == 0:
            return 1.0 if self.se_cases == 0 else math.inf
        return (self.se_cases / self.se_draws) ** 2


def sampled(samples: Mapping[str, Sequence[bool]]) -> SampledRate:
    """The pass rate of cases sampled several times each, with its clustered and its naive standard error.

    Args: samples (case id (str) -> that case's passes (a sequence of bool, at least one each); at least
    two cases). se_cases is the sample standard deviation of the per-case shares (n - 1 in the divisor)
    over the square root of the number of cases n. se_draws is sqrt(rate (1 - rate) / draws).
    Raises ValueError for fewer than two cases, a case with no sample, or a pass that is not a bool.
    Example: sampled({"g01": [True, True, False], "g02": [False, False, False]}).se_cases -> 0.333...
    """
    if len(samples) < 2:
        raise ValueError(f"samples must hold at least two cases (case id -> passes), got {len(samples)}")
    shares = []
    for case_id, passes in samples.items():
        passes = list(passes)
        if not passes:
            raise ValueError(f"case {case_id!r} has no sample: each case needs at least one pass or fail")
        if any(not isinstance(one, bool) for one in passes):
            raise ValueError(f"case {case_id!r}: every sample must be a bool (passed or not)")
        shares.append(sum(passes) / len(passes))
    n = len(shares)
    draws = sum(len(list(passes)) for passes in samples.values())
    rate = sum(shares) / n
    spread = sum((share - rate) ** 2 for share in shares) / (n - 1)
    return SampledRate(n, draws, rate, math.sqrt(spread / n), math.sqrt(rate * (1 - rate) / draws))


def one_sample_spread(samples: Mapping[str, Sequence[bool]]) -> float:
    """How far one run of one sample per case moves from run to run: the standard deviation of its pass count.

    Each case passes a single sample with probability equal to its share p_i (estimated from samples), so
    the count of passes varies with variance sum of p_i (1 - p_i). A case that always passes or always
    fails adds nothing; a case that passes half the time adds the most.
    Args and errors as sampled. Example: one_sample_spread({"a": [True, False], "b": [True, True]}) -> 0.5
    """
    sampled(samples)  # the same checks
    return math.sqrt(sum((sum(p) / len(p)) * (1 - sum(p) / len(p)) for p in map(list, samples.values())))
