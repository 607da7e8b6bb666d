"""The analysis's distribution functions and rank tests give what scipy.stats gives (they are
computed without loading it: engine/analysis/distributions.py says why), on samples with and
without ties, small (scipy's exact Mann-Whitney) and large (its normal approximation)."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from layertax.engine.analysis import distributions, rank_tests


@pytest.mark.parametrize("x", [-40.0, -8.5, -1.96, -0.3, 0.0, 0.7, 1.96, 6.0, 38.0])
def test_the_normal_functions_are_scipy_stats_norms(x):
    assert distributions.normal_cdf(x) == pytest.approx(stats.norm.cdf(x), rel=1e-14, abs=0)
    assert distributions.normal_sf(x) == pytest.approx(stats.norm.sf(x), rel=1e-14, abs=0)


@pytest.mark.parametrize("q", [1e-300, 1e-20, 1e-4, 0.025, 0.5, 0.9, 1 - 1e-12])
def test_the_normal_isf_is_scipy_stats_norms(q):
    assert distributions.normal_isf(q) == pytest.approx(stats.norm.isf(q), rel=1e-14)


def test_the_binomial_cdf_of_a_sign_test_is_scipy_stats_binoms():
    for n in [1, 2, 5, 6, 7, 12, 40, 99, 100, 1000, 12345]:
        k = np.arange(-1, n + 2)
        ours = np.array([distributions.binomial_half_cdf(int(j), n) for j in k])
        assert ours == pytest.approx(stats.binom.cdf(k, n, 0.5), rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("dof", [1, 2, 3, 9, 30])
def test_chi2_sf_and_t_ppf_are_scipy_stats(dof):
    for x in (0.0, 0.5, 3.0, 17.0, 120.0):
        assert distributions.chi2_sf(x, dof) == pytest.approx(stats.chi2.sf(x, dof), rel=1e-12, abs=1e-300)
    for q in (0.5, 0.9, 0.975, 0.999):
        assert distributions.t_ppf(q, dof) == pytest.approx(stats.t.ppf(q, dof), rel=1e-12)


# Values on a coarse grid tie often; drawn from floats they almost never do.
_coarse = st.lists(st.integers(0, 6).map(float), min_size=1, max_size=30)
_fine = st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=30)


@settings(max_examples=300, deadline=None)
@given(a=st.one_of(_coarse, _fine), b=st.one_of(_coarse, _fine))
def test_mann_whitney_p_is_scipy_stats_mannwhitneyu(a, b):
    expected = stats.mannwhitneyu(a, b, alternative="two-sided").pvalue
    ours = rank_tests.mann_whitney_p(a, b)
    if np.isnan(expected):      # every value the same: scipy's statistic is 0/0
        assert ours == 1.0
    else:
        assert ours == pytest.approx(expected, rel=1e-9, abs=1e-15)


def test_mann_whitney_p_takes_the_exact_distribution_for_small_untied_samples():
    a, b = [1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]        # every b above every a: U = 12 of 12
    assert rank_tests.mann_whitney_p(a, b) == pytest.approx(2 / 35)       # 2 of C(7, 3) orders
    assert stats.mannwhitneyu(a, b, method="exact").pvalue == pytest.approx(2 / 35)


@settings(max_examples=200, deadline=None)
@given(groups=st.lists(st.one_of(_coarse, _fine), min_size=2, max_size=6))
def test_kruskal_p_is_scipy_stats_kruskal(groups):
    with np.errstate(all="ignore"):
        expected = stats.kruskal(*groups).pvalue
    ours = rank_tests.kruskal_p(*groups)
    if np.isnan(expected):      # every value the same
        assert ours == 1.0
    else:
        assert ours == pytest.approx(expected, rel=1e-9, abs=1e-15)


def test_an_analysing_command_does_not_load_scipy_stats():
    """The point of the two modules: a command that analyses its samples loads scipy.special,
    not scipy.stats (over a second of a command's time)."""
    probe = ("import sys\n"
             "from layertax.engine.analysis import analyze, stats, level_shift, between_runs\n"
             "from layertax.elf import costmodel\n"
             "x = list(range(1, 200))\n"
             "stats.median_ci(x); stats.median_ci(x, factor=3.0)\n"
             "stats.series_ratio_test([1.0, 1.1, 1.2, 1.05] * 5, [1.3, 1.4, 1.2, 1.35] * 5)\n"
             "level_shift.level_shift([1.0] * 100 + [2.0 + i / 1000 for i in range(100)])\n"
             "between_runs.heterogeneity([(0.0, 0.1), (0.5, 0.1), (0.1, 0.2)])\n"
             "print(sorted(m for m in sys.modules if m.startswith('scipy.stats')))\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
