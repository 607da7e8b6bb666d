"""Statistics on synthetic samples whose truth is known."""
import numpy as np
import pytest

from layertax.engine.analysis import dependence, shift, stats
from scipy import stats as sps


def test_median_and_spread_of_known_samples():
    s = stats.summarize([1, 2, 3, 4, 100])
    assert s["median"] == 3
    assert s["min"] == 1 and s["max"] == 100
    assert s["n"] == 5
    assert s["iqr"] == pytest.approx(2.0)  # percentiles 25% = 2, 75% = 4
    assert s["spread"] == pytest.approx(2 / 3)


def test_median_ci_interpolates_between_the_ranks_that_bracket_95_percent():
    # For n = 30 the pair [x(10), x(21)] covers 95.7% and [x(11), x(20)] 90.1%: the 95%
    # interval lies between them, near the first (Hettmansperger-Sheather's lambda: 0.229).
    x = np.arange(1, 31)
    lo, hi, coverage = stats.median_ci(x)
    assert lo == pytest.approx(10.2287, abs=1e-3) and hi == pytest.approx(31 - 10.2287, abs=1e-3)
    assert coverage == 0.95
    # Eight values: the plain pair is [min, max] (99.2%); the interpolated one is inside it.
    lo, hi, _ = stats.median_ci(np.arange(1, 9))
    assert 1 < lo < 2 and 7 < hi < 8


@pytest.mark.parametrize("n, achieved", [(2, 0.5), (3, 0.75), (4, 0.875), (5, 0.9375)])
def test_median_ci_of_two_to_five_values_is_their_range_with_what_it_covers(n, achieved):
    lo, hi, coverage = stats.median_ci(np.arange(n, 0, -1))
    assert (lo, hi) == (1, n) and coverage == pytest.approx(achieved)


def test_median_ci_of_one_value_or_of_ties_is_that_value():
    assert stats.median_ci([4.0]) == (4.0, 4.0, 0.0)
    assert stats.median_ci([2.5] * 12)[:2] == (2.5, 2.5)
    lo, hi, _ = stats.median_ci([1, 2, 2, 2, 2, 2, 2, 2, 2, 3])
    assert lo == hi == 2


def test_a_dependence_factor_widens_by_a_fraction_of_a_rank_not_a_whole_one():
    x = np.arange(1, 31)
    lo1, _, _ = stats.median_ci(x, factor=1.0)
    lo2, _, _ = stats.median_ci(x, factor=1.1)
    assert lo1 - 1 < lo2 < lo1   # the old floor() dropped a whole rank for any factor above 1
    assert lo1 - lo2 == pytest.approx((15.5 - lo1) * (1.1 ** 0.5 - 1), rel=1e-6)


@pytest.mark.parametrize("n", [6, 8, 12, 20])
def test_median_ci_covers_95_percent_at_small_n(n):
    """Labelled 95%, it covers 95%: within 93-97% over 4,000 lognormal draws (the plain pair
    covered 98-99% at these sizes)."""
    rng = np.random.default_rng(99 + n)
    held = [lo <= 1.0 <= hi for lo, hi, _ in (stats.median_ci(rng.lognormal(0, 0.3, n)) for _ in range(4000))]
    assert 0.93 <= np.mean(held) <= 0.97


def test_a_case_stopped_by_its_precision_reports_the_stricter_interval_labelled_95():
    ratios = list(np.random.default_rng(3).lognormal(0, 0.02, 16))
    plain = stats.ratio_summary(ratios)
    strict = stats.ratio_summary(ratios, stats.SEQUENTIAL_CONFIDENCE)
    assert strict["ci95"][0] < plain["ci95"][0] and strict["ci95"][1] > plain["ci95"][1]
    assert strict["ci_level"] == stats.SEQUENTIAL_CONFIDENCE and strict["ci_coverage"] == 0.95 and "ci_level" not in plain


def test_median_ci_says_when_too_few_samples_for_95():
    lo, hi, coverage = stats.median_ci([5, 1, 3])
    assert (lo, hi) == (1, 5)
    assert coverage < 0.95
    s = stats.summarize([5, 1, 3])
    assert any("not 95%" in w for w in stats.noise_warnings(s))


