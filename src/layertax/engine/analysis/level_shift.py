"""Whether a case's times changed level while it ran: a stretch of slower (or faster)
samples, rather than one steady spread.

On a shared virtual machine a CPU can run slower for tens to hundreds of milliseconds
(launches and a memory loop timed on the same CPU slow down together, for tens to hundreds
of launches at a time). Such a stretch widens the spread and moves the median,
and nothing in the summary says that the figure mixes two states of the machine. This test
says so.

The samples, in the order they were taken, are cut into consecutive windows; a
Kruskal-Wallis test asks whether the windows come from one distribution. Real runs are
never perfectly stationary (a drift of 2-7% between windows is common and significant with
300 samples), so a shift is reported only when it is also large: the slowest window's
median more than EFFECT above the fastest's.
"""
from __future__ import annotations

import numpy as np

from layertax.engine.analysis import rank_tests

WINDOWS = 10
MIN_PER_WINDOW = 10
ALPHA = 1e-3
EFFECT = 0.10


def level_shift(values_in_order) -> dict | None:
    """{"windows", "p_value", "effect", "low", "high", "slowest", "fastest", "of"} when the
    windows' medians differ by more than EFFECT and the test rejects one distribution at
    ALPHA; None when they do not, or when there are too few samples to cut into 3 windows of
    MIN_PER_WINDOW. "slowest" and "fastest" are those windows' [first, last] positions in
    the run (1-based, of "of" values), so a reader can tell a start-up transient from a
    stretch in the middle."""
    x = np.asarray([v for v in values_in_order if v is not None], dtype=float)
    windows = min(WINDOWS, x.size // MIN_PER_WINDOW)
    if windows < 3:
        return None
    parts = np.array_split(x, windows)
    medians = [float(np.median(p)) for p in parts]
    low, high = min(medians), max(medians)
    if low <= 0 or high / low - 1 <= EFFECT:
        return None
    p_value = rank_tests.kruskal_p(*parts)
    if p_value >= ALPHA:
        return None
    bounds, first = [], 1
    for part in parts:
        bounds.append([first, first + part.size - 1])
        first += part.size
    return {"windows": windows, "p_value": p_value, "effect": high / low - 1, "low": low, "high": high,
            "slowest": bounds[medians.index(high)], "fastest": bounds[medians.index(low)], "of": int(x.size)}


def warning(shift: dict) -> str:
    """One line for the case's warnings, naming where the slowest and fastest stretches were
    (results saved before they were kept have neither, and get the line without them)."""
    where = ""
    if "slowest" in shift:
        (s0, s1), (f0, f1) = shift["slowest"], shift["fastest"]
        where = f"; slowest in rounds {s0}-{s1} of {shift['of']}, fastest in {f0}-{f1}"
    return (f"times changed level during the run (the medians of {shift['windows']} successive windows differ "
            f"by up to {shift['effect']:.0%}, Kruskal-Wallis p={shift['p_value']:.0e}{where}): the figure mixes "
            "slower and faster stretches; re-run to see whether it holds")
