"""compare's drift factor for B/A (rank_dependence.py), and the interval it widens, on synthetic
rounds."""
import math

import numpy as np
import pytest

from layertax.engine.analysis import rank_dependence, stats


def _drifting(rng, n: int, phi: float = 0.8) -> np.ndarray:
    x = np.empty(n)
    x[0] = rng.normal()
    for i in range(1, n):
        x[i] = phi * x[i - 1] + rng.normal() * math.sqrt(1 - phi * phi)
    return x


def test_ranks_are_centred_and_ties_share_their_mean_rank():
    ranks = rank_dependence._ranks(np.array([3.0, 1.0, 2.0, 2.0]))
    assert list(ranks) == [1.5, -1.5, 0.0, 0.0] and ranks.sum() == 0


def test_the_correction_is_exact_for_independent_rounds():
    """Independent rounds' rank autocorrelations, measured about their own centre, average
    -1/(n-1) at every lag: that measures a factor of exactly 1 (the shortfall has nothing to scale)."""
    for n in (8, 16, 40):
        reach = 3
        assert rank_dependence._corrected(np.full(reach, -1 / (n - 1)), n) == pytest.approx(1.0)


def test_independent_rounds_estimate_one_and_drifting_rounds_more():
    rng = np.random.default_rng(5)
    for n in (8, 16, 40):
        independent = [rank_dependence._estimate([rng.normal(size=n) for _ in range(20)])[0] for _ in range(300)]
        drifting = [rank_dependence._estimate([_drifting(rng, n) for _ in range(20)])[0] for _ in range(300)]
        assert abs(np.mean(independent) - 1.0) < 0.06, (n, np.mean(independent))
        assert np.mean(drifting) > 1.5, (n, np.mean(drifting))


def test_short_runs_take_the_one_factor_and_a_flat_series_has_nothing_to_widen():
    rng = np.random.default_rng(1)
    assert rank_dependence.factors([rng.normal(size=6)] * 3, [rng.normal(size=7)] * 3) == \
        [rank_dependence.SHORT_FACTOR] * 3
    assert rank_dependence.factors([], []) == []
    assert rank_dependence._estimate([np.ones(12)]) == (1.0, 12)
    assert rank_dependence._estimate([np.ones(2)]) is None


def test_a_case_is_shrunk_towards_its_experiment_and_never_below_one():
    rng = np.random.default_rng(2)
    a = [rng.normal(size=30) for _ in range(5)]
    b = [rng.normal(size=30) for _ in range(5)]
    a[0] = np.sort(a[0])                 # one case stepped steadily through run A
    alternating = np.tile([0.0, 1.0], 15)
    a[1], b[1] = alternating, alternating[::-1].copy()
    got = rank_dependence.factors(a, b)
    assert all(f >= 1.0 for f in got)
    assert got[0] == max(got) and got[0] > 1.5
    assert got[1] == pytest.approx(min(got))   # alternating rounds do not pull below the experiment


def test_the_interval_covers_95_percent_of_independent_rounds_at_a_runs_round_counts():
    """Two runs of 10 cases, 8 and 16 independent rounds each, 200 experiments: B/A's interval,
    its factor estimated as compare does, holds the truth (1) in 93-98.5% of the cases (a binomial
    of 2,000 at 95-96.5% lies well inside)."""
    rng = np.random.default_rng(11)
    for n in (8, 16):
        held = total = 0
        for _ in range(200):
            a = [np.exp(rng.normal(0, 0.05, n)) for _ in range(10)]
            b = [np.exp(rng.normal(0, 0.05, n)) for _ in range(10)]
            for x, y, f in zip(a, b, rank_dependence.factors(a, b)):
                _, (low, high), _, _, _ = stats.series_ratio_test(x, y, f)
                held += low <= 1.0 <= high
                total += 1
        assert 0.93 <= held / total <= 0.985, (n, held / total)