@pytest.mark.parametrize("n", [10, 30, 60])
def test_median_ci_covers_the_true_median_at_least_95_percent(n):
    rng = np.random.default_rng(1234 + n)
    true_median = np.exp(0.0)  # lognormal(0, 0.3): skewed like timings, median exactly 1
    trials = 3000
    covered = 0
    for _ in range(trials):
        lo, hi, _ = stats.median_ci(rng.lognormal(0.0, 0.3, n))
        covered += lo <= true_median <= hi
    assert 0.93 <= covered / trials <= 0.97


def test_paired_ratios_use_only_rounds_both_ran():
    case = {0: 20.0, 1: 30.0, 2: 44.0}
    base = {0: 10.0, 2: 11.0}
    assert stats.paired_ratios(case, base) == [2.0, 4.0]


def test_ratio_summary_of_constant_ratios_is_exact():
    r = stats.ratio_summary([1.5] * 12)
    assert r["median"] == 1.5 and r["ci95"] == [1.5, 1.5] and r["rounds"] == 12
    assert stats.ratio_summary([]) is None


def test_noise_warnings_fire_on_wide_spread_and_disturbance_only():
    quiet = stats.summarize(np.linspace(99, 101, 40))
    assert stats.noise_warnings(quiet, disturbed_share=0.9, disturbed_slowdown=0.0) == []
    noisy = stats.summarize(np.linspace(50, 150, 40))
    warnings = stats.noise_warnings(noisy, disturbed_share=0.5, disturbed_slowdown=0.1)
    assert any("uncertain" in w for w in warnings)
    assert any("spread" in w for w in warnings)
    assert any("preempted" in w for w in warnings)


def test_disturbance_compares_preempted_samples_with_the_rest():
    share, slowdown = stats.disturbance([100, 100, 100, 110, 110], [False, False, False, True, True])
    assert share == pytest.approx(0.4) and slowdown == pytest.approx(0.10)
    assert stats.disturbance([1, 2], [True, True]) == (1.0, None)
    assert stats.disturbance([], []) == (None, None)


def test_a_sample_that_says_whether_it_was_preempted_is_believed_over_its_switches():
    from layertax.engine.analysis import analyze
    # Launches: every child has an involuntary switch (the timer's vfork wake-up), so their
    # own "preempted" (from the run-queue wait) decides; None is unknown and left out.
    launches = [{"round": r, "main_ns": 100 + 20 * (r % 5 == 0), "csw_invol": 1, "preempted": r % 5 == 0}
                for r in range(20)]
    got = analyze.case_stats({"samples": launches}, None, "main_ns")
    assert got["disturbed_share"] == 0.2 and got["disturbed_slowdown"] == pytest.approx(0.2)
    unknown = [{**s, "preempted": None} for s in launches]
    got = analyze.case_stats({"samples": unknown}, None, "main_ns")
    assert got["disturbed_share"] is None and got["disturbed_slowdown"] is None
    # A kernel's samples carry no such field: an involuntary switch is a preemption.
    kernel = [{"round": r, "ns": 1000 + 100 * (r < 5), "ops": 10, "csw_invol": int(r < 5)} for r in range(20)]
    got = analyze.case_stats({"samples": kernel}, None)
    assert got["disturbed_share"] == 0.25 and got["disturbed_slowdown"] == pytest.approx(0.1)
    assert analyze.case_stats({"samples": [{"round": 0, "ns": 5, "ops": 1}]}, None)["disturbed_share"] is None


def _judged(a, b, threshold: float = stats.DEFAULT_THRESHOLD) -> tuple[str, float]:
    """compare's verdict on two series of independent values (no drift factor), and its B/A."""
    ratio, ci, p, _, _ = stats.series_ratio_test(a, b, 1.0)
    return stats.verdict(ratio, ci, p < 0.05, threshold), ratio


def test_aa_comparison_shows_no_difference():
    rng = np.random.default_rng(7)
    verdicts = []
    for _ in range(100):
        a = rng.lognormal(np.log(1000), 0.1, 30)
        b = rng.lognormal(np.log(1000), 0.1, 30)
        verdicts.append(_judged(a, b)[0])
    # Same distribution: at most a few false alarms in 100, and identical samples never.
    assert verdicts.count("no difference") >= 95
    same = rng.lognormal(np.log(1000), 0.1, 30)
    assert _judged(same, same) == ("no difference", 1.0)


