"""How much a case's rounds move together in two runs, for the rank statistic `compare` takes.

compare's B/A is the Hodges-Lehmann shift between two runs' per-round ratios of a case, its
interval Moses', inverting the Mann-Whitney count (shift.py). That count assumes independent
rounds; a shared machine's rounds drift together, and the count's variance then grows by one
plus twice the sum of the rounds' rank autocorrelations (each round's rank within its run,
lag by lag, weighted by the share of pairs that far apart). dependence.py estimates the like
factor of signs for a run's median; ranks move together more than signs do, and two runs'
rounds of every case of an experiment say more together than either run alone. So this
factor is estimated on ranks, over both runs at once (`factors`), in two tiers as a run's own
is: what the experiment's series show together, shrunk towards a prior, and what the case's
own two series show, each weighted by how many rounds stand behind it.

An autocorrelation measured over a short series falls short of the one its process has: it is
measured about the series' own centre (which the correction below takes out exactly for
independent rounds), and for rounds that drift it is biased further towards zero, by a share
that shrinks as 1/n (SHORTFALL). bench/compare_coverage.py measures what the interval covers
(docs/method/statistics.md, "compare's interval").
"""
from __future__ import annotations

import numpy as np

from layertax.engine.analysis import dependence

# The experiment's estimate is shrunk towards PRIOR_FACTOR, and a case's own estimate towards
# its experiment's, with the weights a run's own factor takes (dependence.PRIOR_VALUES,
# dependence.EXPERIMENT_VALUES); the prior for ranks lies between what simulated independent and
# drifting rounds need (1.0 and 1.5).
PRIOR_FACTOR = 1.3
# The estimated excess over 1 of a drifting series falls short of its true one by a share that
# shrinks as 1/n (the bias of an autocorrelation measured over n values); dividing by
# 1 - SHORTFALL/n restores most of it and leaves independent rounds' estimate at 1. Without it
# the interval covers 92-93% of simulated drifting rounds at 8 to 16 rounds
# (bench/compare_coverage.py --shortfall 0).
SHORTFALL = 3.0
# Below this many rounds on average, so few ranks cannot tell drift from none, so one factor
# serves every case: the one that sets the simulated models' coverage at 6 rounds about evenly
# either side of 95% (bench/compare_coverage.py --short-factor F; docs/method/statistics.md).
MIN_ESTIMATED = 8
SHORT_FACTOR = 1.19


def _ranks(series: np.ndarray) -> np.ndarray:
    """Each value's rank in its series, centred on zero (tied values share their mean rank)."""
    _, where, counts = np.unique(series, return_inverse=True, return_counts=True)
    mean_ranks = np.cumsum(counts) - (counts - 1) / 2
    return mean_ranks[where] - (series.size + 1) / 2


def _corrected(autocorrelations: np.ndarray, n: float) -> float:
    """The factor from rank autocorrelations pooled over series of mean length n: 1 + 2 sum_k
    (1 - k/n) rho_k, each rho_k measured about its series' own centre and so short by about the
    factor over n, solved for the factor (exact for independent rounds, whose measured rho_k
    average -1/(n-1)); then its excess over 1 divided by 1 - SHORTFALL/n."""
    weights = 1 - np.arange(1, autocorrelations.size + 1) / n
    measured = 1 + 2 * float(np.dot(weights, autocorrelations))
    factor = measured / (1 - (1 + 2 * weights.sum() - measured) / n)
    return 1 + (factor - 1) / (1 - SHORTFALL / n)


def _estimate(series: list[np.ndarray]) -> tuple[float, int] | None:
    """The factor the series show together, with no prior (it may fall below 1), and how many
    rounds it rests on. None when no series has three values."""
    usable = [s for s in series if s.size >= 3]
    if not usable:
        return None
    autocorrelations, n, count = dependence.pooled_autocorrelations([_ranks(s) for s in usable])
    if autocorrelations is None:
        return 1.0, count                             # every round the same: nothing to widen
    return _corrected(autocorrelations, n), count


def factors(series_a, series_b) -> list[float]:
    """Each case's factor (>= 1) for B/A, given each case's rounds in run A and in run B (in the
    order they ran): its own estimate over its two series, shrunk towards the experiment's (all
    its cases' series of both runs), itself shrunk towards PRIOR_FACTOR. SHORT_FACTOR for every
    case when the series average fewer than MIN_ESTIMATED rounds."""
    pairs = [(np.asarray(a, dtype=float), np.asarray(b, dtype=float)) for a, b in zip(series_a, series_b)]
    every = [s for pair in pairs for s in pair]
    if not every or sum(s.size for s in every) / len(every) < MIN_ESTIMATED:
        return [SHORT_FACTOR] * len(pairs)
    pooled = _estimate(every)
    if pooled is None:
        return [SHORT_FACTOR] * len(pairs)
    estimate, count = pooled
    experiment = max(1.0, dependence.shrunk(estimate, count, PRIOR_FACTOR, dependence.PRIOR_VALUES))
    out = []
    for pair in pairs:
        own = _estimate(list(pair))
        if own is None:
            out.append(experiment)
            continue
        # floored before it is blended, as a run's own is: a case whose rounds alternate by chance
        # must not pull below its experiment
        out.append(dependence.shrunk(max(1.0, own[0]), own[1], experiment, dependence.EXPERIMENT_VALUES))
    return out
