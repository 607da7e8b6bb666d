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


@pytest.mark.parametrize("s", [0.005, 0.035, 0.056, 0.3])
def test_the_rounds_for_a_target_are_the_fewest_whose_forecast_reaches_it(s):
    n = noise_probe.rounds_for(s, 0.02)
    assert noise_probe.reachable(s, n) <= 0.02
    assert n == 1 or noise_probe.reachable(s, n - 1) > 0.02


def test_the_doctor_says_steady_where_a_default_run_reaches_its_target_and_noisy_where_not():
    from layertax.commands.doctor import DEFAULT_RULE, noise_verdict

    steady, noisy = noise_verdict(0.035, 2.3), noise_verdict(0.12, 2.3)
    assert steady.startswith("this machine is steady enough now: pairs of processes differ by 3.5% (noise probe, 2.3 s)")
    assert f"in about {noise_probe.rounds_for(0.035, 0.02)} rounds" in steady
    assert noise_probe.rounds_for(0.12, 0.02) > DEFAULT_RULE.max_rounds
    assert noisy.startswith("this machine is noisy now") and f"would take about {noise_probe.rounds_for(0.12, 0.02)}" in noisy
    assert steady.endswith("(a forecast)") and noisy.endswith("(a forecast)")
    # Where the last run here kept how far its experiments spread, the verdict starts from their median.
    usual = noise_verdict(0.02, 2.3, {"callchain": 0.092, "tls": 0.061, "scan": 0.078})
    assert usual.startswith("this machine is noisy: in the last run here the experiments' ratios spread 6.1% to "
                            "9.2% from round to round (the median case of each; the noise probe reads 2.0% now)")
    assert f"would take about {noise_probe.rounds_for(0.078, 0.02)}" in usual


def test_a_real_probe_gives_a_spread_and_its_pairs():
    probe = noise_probe.measure(pairs=3)
    assert probe["pairs"] == 3 and len(probe["log_ratios"]) == 3 and probe["spread"] >= 0 and probe["seconds"] > 0


def test_each_process_is_paired_with_the_one_half_the_probe_later(monkeypatch):
    # A machine that slows by 10% halfway through: adjacent processes agree, the probe's pairs
    # (i with i + pairs) see the drift a round's case and baseline see.
    times = iter([100, 100, 100, 110, 110, 110])
    monkeypatch.setattr(noise_probe, "process_ns", lambda cpu: next(times))
    probe = noise_probe.measure(pairs=3, pause_s=0)
    assert probe["log_ratios"] == [round(math.log(1.1), 5)] * 3 and probe["pairs"] == 3


def _case(name: str, per_round: list[float], group: str = "g") -> dict:
    return {"name": name, "group": group,
            "samples": [{"round": r, "ns": v * 1000, "ops": 1000} for r, v in enumerate(per_round)]}


def _experiment(spread: float, cases: int = 4, rounds: int = 12) -> dict:
    """An experiment whose every case's per-round log ratio to the baseline alternates ±spread/1.4826
    (a robust spread of `spread`)."""
    step = spread / 1.4826
    base = _case("base", [100.0] * rounds)
    others = [_case(f"c{i}", [100.0 * math.exp(step if r % 2 else -step) for r in range(rounds)])
              for i in range(cases)]
    return {"name": "exp", "baseline": "base", "groups": [{"name": "g", "baseline": "base"}], "cases": [base, *others]}


def test_an_experiments_rounds_are_set_beside_the_probe_and_said_where_far_noisier():
    probe = {"spread": 0.03, "rounds": 31}
    exp = _experiment(0.08)
    assert noise_probe.case_spreads(exp) == pytest.approx([0.08] * 4)
    seen, said = noise_probe.surprise(probe, exp, 0.02)
    assert seen == pytest.approx(0.08)
    assert said.startswith("exp: its ratios spread 8.0% from round to round (the median case), 2.7x what the "
                           "noise probe showed (3.0%): this machine is noisier now")
    assert f"±{noise_probe.reachable(0.08, 31):.1%} in ~31 rounds" in said
    # Where its last run here kept how far it spread, that is what it is set beside.
    usual = {**probe, "expected": {"exp": 0.07}}
    assert noise_probe.surprise(usual, exp, 0.02)[1] is None
    usual["expected"]["exp"] = 0.035
    assert noise_probe.surprise(usual, exp, 0.02)[1].startswith(
        "exp: its ratios spread 8.0% from round to round (the median case), 2.3x what its last run here showed (3.5%)")
    # within twice the probe: kept, not said
    assert noise_probe.surprise(probe, _experiment(0.05), 0.02)[1] is None
    # no probe, or too few cases (or rounds) to tell: nothing
    assert noise_probe.surprise(None, exp, 0.02) is None
    assert noise_probe.surprise(probe, _experiment(0.08, cases=2), 0.02) is None
    assert noise_probe.surprise(probe, _experiment(0.08, rounds=5), 0.02) is None


