"""The Hodges-Lehmann shift and Moses' interval (engine/analysis/shift.py) on synthetic samples."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from layertax.engine.analysis import shift


def _u_cdf_by_enumeration(n: int, m: int) -> list[float]:
    """P(U <= u) by listing every way to place n values of A among n + m (no ties)."""
    counts = [0] * (n * m + 1)
    for positions in itertools.combinations(range(n + m), n):
        # U: the pairs (a, b) with b below a; A's value at position p has p - (its index) b's below.
        counts[sum(p - i for i, p in enumerate(positions))] += 1
    total = math.comb(n + m, n)
    return list(np.cumsum(counts) / total)


@pytest.mark.parametrize("n, m", [(1, 1), (2, 3), (4, 5), (5, 4), (6, 6)])
def test_the_u_distribution_is_the_count_of_every_arrangement(n, m):
    assert shift.u_cdf(n, m) == pytest.approx(_u_cdf_by_enumeration(n, m), abs=1e-12)


def test_the_ranks_are_the_tables_critical_values_interpolated():
    # Two-sided 5% critical values of U (reject at U <= c): 5 for 6 and 6, 22 for 8 and 12; the
    # interval's rank is c + 1, moved towards c + 2 by the share of coverage above 95%.
    for n, m, critical in ((6, 6, 5), (8, 12, 22)):
        rank, coverage = shift.interval_rank(n, m, 0.95)
        assert critical + 1 <= rank < critical + 2 and coverage == 0.95


def test_the_normal_approximation_is_within_half_a_rank_of_the_exact_count(monkeypatch):
    exact = shift.interval_rank(50, 50, 0.95)[0]
    monkeypatch.setattr(shift, "EXACT_PAIRS", 0)
    assert shift.interval_rank(50, 50, 0.95)[0] == pytest.approx(exact, abs=0.5)


@pytest.mark.parametrize("n, m", [(4, 4), (5, 7), (8, 8), (12, 16), (40, 40)])
def test_the_interval_covers_95_percent_of_true_shifts(n, m):
    """Heavy-tailed values (Student t, 3 degrees of freedom), B shifted by 0.3: the interval holds
    the shift in 93-97% of 2,000 draws at every size (its standard error: 0.5 points)."""
    rng = np.random.default_rng(n * 100 + m)
    held = 0
    for _ in range(2000):
        a, b = rng.standard_t(3, n), rng.standard_t(3, m) + 0.3
        _, (low, high), coverage = shift.shift_interval(a, b)
        held += low <= 0.3 <= high
        assert coverage == 0.95
    assert 0.93 <= held / 2000 <= 0.97


@pytest.mark.parametrize("n, m, expected", [(1, 1, 0.0), (1, 3, 0.5), (2, 2, 1 - 2 / 6), (3, 3, 1 - 2 / 20)])
def test_too_few_values_give_the_widest_interval_and_say_what_it_covers(n, m, expected):
    a, b = np.arange(n, dtype=float), np.arange(m, dtype=float) + 10
    estimate, (low, high), coverage = shift.shift_interval(a, b)
    assert (low, high) == (b.min() - a.max(), b.max() - a.min()) and coverage == pytest.approx(expected)
    assert low <= estimate <= high


def test_tied_values_give_a_point_and_no_shift():
    estimate, interval, _ = shift.shift_interval([2.0] * 8, [2.0] * 8)
    assert estimate == 0.0 and interval == (0.0, 0.0)
    with pytest.raises(ValueError):
        shift.shift_interval([], [1.0])


def test_many_differences_are_selected_to_the_same_values_as_listed(monkeypatch):
    """Ties too (integer values): the bisection finds each rank's difference, not a value between."""
    rng = np.random.default_rng(2)
    for a, b in ((rng.normal(0, 1, 300), rng.normal(0.2, 1, 250)),
                 (rng.integers(0, 20, 90).astype(float), rng.integers(3, 25, 70).astype(float))):
        listed = shift.shift_interval(a, b)
        monkeypatch.setattr(shift, "LISTED_DIFFERENCES", 0)
        selected = shift.shift_interval(a, b)
        monkeypatch.undo()
        assert selected[0] == pytest.approx(listed[0], abs=1e-9)
        assert selected[1] == pytest.approx(listed[1], abs=1e-9)
