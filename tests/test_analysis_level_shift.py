"""The level-shift test on synthetic series whose truth is known."""
import numpy as np
import pytest

from layertax.engine.analysis import analyze, level_shift


def steady(rng, n=300, spread=0.05):
    return 600.0 * rng.lognormal(0.0, spread, n)


def test_a_stretch_of_slower_samples_is_found_with_its_size():
    rng = np.random.default_rng(7)
    x = steady(rng)
    x[90:210] *= 1.30          # 120 of 300 samples, 30% slower, as on a busy host
    shift = level_shift.level_shift(x)
    assert shift is not None
    assert shift["windows"] == 10
    assert shift["p_value"] < level_shift.ALPHA
    assert shift["effect"] == pytest.approx(0.30, abs=0.06)
    assert shift["high"] > shift["low"]
    assert f"up to {shift['effect']:.0%}" in level_shift.warning(shift)


def test_it_names_where_the_slow_and_fast_stretches_were():
    # a start-of-run transient, as hyperfine's runs show: the first 30 of 300 slower.
    rng = np.random.default_rng(13)
    x = steady(rng, spread=0.02)
    x[:30] *= 1.2
    x[150:180] *= 0.85
    shift = level_shift.level_shift(x)
    assert shift["slowest"] == [1, 30] and shift["fastest"] == [151, 180] and shift["of"] == 300
    assert "slowest in rounds 1-30 of 300, fastest in 151-180" in level_shift.warning(shift)


def test_uneven_windows_cover_every_position_once():
    rng = np.random.default_rng(17)
    x = steady(rng, n=305, spread=0.02)
    x[-30:] *= 1.3             # array_split gives the first 5 windows 31 values, the last 5 30
    shift = level_shift.level_shift(x)
    assert shift["slowest"] == [276, 305] and shift["of"] == 305


def test_a_shift_saved_without_its_windows_still_warns():
    old = {"windows": 10, "p_value": 1e-5, "effect": 0.2, "low": 1.0, "high": 1.2}
    assert "up to 20%" in level_shift.warning(old) and "rounds" not in level_shift.warning(old)


def test_steady_samples_raise_it_about_never():
    rng = np.random.default_rng(11)
    found = sum(level_shift.level_shift(steady(rng)) is not None for _ in range(500))
    assert found <= 2          # both conditions at once: at most ALPHA's share, here ~0


def test_a_small_drift_is_not_called_a_shift():
    # 5% between the first and last window is significant with 300 samples, but small:
    # real runs drift that much, and the spread already shows it.
    rng = np.random.default_rng(3)
    x = steady(rng, spread=0.01) * np.linspace(1.0, 1.05, 300)
    assert level_shift.level_shift(x) is None


def test_a_large_spread_without_a_shift_is_not_called_one():
    rng = np.random.default_rng(5)
    assert level_shift.level_shift(steady(rng, spread=0.4)) is None


@pytest.mark.parametrize("values", [[], [1.0] * 29, [1.0] * 300, [None] * 100])
def test_too_few_or_constant_samples_give_none(values):
    assert level_shift.level_shift(values) is None


def test_case_stats_reports_the_shift_and_warns():
    rng = np.random.default_rng(9)
    x = steady(rng)
    x[:100] *= 1.4
    case = {"samples": [{"round": i, "exit_ns": float(v)} for i, v in enumerate(x)]}
    summary = analyze.case_stats(case, None, "exit_ns")
    assert summary["level_shift"]["effect"] > 0.3
    assert any(w.startswith("times changed level") for w in summary["warnings"])


def test_case_stats_uses_the_order_of_rounds_not_of_the_list():
    # The same values listed shuffled but labelled with their rounds: the stretch is found.
    rng = np.random.default_rng(13)
    x = steady(rng)
    x[200:] *= 1.3
    samples = [{"round": i, "exit_ns": float(v)} for i, v in enumerate(x)]
    rng.shuffle(samples)
    summary = analyze.case_stats({"samples": samples}, None, "exit_ns")
    assert summary["level_shift"] is not None
    steady_case = {"samples": [{"round": i, "exit_ns": float(v)} for i, v in enumerate(steady(rng))]}
    assert analyze.case_stats(steady_case, None, "exit_ns")["level_shift"] is None
