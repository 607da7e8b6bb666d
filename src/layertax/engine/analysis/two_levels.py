"""Whether a case's ratio sits at two levels: its rounds fall into two groups apart by more
than the precision target, each holding a fair share of them.

The median of such rounds lies in whichever group holds more than half, so it follows the
shares, and a run whose shares fall the other way has its median at the other level: the
ratio moves by the gap between runs while each run's interval can be narrow (it describes
that run's rounds). glibc's random_r is one: on the 2-vCPU EPYC VM its rounds sit at two
levels 7.5% apart, about half at each (docs/method/statistics.md). The interval cannot say
this; the mark does.

Unimodality is judged by Hartigan's dip test (the `diptest` package): it measures how far the
values' distribution is from the nearest unimodal one, so a long tail of slow rounds (a busy
moment) is not two levels, where a fitted two-component mixture would call it one.
"""
from __future__ import annotations

import numpy as np

# Below this many rounds the dip test rarely rejects even two clean levels.
MIN_ROUNDS = 12
# The dip test's level. Under one level it rejects less often than this (it is calibrated
# against the uniform, the least favourable unimodal case): tests/test_two_levels.py.
SIGNIFICANCE = 0.05
# Each level holds more than this share of the rounds: a few slow rounds are a tail, and a
# level that holds a fifth of them moves the median only when the shares change a lot.
MIN_SHARE = 0.2


def two_levels(ratios, min_gap: float) -> dict | None:
    """The two levels of a case's per-round ratios, or None where they sit at one (or are too
    few to tell): {"lower", "upper": each level's median ratio, "upper_share": the share of the
    rounds at the upper, "gap": upper / lower - 1, "p": the dip test's p-value}. min_gap: the
    least gap that counts (the precision target: a smaller move is within it)."""
    values = np.sort(np.log(np.asarray([r for r in ratios if r > 0], dtype=float)))
    n = len(values)
    if n < MIN_ROUNDS:
        return None
    import diptest   # here, not at the top: ~0.15 s to load, and most commands never need it
    _, p = diptest.diptest(values, sort_x=False)
    if p >= SIGNIFICANCE:
        return None
    least = int(np.ceil(MIN_SHARE * n))
    k = _split(values, least)
    if k in (least, n - least):
        return None      # the best split wants a smaller group than a fifth: a tail, not a level
    lower, upper = float(np.exp(np.median(values[:k]))), float(np.exp(np.median(values[k:])))
    gap = upper / lower - 1
    if gap < min_gap:
        return None
    return {"lower": lower, "upper": upper, "upper_share": (n - k) / n, "gap": gap, "p": float(p)}


def _split(values: np.ndarray, least: int) -> int:
    """Where sorted values divide into two groups of at least `least` each with the least sum
    of squares within them (two-means in one dimension): the count of the lower group."""
    n = len(values)
    k = np.arange(least, n - least + 1)
    cumsum, cumsq = np.cumsum(values), np.cumsum(values ** 2)
    low = cumsq[k - 1] - cumsum[k - 1] ** 2 / k
    high = (cumsq[-1] - cumsq[k - 1]) - (cumsum[-1] - cumsum[k - 1]) ** 2 / (n - k)
    return int(k[np.argmin(low + high)])


def pair(levels: dict) -> str:
    """The two levels as "1.96x and 2.11x": three digits of the lower, as many decimals for both."""
    decimals = 2 if levels["lower"] < 10 else 1 if levels["lower"] < 100 else 0
    return f"{levels['lower']:.{decimals}f}x and {levels['upper']:.{decimals}f}x"


def warning(levels: dict) -> str:
    """The ratio's two levels in a sentence (a case's warnings)."""
    p = "p < 0.001" if levels["p"] < 0.001 else f"p = {levels['p']:.2g}"
    return (f"its ratio sits at two levels, {pair(levels)}, "
            f"{100 * levels['upper_share']:.0f}% of the rounds at the upper (Hartigan's dip test {p}): the "
            f"median follows their shares and moves by up to "
            f"{100 * levels['gap']:.1f}% between runs")
