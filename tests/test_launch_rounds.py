"""Launch rounds that go on until each ratio is precise (launch/rounds.py): on synthetic
launches, which targets run each stretch and why each stopped; on real launches, that the
timer is started again for each stretch with its rounds numbered on, and that a fixed number
of rounds is one timer run."""
from __future__ import annotations

import numpy as np

from layertax.engine.measure.stopping import StoppingRule
from layertax.experiments.loadtime import EXPERIMENT as LOADTIME
from layertax.experiments.loadtime.measure import LAUNCH_CONFIDENCE, LAUNCH_ROUNDS, QUICK_LAUNCH_ROUNDS, launch_rounds
from layertax.engine.measure.settings import Settings
from layertax.launch import settings as launch_settings
from layertax.launch.rounds import FixedRounds, PreciseRounds
from layertax.launch.timer import launch_cases
from layertax.result.model import Sample
from tests.conftest import CountingProgress


def _launches(rng, rounds: range, level: float, drift: np.ndarray, own: float) -> list[Sample]:
    return [Sample(r, {"main_ns": float(level * np.exp(drift[r] + rng.normal(0, own)))}) for r in rounds]


def test_a_tight_variant_stops_at_the_first_checkpoint_and_a_wide_one_goes_on_with_its_baseline():
    rng = np.random.default_rng(3)
    drift = rng.normal(0, 0.08, 200)            # the machine's, shared by every launch of a round
    rule = StoppingRule(0.02, min_rounds=40, max_rounds=160)
    plan = PreciseRounds(LOADTIME, ["default", "static", "nopie"], rule, "main_ns")
    assert plan.next_stop(0) == 40
    samples = {"default": _launches(rng, range(40), 1.3e6, drift, 0.003),
               "static": _launches(rng, range(40), 0.33e6, drift, 0.003),
               "nopie": _launches(rng, range(40), 1.25e6, drift, 0.25)}
    plan.seen(samples)
    plan.finished(40, 2.0)
    # The pairing cancels the shared drift: static's ratio is precise at 40 rounds, nopie's is not,
    # and the baseline runs on with it whatever its own median's precision.
    assert not plan.going("static") and plan.going("nopie") and plan.going("default")
    stops = [40]
    while (stop := plan.next_stop(stops[-1])) is not None:
        for name in ("default", "nopie"):
            samples[name] += _launches(rng, range(stops[-1], stop), 1.3e6 if name == "default" else 1.25e6, drift,
                                       0.003 if name == "default" else 0.25)
        plan.seen(samples)
        plan.finished(stop, 1.0)
        stops.append(stop)
    assert stops == [40, 56, 80, 120, 160]        # the checkpoints, up to the maximum
    record = plan.record(interrupted=False)
    assert record["rule"]["checkpoints"] == [40, 56, 80, 120, 160]
    assert record["cases"]["static"] == {**record["cases"]["static"], "rounds": 40, "stopped": "precise", "met": True}
    assert record["cases"]["nopie"]["rounds"] == 160 and record["cases"]["nopie"]["stopped"] == "max rounds"
    assert record["cases"]["nopie"]["met"] is False and record["cases"]["nopie"]["precision"] > 0.02
    assert record["cases"]["default"]["rounds"] == 160
    assert record["rounds_s"] == 2.0 + 4 * 1.0


def test_a_run_stopped_in_a_stretch_records_its_launches_and_says_so():
    rng = np.random.default_rng(4)
    drift = rng.normal(0, 0.05, 60)
    plan = PreciseRounds(LOADTIME, ["default", "nopie"], StoppingRule(0.02, 40, 160), "main_ns")
    plan.seen({"default": _launches(rng, range(47), 1.3e6, drift, 0.01),
               "nopie": _launches(rng, range(47), 1.25e6, drift, 0.3)})
    record = plan.record(interrupted=True)     # Ctrl-C in the stretch after 40, before its checkpoint
    assert {c["rounds"] for c in record["cases"].values()} == {47}
    assert {c["stopped"] for c in record["cases"].values()} == {"interrupted"}


def test_every_variant_without_launches_ends_the_rounds():
    plan = PreciseRounds(LOADTIME, ["default", "static"], StoppingRule(0.02, 40, 160), "main_ns")
    plan.seen({})
    plan.finished(40, 1.0)
    assert plan.next_stop(40) is None


