"""The short-list median (engine/analysis/median.py) is numpy's median, value for value."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from layertax.engine.analysis.median import median

finite = st.floats(min_value=-1e12, max_value=1e12, allow_nan=False, allow_infinity=False)


@given(st.lists(finite, min_size=1, max_size=50))
def test_it_equals_numpys_median_exactly(values):
    assert median(values) == float(np.median(values))


@given(st.lists(st.integers(-10**6, 10**6), min_size=1, max_size=9))
def test_integers_and_ties_give_numpys_float(values):
    got = median(values)
    assert isinstance(got, float) and got == float(np.median(values))


def test_one_two_and_three_values():
    assert median([5]) == 5.0
    assert median([3, 1]) == 2.0
    assert median((9.0, 1.0, 4.0)) == 4.0
    assert median(v for v in [2.5, 2.5, 7.0, 1.0]) == 2.5    # any iterable, ties kept


def test_no_values_is_an_error_not_a_nan():
    with pytest.raises(ValueError):
        median([])
