"""The noise probe: its spread and forecast on synthetic pairs, the warning only where the forecast
is far from the target, and one real probe (its structure, never its time)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from layertax.engine.analysis import dependence
from layertax.engine.measure import noise_probe


def test_the_spread_is_the_robust_sd_of_the_pairs_log_ratios():
    rng = np.random.default_rng(7)
    logs = list(rng.normal(0, 0.05, 4001))
    assert noise_probe.spread(logs) == pytest.approx(0.05, rel=0.05)
    assert noise_probe.spread([0.01]) == 0.0
    # One wild pair does not move it.
    assert noise_probe.spread([0.0, 0.01, -0.01, 0.02, -0.02, 3.0]) < 0.05


def test_the_forecast_narrows_as_the_square_root_of_the_rounds():
    assert noise_probe.reachable(0.04, 36) == pytest.approx(noise_probe.reachable(0.04, 9) / 2)
    # The standard error of a median (sqrt(pi/2) sigma / sqrt(n)), widened as the interval will be
    # by the drift a shared VM's rounds usually show.
    widened = math.sqrt(dependence.PRIOR_FACTOR)
    assert noise_probe.reachable(0.04, 16) == pytest.approx(1.96 * math.sqrt(math.pi / 2) * 0.04 / 4 * widened, rel=1e-3)


def test_the_sentence_warns_only_when_the_forecast_is_far_from_the_target():
    quiet = {"spread": 0.03, "seconds": 0.6, "pairs": 12}
    noisy = {"spread": 0.30, "seconds": 0.6, "pairs": 12}
    assert "noisy now" not in noise_probe.forecast(quiet, 16, 0.02)
    said = noise_probe.forecast(noisy, 16, 0.02)
    assert said.startswith("noise probe (0.6 s): pairs of processes differ by 30.0% here") and "noisy now" in said


def test_a_real_probe_gives_a_spread_and_its_pairs():
    probe = noise_probe.measure(pairs=3)
    assert probe["pairs"] == 3 and len(probe["log_ratios"]) == 3 and probe["spread"] >= 0 and probe["seconds"] > 0