def test_the_forecast_starts_from_the_experiments_last_runs_here_where_there_are_some():
    """The probe, a few seconds of a Python loop, forecast the experiments' spreads within a
    median factor of 1.7-1.9 on the 2-vCPU VM, their previous run within 1.2-1.35: where the
    newest runs here kept how far each experiment's median case spread, the forecast is theirs
    (their median), and the probe is said beside it."""
    from layertax.engine.measure import budget

    stops = {"callchain": {"round_s_full": 4.1, "seen_spread": 0.09}, "tls": {"seen_spread": 0.05},
             "scan": {"round_s_full": 2.0}}
    usual = budget.seen_spreads(stops)
    assert usual == {"callchain": 0.09, "tls": 0.05}
    probe = {"spread": 0.022, "seconds": 2.5, "pairs": 12}
    said = noise_probe.forecast(probe, 21, 0.02, usual)
    assert said.startswith("noise: in their last runs here these experiments' ratios spread 5.0% to 9.0% from "
                           "round to round (the median case of each); a case as noisy reaches about "
                           f"±{noise_probe.reachable(0.07, 21):.1%} in the ~21 rounds")
    assert "the noise probe reads 2.2% now" in said and said.endswith("(a longer --budget, or a looser --precision)")
    assert "noise probe (2.5 s)" in noise_probe.forecast(probe, 21, 0.02)        # none kept: the probe's
    # The budget's length is said where the session gives it: what sets how long the run takes.
    assert "in the ~21 rounds a 4.0 min budget allows" in noise_probe.forecast(probe, 21, 0.02, usual, 240.0)
    assert "in the ~21 rounds a 1.5 min budget allows" in noise_probe.forecast(probe, 21, 0.02, None, 90.0)


def test_the_session_keeps_what_each_experiment_showed_with_the_probe_and_says_the_surprise():
    from layertax.engine import session

    probe, said = {"spread": 0.03, "rounds": 31}, []
    session._beside_the_probe(probe, _experiment(0.08), 0.02, said.append)
    session._beside_the_probe(probe, _experiment(0.05) | {"name": "calm"}, 0.02, said.append)
    assert probe["seen"] == {"exp": pytest.approx(0.08, abs=1e-5), "calm": pytest.approx(0.05, abs=1e-5)}
    assert len(said) == 1 and said[0].startswith("exp: its ratios spread 8.0%")


def test_a_probe_whose_processes_ran_at_two_speeds_says_so(monkeypatch):
    """On the 2-vCPU VM the probe's Python loop switches between two levels about 1.7x apart, with
    Perl's (bench/levels_in_time.py --beside-probe): its pairs then differ by the gap, and the probe
    reads far above the moment's usual spread. The probe keeps the two levels and the forecast and
    doctor say them; processes at one level with a few slow ones are not two speeds."""
    from layertax.commands.doctor import noise_verdict

    rng = np.random.default_rng(2)
    two = [3.5e6 * math.exp(rng.normal(0, 0.02)) for _ in range(15)] + \
          [2.05e6 * math.exp(rng.normal(0, 0.02)) for _ in range(9)]
    rng.shuffle(two)
    values = iter(two)
    monkeypatch.setattr(noise_probe, "process_ns", lambda cpu: next(values))
    probe = noise_probe.measure(pairs=12, pause_s=0)
    levels = probe["levels"]
    assert probe["process_ns"] == [int(t) for t in two]     # the raw times its figures come from
    assert 1.9 < levels["lower_ms"] < 2.2 and 3.3 < levels["upper_ms"] < 3.7 and levels["upper_share"] == 0.625
    said = noise_probe.two_speeds(probe)
    assert said.startswith("its processes ran at two speeds, 2.") and said.endswith("(62% at the slower)")
    assert f"({said})" in noise_probe.forecast(probe, 20, 0.02)
    assert noise_probe.forecast(probe, 20, 0.02, {"scan": 0.08}).split(" now", 1)[1].startswith(f", {said}")
    verdict = noise_verdict(probe["spread"], 2.4, None, said)
    assert ". The noise probe's processes ran at two speeds" in verdict and "scan's perl-tr against getc" in verdict
    one = [3.5e6 * math.exp(rng.normal(0, 0.02)) for _ in range(21)] + [5.0e6, 5.2e6, 6.0e6]
    values = iter(one)
    steady = noise_probe.measure(pairs=12, pause_s=0)
    assert steady["levels"] is None and noise_probe.two_speeds(steady) is None
    assert "two speeds" not in noise_probe.forecast(steady, 20, 0.02)