def test_comparison_detects_a_real_shift_and_respects_the_noise_band():
    rng = np.random.default_rng(11)
    a = rng.normal(1000, 10, 30)
    assert _judged(a, a * 1.10)[0] == "slower"
    assert _judged(a, a * 0.90)[0] == "faster"
    # A 1% shift is real here (tiny noise) but inside the 2% band: no difference. Every
    # difference of logs is the shift's plus a's own, so the estimate is the shift itself.
    verdict, ratio = _judged(a, a * 1.01)
    assert verdict == "no difference" and ratio == pytest.approx(1.01, rel=1e-6)


def test_the_ratio_interval_is_widened_in_ranks_and_excludes_1_where_the_widened_test_rejects():
    rng = np.random.default_rng(3)
    a = rng.normal(100, 5, 40)
    b = rng.normal(120, 5, 40)
    ratio, (lo, hi), _, factor, coverage = stats.series_ratio_test(a, b, 1.0)
    assert lo < ratio < hi and 1.1 < lo and hi < 1.3 and factor == 1.0 and coverage == 0.95
    # A factor of 4: Moses' interval at the confidence whose normal quantile is twice 95%'s
    # (99.99%), the same ranks shift.py takes at that confidence.
    ratio_w, (lo_w, hi_w), _, factor_w, coverage_w = stats.series_ratio_test(a, b, 4.0)
    assert factor_w == 4.0 and ratio_w == ratio and coverage_w == 0.95
    _, (low, high), _ = shift.shift_interval(np.log(a), np.log(b), 2 * sps.norm.cdf(2 * 1.959964) - 1)
    assert (lo_w, hi_w) == pytest.approx((np.exp(low), np.exp(high))) and lo_w < lo and hi_w > hi
    # Interval and test agree at every factor: a shift of 4% in noise of 5%.
    close = rng.normal(104, 5, 40)
    for f in (1.0, 1.5, 2.0, 3.0, 5.0):
        _, (lo_f, hi_f), p, _, _ = stats.series_ratio_test(a, close, f)
        assert (lo_f > 1 or hi_f < 1) == (p < 0.05), (f, lo_f, hi_f, p)


def test_too_few_rounds_for_a_widened_interval_say_what_they_cover():
    """Three rounds a side: the widest interval covers 90% of independent rounds, less with drift."""
    a, b = [1.0, 1.1, 1.2], [1.05, 1.15, 1.25]
    _, ci, _, _, plain = stats.series_ratio_test(a, b, 1.0)
    _, ci_w, _, _, widened = stats.series_ratio_test(a, b, 2.0)
    assert plain == pytest.approx(0.9) and widened < plain and ci == ci_w


def test_round_summary_treats_each_round_as_one_replicate():
    # Ten rounds, each of three identical samples: the interval is that of the ten
    # round medians, not of thirty pooled (and falsely independent) samples. In an order
    # with no drift (1..10 in turn would be one: see test_analysis_dependence.py).
    rounds = [[float(v)] * 3 for v in (3, 8, 1, 10, 5, 6, 2, 9, 4, 7)]
    s = stats.summarize_rounds(rounds)
    assert s["n"] == 30 and s["rounds"] == 10
    assert s["median"] == 5.5
    lo, hi, coverage = stats.median_ci(range(1, 11), factor=dependence.variance_factor([3, 8, 1, 10, 5, 6, 2, 9, 4, 7]))
    assert s["ci95"] == [lo, hi] and 2 < lo < 3 and 8 < hi < 9 and s["ci_coverage"] == round(coverage, 4)
    assert s["ci_dependence"] == round(dependence.variance_factor([3, 8, 1, 10, 5, 6, 2, 9, 4, 7]), 3)
    assert s["min"] == 1.0 and s["max"] == 10.0


def test_round_summary_interval_is_wider_than_a_pooled_one_when_rounds_differ():
    rng = np.random.default_rng(5)
    # Each round has its own level (as each kernel process does), plus small jitter.
    rounds = [list(level + rng.normal(0, 1, 5)) for level in rng.normal(100, 10, 12)]
    pooled = stats.summarize([v for r in rounds for v in r])
    by_round = stats.summarize_rounds(rounds)
    width = lambda s: s["ci95"][1] - s["ci95"][0]
    assert width(by_round) > width(pooled)
