"""How much values taken one after another move together, and how much that widens the
interval of their median.

A median's order-statistic interval assumes independent values: the count of values below
the true median is then binomial, with variance n/4. A run's rounds are not independent on
a shared virtual machine. The machine drifts for seconds at a time, so neighbouring rounds
are slow or fast together, the count's variance is larger, and the plain interval is too
narrow (bench/interval_holds.py shows it on real runs).

The factor estimated here is that count's variance over n/4, from the series of signs
(above or below the series' median): one plus twice the sum of the signs' autocorrelations
at the first few lags, each weighted by the share of pairs that far apart. It is
distribution-free, like the interval it widens: it looks only at which side of the median
each value fell.

One series of 8 to 40 values says little about its own autocorrelation, and an interval
widened by a noisy factor covers less than one widened by the true one: a factor estimated
low by chance gives a narrow interval, and a case stopped for being precise is then one
that got lucky. Much of the drift is the machine's, and an experiment's cases ran in the
same rounds, so a case's factor is estimated in three tiers (`factors`): what recorded runs
on a shared VM show (the prior), what all of the experiment's series show together, and
what the case's own series shows, each tier weighted by how many values stand behind it.
bench/interval_coverage.py measures what that covers (docs/method/statistics.md).
"""
from __future__ import annotations

import math

import numpy as np

from layertax.engine.analysis import distributions

# The prior: the ratios of recorded runs on a shared 2-vCPU VM give pooled factors of 1.1 to
# 1.6 (docs/method/statistics.md); it weighs as much as PRIOR_VALUES values of an experiment.
PRIOR_FACTOR = 1.3
PRIOR_VALUES = 100
# The experiment's pooled factor weighs as much as this many of the case's own values: a case
# whose own series drifts far more than its experiment's (a ratio that switches between two
# levels) gets some of its own factor from about 30 rounds on.
EXPERIMENT_VALUES = 100
# Below this many values a series' signs say nothing of its dependence: at 6 rounds the pooled
# estimate averages 1.11 for independent rounds and 1.13 for rounds drifting with the machine
# (true factors 0.98 and 1.26), so the prior alone is used; bench/interval_coverage.py shows the
# interval at 6 rounds under drift covering 92% with the estimate and 94% with the prior.
MIN_ESTIMATED = 8


def lags(n: float) -> int:
    """How many lags the sum reaches: 1.5 n^(1/3) (3 at 8 values, 5 at 40), the usual rate for
    a long-run variance, and never past the series."""
    return max(1, min(int(round(1.5 * n ** (1 / 3))), int(n) - 1))


def _corrected(autocorrelations: np.ndarray, n: float) -> float:
    """1 + 2 sum_k (1 - k/n) rho_k, each rho_k raised by the factor/n that measuring the signs
    about the series' own median took from it, solved for the factor."""
    weights = 1 - np.arange(1, autocorrelations.size + 1) / n
    return float((1 + 2 * np.dot(weights, autocorrelations)) / (1 - 2 * weights.sum() / n))


def pooled_autocorrelations(centred: list[np.ndarray]) -> tuple[np.ndarray | None, float, int]:
    """What series of values centred on zero show together: their autocorrelations at lags 1 to
    lags(n), pooled lag by lag (each lag's mean product over the pairs that far apart, scaled to
    its series' length), the series' mean length n, and how many values they hold. The
    autocorrelations are None where every value is 0 (nothing moves). The series are not empty."""
    count = sum(s.size for s in centred)
    n = count / len(centred)                          # the series' mean length
    reach = lags(n)
    pairs = np.zeros(reach)
    weight = 0.0
    for s in centred:
        weight += float(np.sum(s * s))
        for k in range(1, min(reach, s.size - 1) + 1):
            pairs[k - 1] += float(np.sum(s[k:] * s[:-k])) * s.size / (s.size - k)
    return (pairs / weight if weight else None), n, count


def _estimate(series: list[np.ndarray]) -> tuple[float, int] | None:
    """The factor the series show together, with no prior, and how many values it rests on: their
    sign autocorrelations pooled lag by lag. None when none has two values. It may fall below 1
    (a chance run of alternating signs); the callers floor what they use."""
    usable = [s for s in series if s.size >= 2]
    if not usable:
        return None
    # a value tied with the median has no side (sign 0)
    autocorrelations, n, count = pooled_autocorrelations([np.sign(s - np.median(s)) for s in usable])
    if autocorrelations is None:
        return 1.0, count                             # every value is the median: nothing to widen
    return _corrected(autocorrelations, n), count


def factors(series) -> list[float]:
    """Each series' factor (>= 1), for series taken side by side, each in the order it was taken
    (an experiment's cases' per-round ratios): its own estimate, shrunk towards the pooled
    estimate of all of them, itself shrunk towards PRIOR_FACTOR, each by the values behind it.
    A series of fewer than two values: 1.0 (it has no interval to widen). Series shorter than
    MIN_ESTIMATED on average: PRIOR_FACTOR each, as they are too short to estimate anything."""
    arrays = [np.asarray(s, dtype=float) for s in series]
    usable = [s.size for s in arrays if s.size >= 2]
    if usable and sum(usable) / len(usable) < MIN_ESTIMATED:
        return [PRIOR_FACTOR if s.size >= 2 else 1.0 for s in arrays]
    pooled = _estimate(arrays)
    if pooled is None:
        return [1.0] * len(arrays)
    estimate, count = pooled
    experiment = max(1.0, shrunk(estimate, count, PRIOR_FACTOR, PRIOR_VALUES))
    out = []
    for s in arrays:
        own = _estimate([s])
        if own is None:
            out.append(1.0)
            continue
        # Floored before it is blended: a series that looks more independent than independent
        # (alternating signs, by chance) must not pull its experiment's factor down.
        out.append(shrunk(max(1.0, own[0]), s.size, experiment, EXPERIMENT_VALUES))
    return out


def shrunk(estimate: float, values: float, toward: float, toward_values: float) -> float:
    """An estimate from `values` values shrunk towards `toward`, weighed as `toward_values` values:
    their weighted mean (each tier of a factor: an experiment's towards the prior, a series' own
    towards its experiment's)."""
    return (values * estimate + toward_values * toward) / (values + toward_values)


def variance_factor(values_in_order) -> float:
    """The factor of one series on its own (a run's launches, a baseline's round medians)."""
    return factors([values_in_order])[0]


def widen_ratio_interval(point: float, ci: tuple[float, float], factor: float) -> tuple[float, float]:
    """A ratio's interval, drawn as if its values were independent, widened for drift: each side's
    distance from the point, on a log scale (a ratio's natural one), grows by sqrt(factor), as
    the standard error of a median of a series does when its count's variance grows by factor."""
    scale = math.sqrt(max(1.0, factor))
    lo, hi = ci
    return point * (lo / point) ** scale, point * (hi / point) ** scale


def widen_p(p_value: float, factor: float) -> float:
    """A two-sided p-value from a test that took its values as independent, for values whose
    variance is factor times larger: the test's normal statistic shrinks by sqrt(factor)."""
    if factor <= 1.0 or p_value >= 1.0:
        return p_value
    z = distributions.normal_isf(p_value / 2)
    return 2 * distributions.normal_sf(z / math.sqrt(factor))
