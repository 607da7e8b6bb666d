"""A round's median is taken with the standard library's statistics.median (analyze.py), not
np.median, which costs about 50 µs a call on a burst of three: the two must agree value for
value, or a saved figure would move with the change."""
from __future__ import annotations

import statistics

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from layertax.engine.analysis import analyze

finite = st.floats(min_value=-1e12, max_value=1e12, allow_nan=False, allow_infinity=False)


@given(st.lists(finite, min_size=1, max_size=50))
def test_the_standard_librarys_median_is_numpys_exactly(values):
    assert float(statistics.median(values)) == float(np.median(values))


@given(st.dictionaries(st.integers(0, 40), st.lists(st.integers(1, 10**9) | finite, min_size=1, max_size=7),
                       min_size=1, max_size=10))
def test_round_values_are_floats_equal_to_numpys_medians(rounds):
    """Integer nanoseconds (a launch's) and ties included: the result is a float, as numpy's was."""
    case = {"samples": [{"round": r, "main_ns": v} for r, vs in rounds.items() for v in vs]}
    got = analyze.round_values(case, "main_ns")
    assert set(got) == set(rounds)
    for r, vs in rounds.items():
        assert isinstance(got[r], float) and got[r] == float(np.median(vs))