def test_fixed_rounds_are_one_timer_run():
    fixed = FixedRounds(7)
    assert fixed.next_stop(0) == 7 and fixed.next_stop(7) is None and fixed.going("x")
    assert fixed.record(interrupted=False) is None


def test_loadtime_goes_on_until_precise_unless_its_rounds_are_fixed():
    assert launch_rounds(Settings()) == StoppingRule(0.02, *LAUNCH_ROUNDS, LAUNCH_CONFIDENCE)
    assert launch_rounds(Settings.from_options(quick=True, pin=False)) == StoppingRule(0.05, *QUICK_LAUNCH_ROUNDS,
                                                                                       LAUNCH_CONFIDENCE)
    assert launch_rounds(Settings.from_options(runs=12, pin=False)) is None
    assert launch_rounds(Settings.from_options(thorough=True, pin=False)) is None


def _two_programs() -> list[launch_settings.Target]:
    """Two programs named as loadtime's variants, timed spawn->exit (they stamp no main)."""
    return [launch_settings.Target("default", ("/bin/true",)), launch_settings.Target("static", ("/bin/false",),
                                                                                     ignore_status=True)]


def test_each_stretch_is_a_timer_run_whose_rounds_follow_the_last(tools):
    """A target never precise (a target of one part in a billion) runs to the maximum: the
    stretches to each checkpoint (6, then 8) are two timer runs, each with its warm-up, and the
    launches' rounds run on from the first to the second. The progress total is known
    before each stretch (no timed warm-up), and counts every round up to the rule's maximum
    from the first (not up to the next checkpoint only); the second stretch adds its warm-up."""
    targets = _two_programs()
    plan = PreciseRounds(LOADTIME, ["default", "static"], StoppingRule(1e-9, 6, 8), "exit_ns")
    progress = CountingProgress()
    launched = launch_cases(targets, launch_settings.LaunchSettings(runs=6, warmup=1, warmup_time=0), tools,
                            progress, rounds=plan)
    for case in launched.cases.values():
        assert [s["round"] for s in case.samples] == list(range(8))
    assert launched.run.warmed["rounds"] == 2            # one warm-up round in each timer run
    assert progress.totals == [2 + 16, 14 + 2 + 4] and progress.steps == 20
    record = plan.record(launched.interrupted)
    assert {name: (c["rounds"], c["stopped"]) for name, c in record["cases"].items()} == \
        {"default": (8, "max rounds"), "static": (8, "max rounds")}


def test_precise_targets_stop_at_the_first_checkpoint(tools):
    """A target every interval meets (within a factor of a billion: whatever the machine's load)
    stops both programs at six rounds: one stretch, one timer run."""
    targets = _two_programs()
    plan = PreciseRounds(LOADTIME, ["default", "static"], StoppingRule(1e9, 6, 8), "exit_ns")
    launched = launch_cases(targets, launch_settings.LaunchSettings(runs=6, warmup=1, warmup_time=0), tools,
                            CountingProgress(), rounds=plan)
    assert launched.run.warmed["rounds"] == 1
    assert all(len(c.samples) == 6 for c in launched.cases.values())
    assert {c["stopped"] for c in plan.record(False)["cases"].values()} == {"precise"}


def test_a_failed_variant_stops_and_keeps_no_baseline_running():
    """A variant that failed is not launched again: it stops ("failed"), and the baseline,
    which ran on only for it, stops with it."""
    rng = np.random.default_rng(5)
    drift = rng.normal(0, 0.05, 60)
    plan = PreciseRounds(LOADTIME, ["default", "static", "nopie"], StoppingRule(0.02, 40, 160), "main_ns")
    plan.seen({"default": _launches(rng, range(40), 1.3e6, drift, 0.003),
               "static": _launches(rng, range(40), 0.33e6, drift, 0.003),
               "nopie": _launches(rng, range(12), 1.25e6, drift, 0.3)}, failed={"nopie"})
    plan.finished(40, 2.0)
    assert not plan.going("nopie") and not plan.going("default") and plan.next_stop(40) is None
    assert plan.record(False)["cases"]["nopie"]["stopped"] == "failed"
