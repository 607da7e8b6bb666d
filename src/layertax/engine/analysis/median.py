"""The median of a short list of numbers, as numpy computes it (the middle value, or the mean
of the two middle values), without numpy's per-call overhead.

A run's analysis takes one median per round of every case (a burst of three samples): tens of
thousands for a large experiment. np.median spends about 50 µs a call on array conversion and
NaN checks, sorting three numbers takes about 1 µs; on encoding's recorded result that was
more than half of its analysis time. Long arrays and medians along an axis stay with numpy.
"""
from __future__ import annotations

from collections.abc import Iterable


def median(values: Iterable[float]) -> float:
    """The median of finite numbers; ValueError when there are none. Equal to
    float(np.median(values)) for finite values: the two middle values of an even count are
    averaged as (a + b) / 2, the way numpy's mean of two values is computed."""
    ordered = sorted(float(v) for v in values)
    n = len(ordered)
    if n == 0:
        raise ValueError("the median of no values")
    middle = n // 2
    return ordered[middle] if n % 2 else (ordered[middle - 1] + ordered[middle]) / 2
