"""How far one sample lies from another: the Hodges-Lehmann shift and Moses' interval for it.

Of all n*m differences b_j - a_i, the shift is their median, and Moses' interval is the pair of
them whose ranks the Mann-Whitney U distribution puts alpha/2 from either end: the interval the
Mann-Whitney test inverts, so it excludes 0 when that test rejects (up to the interpolation
between two ranks, below). It assumes two independent samples of one shape; `compare` takes it
on the logarithms of two runs' per-round ratios, where a change of speed is a shift, and widens
it for rounds that drift together (stats.series_ratio_test). Like the median's interval (stats.median_ci), the ranks are
interpolated between the two that bracket the confidence, so that it is 95% where it says 95%
rather than the next rank's 96-99%.

All n*m differences are held only when there are few of them: a result of 20,000 rounds a side
has 4e8. Beyond LISTED_DIFFERENCES a difference of a given rank is found by bisection on its
value, counting the differences below a candidate with two sorted arrays (memory n + m).
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from layertax.engine.analysis import distributions

# Up to this many pairs the Mann-Whitney U distribution is counted exactly (integers); above it
# the normal approximation is within a small fraction of a rank of it.
EXACT_PAIRS = 2500
# Up to this many differences they are listed and sorted (8 MB); above it, found by bisection.
LISTED_DIFFERENCES = 1 << 20
# Bisection stops when the bracket is this narrow (log ratios: a relative 1e-12).
_RESOLUTION = 1e-12


@lru_cache(maxsize=256)
def u_cdf(n: int, m: int) -> tuple[float, ...]:
    """P(U <= u) for u = 0..n*m, U the Mann-Whitney count of two independent samples of n and m
    values without ties: the coefficients of the Gaussian binomial [n+m choose n], counted as
    the product over k = 1..n of (1 - q^(m+k)) / (1 - q^k), in exact integers."""
    n, m = min(n, m), max(n, m)                      # the same distribution; fewer passes
    top = n * m
    counts = [1] + [0] * top
    for k in range(1, n + 1):
        for u in range(top, m + k - 1, -1):          # times (1 - q^(m+k)), from the top down
            counts[u] -= counts[u - m - k]
        for u in range(k, top + 1):                  # divided by (1 - q^k), from the bottom up
            counts[u] += counts[u - k]
    total = math.comb(n + m, n)
    out, running = [], 0
    for c in counts:
        running += c
        out.append(running / total)
    return tuple(out)


def _coverage(rank: int, n: int, m: int) -> float:
    """The coverage of [D(rank), D(nm + 1 - rank)], D the sorted differences."""
    return 1.0 - 2.0 * u_cdf(n, m)[rank - 1]


@lru_cache(maxsize=1024)
def interval_rank(n: int, m: int, confidence: float) -> tuple[float, float]:
    """(rank, coverage): the (fractional, 1-based) rank from either end of the n*m sorted
    differences at which the interval reaches the confidence, and the coverage it has. When even
    the extremes fall short (3 values a side, or fewer), the rank is 1 and the coverage theirs."""
    pairs = n * m
    if pairs > EXACT_PAIRS:
        sd = math.sqrt(pairs * (n + m + 1) / 12)
        rank = pairs / 2 + 0.5 - distributions.normal_isf((1 - confidence) / 2) * sd
        if rank >= 1:
            return rank, confidence
        return 1.0, 2 * distributions.normal_cdf((pairs / 2 - 0.5) / sd) - 1
    widest = _coverage(1, n, m)
    if widest < confidence:
        return 1.0, widest
    rank = 1
    while rank + 1 <= (pairs + 1) // 2 and _coverage(rank + 1, n, m) >= confidence:
        rank += 1
    above = _coverage(rank, n, m)
    below = _coverage(rank + 1, n, m) if rank + 1 <= (pairs + 1) // 2 else 0.0
    return rank + (above - confidence) / (above - below), confidence


def _count_at_most(a: np.ndarray, b: np.ndarray, d: float) -> int:
    """How many differences b_j - a_i are <= d (a and b sorted): for each b_j, the a_i >= b_j - d."""
    return int(a.size * b.size - np.searchsorted(a, b - d, side="left").sum())


def _select(a: np.ndarray, b: np.ndarray, k: int) -> float:
    """The k-th smallest difference b_j - a_i (1-based; a and b sorted), by bisection on its value."""
    low, high = float(b[0] - a[-1]), float(b[-1] - a[0])      # count(low) >= 1, count(high) = n*m
    if _count_at_most(a, b, low) >= k:
        return low
    while high - low > _RESOLUTION * max(1.0, abs(high)):
        middle = (low + high) / 2
        if middle in (low, high):
            break
        if _count_at_most(a, b, middle) >= k:
            high = middle
        else:
            low = middle
    return high


class _Differences:
    """The sorted differences b_j - a_i, read by rank: listed when few, selected when many."""

    def __init__(self, a: np.ndarray, b: np.ndarray):
        self.a, self.b = np.sort(a), np.sort(b)
        self.count = a.size * b.size
        self.listed = np.sort((self.b[None, :] - self.a[:, None]).ravel()) if self.count <= LISTED_DIFFERENCES else None

    def at(self, k: int) -> float:
        k = min(max(k, 1), self.count)
        return float(self.listed[k - 1]) if self.listed is not None else _select(self.a, self.b, k)

    def at_rank(self, rank: float) -> float:
        """The value at a fractional rank, interpolated between the two differences around it."""
        below = int(math.floor(rank))
        low = self.at(below)
        return low if rank == below else low + (rank - below) * (self.at(below + 1) - low)

    def median(self) -> float:
        return self.at_rank((self.count + 1) / 2)


def shift_interval(a, b, confidence: float = 0.95) -> tuple[float, tuple[float, float], float]:
    """(shift, (low, high), coverage): the Hodges-Lehmann estimate of how far b lies above a, and
    Moses' interval for it at the confidence (or, with too few values for it, the widest there is
    and the coverage that has)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.size == 0 or b.size == 0:
        raise ValueError("no samples")
    differences = _Differences(a, b)
    rank, coverage = interval_rank(a.size, b.size, confidence)
    return (differences.median(),
            (differences.at_rank(rank), differences.at_rank(differences.count + 1 - rank)), coverage)
