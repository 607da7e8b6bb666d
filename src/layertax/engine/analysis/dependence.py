"""How much values taken one after another move together, and how much that widens the
interval of their median.

A median's order-statistic interval assumes independent values: the count of values below
the true median is then binomial, with variance n/4. A run's rounds are not independent on
a shared virtual machine. The machine drifts for seconds at a time, so neighbouring rounds
are slow or fast together, the count's variance is larger, and the plain interval is too
narrow (bench/interval_holds.py shows it on real runs).

The factor estimated here is that count's variance over n/4: the long-run variance of the
series of signs (above or below the median), by batch means. The series, in the order it
was taken, is cut into about sqrt(n) consecutive batches; for independent values each
batch's sum of signs has a variance equal to its length, and a batch's squared sum over its
length estimates the factor. It is distribution-free, like the interval it widens: it
looks only at which side of the median each value fell.

The estimate is never taken below 1: a run whose rounds look more independent than
independent gets the plain interval, so this can only widen it; bench/interval_coverage.py
measures what that costs where rounds are independent, and what it buys where they drift
(docs/method/statistics.md).
"""
from __future__ import annotations

import math

import numpy as np

# With fewer than this many batches the estimate is too rough to use.
MIN_BATCHES = 3
# Below MIN_BATCHES batches (fewer than 9 values) the factor cannot be estimated; this one is
# assumed instead: what a shared VM's drift gives the round medians of a run (the drift and
# steps models of bench/interval_coverage.py give 1.3-1.4), a little short of it.
SMALL_SAMPLE_FACTOR = 1.2
# Batch means with batches of sqrt(n) values miss the correlation that reaches past a batch,
# so they underestimate the factor of a drifting series (1.1-1.3 for a true 1.4 at 10 to 40
# values); the estimate is scaled by this. With it the 95% interval covers 93-97% under every
# model bench/interval_coverage.py simulates (docs/method/statistics.md).
BIAS_CORRECTION = 1.1


def variance_factor(values_in_order) -> float:
    """The variance of the count below the median over an independent series' (>= 1).

    values_in_order: the values in the order they were taken (a case's round medians by
    round, a run's launches). SMALL_SAMPLE_FACTOR when there are too few to cut into
    MIN_BATCHES batches (one value: 1.0, it has no interval to widen)."""
    x = np.asarray(values_in_order, dtype=float)
    batches = math.isqrt(x.size)
    if batches < MIN_BATCHES:
        return SMALL_SAMPLE_FACTOR if x.size > 1 else 1.0
    signs = np.sign(x - np.median(x))
    per_value = float(np.mean(signs * signs))      # below 1 when values tie with the median
    if per_value == 0:
        return 1.0
    parts = np.array_split(signs, batches)
    factor = float(np.mean([p.sum() ** 2 / p.size for p in parts])) / per_value
    return max(1.0, factor) * BIAS_CORRECTION


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
    from scipy import stats as sps   # here, not at the top: ~0.5 s to load (see level_shift)

    z = float(sps.norm.isf(p_value / 2))
    return float(2 * sps.norm.sf(z / math.sqrt(factor)))
