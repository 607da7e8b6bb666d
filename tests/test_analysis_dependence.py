"""The widening of a median's interval for values that drift together (engine/analysis/dependence.py).

Synthetic series only, seeded: the statistics, never a timing."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layertax.engine.analysis import analyze, dependence, stats

# Levels in an order with no drift: each batch of the sign series sums to about zero.
NO_DRIFT = (3, 8, 1, 10, 5, 6, 2, 9, 4, 7)


def test_a_series_whose_signs_alternate_is_never_narrowed():
    # Ten values alternating about their median: their own estimate is far below 1; it is taken
    # as 1 in the case's own tier, and the interval is never made narrower than the plain one.
    assert dependence._estimate([np.array(NO_DRIFT, dtype=float)])[0] < 0
    assert 1.0 <= dependence.variance_factor(NO_DRIFT) < dependence.PRIOR_FACTOR


def test_a_short_series_of_independent_values_is_widened_by_the_prior():
    # Twelve values cannot rule drift out: the prior (PRIOR_FACTOR, worth PRIOR_VALUES values)
    # widens them, by less than the prior itself.
    factor = dependence.variance_factor(np.random.default_rng(20).permutation(12))
    assert 1.0 < factor < dependence.PRIOR_FACTOR


def test_series_too_short_to_estimate_take_the_prior_alone():
    # Under MIN_ESTIMATED values a series' signs cannot tell drift from none: alternating signs
    # and a steady climb (the most and the least dependent orders) get the same factor.
    short = dependence.MIN_ESTIMATED - 2
    alternating, climbing = [1.0, 9.0] * (short // 2), [float(v) for v in range(short)]
    assert dependence.factors([alternating, climbing]) == [dependence.PRIOR_FACTOR] * 2
    assert dependence.factors([[5.0], climbing]) == [1.0, dependence.PRIOR_FACTOR]
    # From MIN_ESTIMATED on the series speak: the climb drifts, the alternation does not.
    long_alternating, long_climbing = [1.0, 9.0] * 6, [float(v) for v in range(12)]
    assert dependence.variance_factor(long_climbing) > dependence.PRIOR_FACTOR > dependence.variance_factor(
        long_alternating)


def test_too_few_values_have_nothing_to_widen():
    assert dependence.variance_factor([]) == 1.0 and dependence.variance_factor([3.0]) == 1.0
    assert dependence.factors([[1.0], [2.0, 1.0, 3.0]])[0] == 1.0
    assert dependence.factors([]) == []
    # All tied with the median: the series' own estimate is 1, blended with the prior twice.
    experiment = (12 + dependence.PRIOR_VALUES * dependence.PRIOR_FACTOR) / (12 + dependence.PRIOR_VALUES)
    assert dependence.variance_factor([4.0] * 12) == pytest.approx(
        (12 + dependence.EXPERIMENT_VALUES * experiment) / (12 + dependence.EXPERIMENT_VALUES))


def test_many_independent_series_wash_the_prior_out():
    rng = np.random.default_rng(21)
    series = [rng.standard_normal(200) for _ in range(20)]
    estimate, count = dependence._estimate(series)
    assert count == 4000 and abs(estimate - 1.0) < 0.1
    got = dependence.factors(series)
    assert min(got) >= 1.0 and np.median(got) < 1.1


def test_the_pooled_estimate_finds_a_wandering_series_true_factor():
    # AR(1) at 0.6: the signs' autocorrelation at lag k is (2/pi) asin(0.6^k), and the count
    # below the median varies about 2.8 times as much as for independent values at 40 values
    # (lags past the fifth add little). Thirty such series of 40 values pin it down.
    rng = np.random.default_rng(22)
    estimate, count = dependence._estimate([_ar1(rng, 40, 0.6) for _ in range(30)])
    assert count == 1200
    assert 2.2 < estimate < 3.4


def test_a_case_that_drifts_more_than_its_experiment_keeps_some_of_its_own_factor():
    rng = np.random.default_rng(23)
    steady = [rng.standard_normal(40) for _ in range(15)]
    stepped = np.concatenate([rng.normal(0, 0.2, 20), 3 + rng.normal(0, 0.2, 20)])
    got = dependence.factors([*steady, stepped])
    assert got[-1] > 1.5 * max(got[:-1])
    assert dependence.factors(steady)[0] < got[0]       # the stepped case raised its experiment's


def test_a_step_in_the_middle_is_seen_and_widens_the_interval():
    rng = np.random.default_rng(4)
    stepped = np.concatenate([10 + rng.normal(0, 0.2, 20), 12 + rng.normal(0, 0.2, 20)])
    shuffled = rng.permutation(stepped)       # the same values, the drift taken out of their order
    factor = dependence.variance_factor(stepped)
    assert factor > 4                         # all signs below, then all above: batches far from 0
    assert dependence.variance_factor(shuffled) < factor
    lo, hi, coverage = stats.median_ci(stepped, factor=factor)
    plain_lo, plain_hi, _ = stats.median_ci(stepped)
    assert lo < plain_lo and hi > plain_hi
    assert lo <= np.median(stepped) <= hi


def test_the_factor_of_a_climb_is_large_and_its_ties_have_no_side():
    # 16 values climbing: eight signs below, then eight above; every lag's signs agree.
    assert dependence._estimate([np.arange(16.0)])[0] > 4
    # Seventeen values: the middle one ties with the median (sign 0), and is left out of the
    # per-value variance rather than counted as a value that varies.
    assert dependence._estimate([np.arange(17.0)])[0] > 4


def test_even_min_max_short_of_95_percent_says_how_short():
    # Nine values in a climb: the factor wants more than [min, max] can give.
    lo, hi, coverage = stats.median_ci(range(9), factor=dependence.variance_factor(range(9)))
    assert (lo, hi) == (0.0, 8.0)
    assert coverage < 0.95
    summary = stats.median_summary(range(9))
    assert summary["ci_coverage"] < 0.95 and summary["ci_dependence"] > 1.0


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False), min_size=2, max_size=60),
       st.floats(min_value=1.0, max_value=50.0))
def test_the_widened_interval_is_never_narrower_and_always_holds_the_median(values, factor):
    lo, hi, coverage = stats.median_ci(values, factor=factor)
    plain_lo, plain_hi, plain_coverage = stats.median_ci(values)
    assert lo <= plain_lo and hi >= plain_hi
    assert lo <= float(np.median(values)) <= hi
    assert 0.0 <= coverage <= plain_coverage


def _ar1(rng, n, rho):
    y = np.zeros(n + 50)
    for i in range(1, y.size):
        y[i] = rho * y[i - 1] + rng.standard_normal()
    return y[50:]


def test_on_a_wandering_series_the_widening_restores_most_of_the_coverage():
    # AR(1), lag-1 correlation 0.6, 40 values (a default run's rounds), true median 0.
    # (bench/interval_coverage.py measures the same on its drift model, paired ratios.)
    rng = np.random.default_rng(11)
    trials = 400
    plain = widened = 0
    for _ in range(trials):
        y = _ar1(rng, 40, 0.6)
        lo, hi, _ = stats.median_ci(y)
        plain += lo <= 0 <= hi
        lo, hi, _ = stats.median_ci(y, factor=dependence.variance_factor(y))
        widened += lo <= 0 <= hi
    assert plain / trials < 0.82
    assert widened / trials > 0.85
    assert widened - plain > 0.08 * trials


def test_on_independent_values_the_widening_costs_little():
    rng = np.random.default_rng(12)
    ratios = []
    for _ in range(300):
        y = rng.standard_normal(40)
        lo, hi, _ = stats.median_ci(y)
        wlo, whi, _ = stats.median_ci(y, factor=dependence.variance_factor(y))
        ratios.append((whi - wlo) / (hi - lo))
    assert 1.0 <= np.mean(ratios) < 1.2


def test_a_case_and_its_ratio_are_widened_by_the_order_of_their_rounds():
    # A case that drifts up half-way through while its baseline stays put: the case's median
    # and its ratio are both widened, and the factor is kept in the result.
    rng = np.random.default_rng(6)
    samples = []
    for r in range(30):
        level = 100.0 if r < 15 else 108.0
        samples += [{"round": r, "ns": level + rng.normal(0, 0.5), "ops": 1} for _ in range(3)]
    base = [{"round": r, "ns": 50.0 + rng.normal(0, 0.25), "ops": 1} for r in range(30) for _ in range(3)]
    rng.shuffle(samples)                       # stored order must not matter: rounds are sorted
    exp = {"name": "x", "baseline": "base", "metric": None,
           "cases": [{"name": "base", "samples": base}, {"name": "case", "samples": samples}]}
    exp = analyze.analyzed(exp)
    st_ = exp["cases"][1]["stats"]
    assert st_["ci_dependence"] > 4 and st_["ratio"]["ci_dependence"] > 4
    round_medians = [float(np.median([s["ns"] for s in samples if s["round"] == r])) for r in range(30)]
    plain_lo, plain_hi, _ = stats.median_ci(round_medians)
    assert st_["ci95"][0] < plain_lo and st_["ci95"][1] > plain_hi
    assert any("moved together" in w for w in st_["warnings"])
    assert not any("moved together" in w for w in exp["cases"][0]["stats"]["warnings"])


def test_a_ratio_interval_and_a_p_value_widen_by_the_square_root_of_the_factor():
    # On a log scale each side of the interval moves sqrt(factor) times as far from the point.
    lo, hi = dependence.widen_ratio_interval(1.05, (1.05 / 1.02, 1.05 * 1.02), 4.0)
    assert lo == pytest.approx(1.05 / 1.02 ** 2) and hi == pytest.approx(1.05 * 1.02 ** 2)
    assert dependence.widen_ratio_interval(1.05, (1.0, 1.1), 1.0) == (1.0, 1.1)
    # p = 0.05 is z = 1.96; with four times the variance z = 0.98, p = 0.327.
    assert dependence.widen_p(0.05, 4.0) == pytest.approx(0.327, abs=0.001)
    assert dependence.widen_p(0.05, 1.0) == 0.05 and dependence.widen_p(1.0, 9.0) == 1.0


def _wandering(seed: int, n: int = 120, level: float = 100.0) -> list[float]:
    """A run's round values on a machine whose speed wanders (AR(1), 0.9) by about 3%."""
    rng = np.random.default_rng(seed)
    x, out = 0.0, []
    for _ in range(n):
        x = 0.9 * x + rng.normal(0, 0.013)
        out.append(level * (1 + x) * (1 + rng.normal(0, 0.003)))
    return out


