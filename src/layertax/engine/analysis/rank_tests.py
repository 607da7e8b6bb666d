"""The two rank tests the analysis uses, Mann-Whitney's (compare) and Kruskal-Wallis'
(level_shift), computed as scipy.stats computes them (average ranks for ties, its tie
corrections, the exact U distribution where scipy.stats uses it) but without loading
scipy.stats (distributions says why). tests/test_rank_tests.py checks both against
scipy.stats on samples with and without ties."""
from __future__ import annotations

import numpy as np

from layertax.engine.analysis import distributions, shift

# scipy.stats.mannwhitneyu's method="auto": the exact U distribution when either sample has
# at most this many values and there is no tie; otherwise the normal approximation.
EXACT_UP_TO = 8


def average_ranks(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(ranks, tie sizes): each value's 1-based rank, tied values sharing the mean of theirs,
    and the size of each group of equal values (1 for a value alone)."""
    order = np.argsort(values, kind="mergesort")
    ordered = values[order]
    _, first, sizes = np.unique(ordered, return_index=True, return_counts=True)
    mean_rank = first + (sizes + 1) / 2.0
    ranks = np.empty(values.size, dtype=float)
    ranks[order] = np.repeat(mean_rank, sizes)
    return ranks, sizes


def _tie_term(sizes: np.ndarray) -> float:
    t = sizes.astype(float)
    return float(np.sum(t ** 3 - t))


def mann_whitney_p(a, b) -> float:
    """The two-sided p-value of Mann-Whitney's U test of two independent samples: 1.0 for two
    samples of the same values (a run compared with itself), where scipy.stats gives nan when
    every value is the same."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    n1, n2 = a.size, b.size
    ranks, sizes = average_ranks(np.concatenate([a, b]))
    u1 = float(np.sum(ranks[:n1])) - n1 * (n1 + 1) / 2
    u = max(u1, n1 * n2 - u1)
    tied = bool(np.any(sizes > 1))
    if (n1 > EXACT_UP_TO and n2 > EXACT_UP_TO) or tied:
        n = n1 + n2
        sd = np.sqrt(n1 * n2 / 12 * ((n + 1) - _tie_term(sizes) / (n * (n - 1))))
        p = 2 * distributions.normal_sf((u - n1 * n2 / 2 - 0.5) / sd) if sd > 0 else 1.0
    else:
        # P(U >= u) = P(U <= n1 n2 - u): the distribution is symmetric.
        p = 2 * shift.u_cdf(n1, n2)[int(round(n1 * n2 - u))]
    return min(max(p, 0.0), 1.0)


def kruskal_p(*groups) -> float:
    """The p-value of the Kruskal-Wallis H test that the groups come from one distribution
    (chi-square with one degree fewer than groups; corrected for ties). 1.0 when every value
    is the same (no ranking to test)."""
    parts = [np.asarray(g, dtype=float) for g in groups]
    values = np.concatenate(parts)
    n = values.size
    ranks, sizes = average_ranks(values)
    correction = 1.0 - _tie_term(sizes) / (n ** 3 - n)
    if correction <= 0:
        return 1.0
    h, start = 0.0, 0
    for part in parts:
        h += float(np.sum(ranks[start:start + part.size])) ** 2 / part.size
        start += part.size
    h = (12.0 / (n * (n + 1)) * h - 3 * (n + 1)) / correction
    return distributions.chi2_sf(h, len(parts) - 1)