def test_two_runs_of_a_wandering_machine_are_compared_with_the_drift_counted():
    # Two runs of the same code: the plain test calls most such pairs changed; the widened one
    # far fewer, and its interval always contains the plain one.
    plain, widened = 0, 0
    for seed in range(0, 40, 2):
        a, b = _wandering(seed), _wandering(seed + 1)
        ratio, ci, p, factor, _ = stats.series_ratio_test(a, b)
        _, plain_ci, plain_p, _, _ = stats.series_ratio_test(a, b, 1.0)
        assert factor >= 1.0 and p >= plain_p and ci[0] <= plain_ci[0] and ci[1] >= plain_ci[1]
        plain += stats.verdict(ratio, plain_ci, plain_p < 0.05, 0.0) != "no difference"
        widened += stats.verdict(ratio, ci, p < 0.05, 0.0) != "no difference"
    assert plain >= 8 and widened <= 3            # 11 and 2 of 20 with these seeds
    # A real change of 10% is still found through the drift.
    ratio, ci, p, _, _ = stats.series_ratio_test(_wandering(1), _wandering(2, level=110.0))
    assert stats.verdict(ratio, ci, p < 0.05, 0.02) == "slower"


def test_a_classic_counterpart_that_stopped_precise_has_its_own_rows_interval():
    """The classic table quotes a case's ratio: where the case stopped because it met the
    target, its interval is taken at the stricter level in its own row, and the classic table
    must quote that same interval, not a narrower one labelled alike."""
    rng = np.random.default_rng(8)
    base = [{"round": r, "ns": 50.0 * np.exp(rng.normal(0, 0.01)), "ops": 1} for r in range(12)]
    case = [{"round": r, "ns": 60.0 * np.exp(rng.normal(0, 0.01)), "ops": 1} for r in range(12)]
    classic = {"baseline": "then-base", "ratios": {"then-base": 1.0, "then-case": 2.0},
               "figures": [{"label": "then-base", "value": 1.0, "counterpart": "base", "why": "-"},
                           {"label": "then-case", "value": 2.0, "counterpart": "case", "why": "-"}]}
    exp = {"name": "x", "baseline": "base", "metric": None, "classic": classic,
           "cases": [{"name": "base", "samples": base}, {"name": "case", "samples": case}],
           "stopping": {"rule": {"precision": 0.02, "checkpoints": [8, 12]},
                        "cases": {"base": {"met": True, "rounds": 12, "precision": 0.01, "stopped": "max rounds"},
                                  "case": {"met": True, "rounds": 12, "precision": 0.01, "stopped": "precise"}}}}
    exp = analyze.analyzed(exp)
    row = next(c for c in exp["cases"] if c["name"] == "case")["stats"]["ratio"]
    quoted = exp["classic_now"][1]["now_ratio"]
    assert row["ci_level"] == stats.SEQUENTIAL_CONFIDENCE and quoted["ci95"] == row["ci95"]
    # A rule that keeps its own level (loadtime's launches) is read back at that level, in both tables.
    own = analyze.analyzed({**exp, "stopping": {**exp["stopping"], "rule": {**exp["stopping"]["rule"],
                                                                             "confidence": 0.96}}})
    own_row = next(c for c in own["cases"] if c["name"] == "case")["stats"]["ratio"]
    assert own_row["ci_level"] == 0.96 and own["classic_now"][1]["now_ratio"]["ci95"] == own_row["ci95"]
    assert own_row["ci95"][1] - own_row["ci95"][0] < row["ci95"][1] - row["ci95"][0]
    # Without the stop, both are the plain 95% interval, narrower.
    del exp["stopping"]
    plain = analyze.analyzed({k: v for k, v in exp.items() if k != "classic_now"})
    assert plain["classic_now"][1]["now_ratio"]["ci95"][1] - plain["classic_now"][1]["now_ratio"]["ci95"][0] < \
        quoted["ci95"][1] - quoted["ci95"][0]
