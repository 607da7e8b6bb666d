"""The scheduler on a synthetic experiment: interleaving, failures, timeouts, clean-up."""
import os

import pytest
from conftest import probe_experiment

from layertax.engine.builder import kernels
from layertax.engine.measure.scheduler import Scheduler, select_cases
from layertax.engine.measure.settings import Settings


def _prepared(exp, cache_root):
    prepared = kernels.prepare([exp], cache_root / "layertax")
    return {k.name: prepared[(exp.name, k.name)] for k in exp.kernels}


def test_runs_cases_in_rounds_and_isolates_bad_ones(cache_root, isolated_dirs):
    exp = probe_experiment()
    settings = Settings(runs=4, warmup=1, burst=2, min_sample_ns=200_000, timeout=2.0, seed=42, cpu=None)
    result, interrupted = Scheduler(settings).run_experiment(exp, _prepared(exp, cache_root))
    assert not interrupted
    cases = {c["name"]: c for c in result["cases"]}
    count = cases["count"]
    assert count["status"] == "ok"
    assert sorted({s["round"] for s in count["samples"]}) == [0, 1, 2, 3]
    assert len(count["samples"]) == 8 and len({s["iters"] for s in count["samples"]}) == 1
    assert count["stats"]["n"] == 8 and count["stats"]["ratio"]["median"] == 1.0
    assert cases["wrong"]["status"] == "failed" and "wrong result" in cases["wrong"]["reason"]
    assert cases["skip"]["status"] == "skipped" and cases["skip"]["reason"] == "feature X is not available here"
    assert cases["hang"]["status"] == "failed" and "timed out after 2 s" in cases["hang"]["reason"]
    assert cases["crash"]["status"] == "failed"
    assert all(c["samples"] == [] for n, c in cases.items() if n != "count")
    assert result["harness"]["empty_ns_per_iter"] > 0
    assert [r["label"] for r in result["classic_now"]] == ["base", "top"]
    # The private work directory is gone.
    assert os.listdir(isolated_dirs / "tmp") == []


def test_same_seed_gives_same_order(cache_root):
    orders = []
    for _ in range(2):
        s = Scheduler(Settings(seed=5))
        order = list(range(10))
        s.rng.shuffle(order)
        orders.append(order)
    assert orders[0] == orders[1]


def test_case_globs_always_keep_the_baseline():
    exp = probe_experiment()
    assert [c.name for c in select_cases(exp, ("wr*",))] == ["count", "wrong"]
    assert [c.name for c in select_cases(exp, ())] == [c.name for c in exp.cases]


class Steps:
    """A progress sink that counts the steps and keeps the total it was last given."""
    total, done = None, 0
    def start(self, title, total): self.total = total
    def step(self, label=""): self.done += 1
    def retotal(self, total): self.total = total
    def deadline(self, at): self.ends_by = at
    def finish(self, stopped=False): pass


def test_a_baseline_runs_several_bursts_a_round_when_asked(cache_root, isolated_dirs, monkeypatch):
    """--baseline-bursts 2: the baseline runs two bursts a round (each its own process), its round
    median over both; the other cases one burst; the progress counts every burst."""
    from dataclasses import replace

    from layertax.engine.measure import layout
    from layertax.experiment import Case

    monkeypatch.setattr(layout, "REPEAT_FROM", 1)      # the probe kernel has one case to compare
    exp = replace(probe_experiment(), cases=(Case("count", "probe", "test", "c"), Case("asm102", "probe", "test", "c")))
    settings = Settings(runs=3, warmup=0, burst=2, min_sample_ns=200_000, timeout=5.0, seed=1, cpu=None,
                        baseline_bursts=2, pairing="round", count_syscalls=False, precision=None, budget_s=None)

    steps = Steps()
    result, interrupted = Scheduler(settings, steps).run_experiment(exp, _prepared(exp, cache_root))
    assert not interrupted
    cases = {c["name"]: c for c in result["cases"]}
    per_round = lambda name: sorted(sum(1 for s in cases[name]["samples"] if s["round"] == r) for r in range(3))
    assert per_round("count") == [4, 4, 4] and per_round("asm102") == [2, 2, 2]
    assert cases["asm102"]["stats"]["ratio"]["rounds"] == 3
    assert steps.done == steps.total == 1 + 3 * 3          # the harness floor, then 3 bursts a round
    assert Settings.from_options(baseline_bursts=3, pin=False).baseline_bursts == 3


def test_a_baseline_repeats_only_where_it_serves_enough_cases():
    """One more burst of a baseline pays from REPEAT_FROM cases on; each group's baseline counts
    its own cases, and a baseline (served by none) or a lone case never repeats."""
    from types import SimpleNamespace

    from layertax.engine.measure.layout import REPEAT_FROM, baseline_repeats

    run = lambda name: SimpleNamespace(case=SimpleNamespace(name=name))
    many = [f"m{i}" for i in range(REPEAT_FROM)]
    few = [f"f{i}" for i in range(REPEAT_FROM - 1)]
    order = [run(n) for n in ["base", "other", *many, *few]]
    baselines = {"base": None, "other": None, **{n: "base" for n in many}, **{n: "other" for n in few}}
    assert [r.case.name for r in baseline_repeats(order, baselines, 3)] == ["base", "base"]
    assert baseline_repeats(order, baselines, 1) == []


def test_beside_pairing_runs_each_case_next_to_a_burst_of_its_baseline(cache_root, isolated_dirs):
    """--pairing beside (the default): each round, the case's burst has a burst of its baseline
    right next to it (the layout test below takes many cases); its samples name that burst's slot,
    and its ratio divides by that burst's median; the progress counts every burst."""
    from dataclasses import replace

    import numpy as np

    from layertax.engine.analysis import analyze
    from layertax.experiment import Case

    names = ("count", "asm102")
    exp = replace(probe_experiment(), cases=tuple(Case(n, "probe", "test", "c") for n in names))
    settings = Settings(runs=3, warmup=0, burst=2, min_sample_ns=200_000, timeout=5.0, seed=1, cpu=None,
                        count_syscalls=False, precision=None, budget_s=None)
    assert settings.pairing == "beside"

    steps = Steps()
    result, _ = Scheduler(settings, steps).run_experiment(exp, _prepared(exp, cache_root))
    cases = {c["name"]: c for c in result["cases"]}
    assert steps.done == steps.total == 1 + 3 * 2          # the floor; the case and a baseline burst a round
    for r in range(3):
        base_slots = {s["slot"] for s in cases["count"]["samples"] if s["round"] == r}
        assert len(base_slots) == 1 and all("beside" not in s for s in cases["count"]["samples"])
        for name in names[1:]:
            mine = [s for s in cases[name]["samples"] if s["round"] == r]
            assert len(mine) == 2 and len({s["beside"] for s in mine}) == 1
            beside, slot = mine[0]["beside"], mine[0]["slot"]
            assert beside in base_slots and abs(slot - beside) == 1
            burst = [analyze.ns_per_op(s) for s in cases["count"]["samples"] if s["round"] == r and s["slot"] == beside]
            paired = analyze.beside_values(cases[name], cases["count"])[r]
            assert paired == float(np.median(burst))
    assert cases["asm102"]["stats"]["ratio"]["rounds"] == 3


def test_a_round_laid_out_beside_pairs_every_case_with_an_adjacent_baseline_burst():
    """The layout alone, over many shuffles: each case beside a burst of its own baseline, a
    baseline burst for every two of its cases, a case without a baseline here alone, and a
    baseline with no case going runs once."""
    import random
    from types import SimpleNamespace

    from layertax.engine.measure.layout import bursts_per_round, round_order

    run = lambda name: SimpleNamespace(case=SimpleNamespace(name=name))
    going = [run(n) for n in ["a", "a1", "a2", "a3", "b", "b1", "lone", "c"]]
    baselines = {"a": None, "a1": "a", "a2": "a", "a3": "a", "b": None, "b1": "b", "lone": None, "c": None}
    rng = random.Random(3)
    for _ in range(200):
        bursts = round_order(going, baselines, "beside", 2, rng)
        names = [b.run.case.name for b in bursts]
        assert [b.slot for b in bursts] == list(range(len(bursts)))
        assert sorted(names) == sorted(["a", "a", "a1", "a2", "a3", "b", "b1", "lone", "c"])
        assert len(bursts) == bursts_per_round(going, baselines, "beside", 2)
        for b in bursts:
            base = baselines[b.run.case.name]
            if base is None:
                assert b.beside is None
            else:
                assert abs(b.slot - b.beside) == 1 and names[b.beside] == base
    rounds_order = round_order(going, baselines, "round", 2, rng)
    assert sorted(b.run.case.name for b in rounds_order) == sorted(["a", "a", "a1", "a2", "a3", "b", "b1", "lone", "c"])
    assert all(b.beside is None for b in rounds_order)


def test_a_ratio_without_beside_marks_divides_by_the_baseline_round_median():
    """A result saved before the beside pairing (no slot, no beside) reads as it did."""
    from layertax.engine.analysis import analyze

    base = {"samples": [{"round": 0, "ns": 100, "ops": 1}, {"round": 0, "ns": 300, "ops": 1},
                        {"round": 1, "ns": 200, "ops": 1}]}
    case = {"samples": [{"round": 0, "ns": 400, "ops": 1}, {"round": 1, "ns": 400, "ops": 1}]}
    assert analyze.beside_values(case, base) == {0: 200.0, 1: 200.0}
    marked = {"samples": [{"round": 0, "slot": 1, "beside": 0, "ns": 400, "ops": 1},
                          {"round": 1, "slot": 0, "beside": 1, "ns": 400, "ops": 1}]}
    base_marked = {"samples": [{"round": 0, "slot": 0, "ns": 100, "ops": 1}, {"round": 0, "slot": 2, "ns": 300, "ops": 1},
                               {"round": 1, "slot": 1, "ns": 200, "ops": 1}]}
    assert analyze.beside_values(marked, base_marked) == {0: 100.0, 1: 200.0}


def test_baseline_bursts_out_of_range_is_one_clear_line():
    from layertax.errors import UsageError

    with pytest.raises(UsageError, match="--baseline-bursts must be between 1 and 10"):
        Settings.from_options(baseline_bursts=11, pin=False)


def test_the_cpu_pinned_to_is_the_option_then_layertax_cpu_then_the_last_usable_one(monkeypatch):
    """Several layertax side by side give each its own CPU with LAYERTAX_CPU; --cpu beats it, and
    --no-pin reads neither."""
    from layertax.errors import UsageError
    from layertax.launch.settings import LaunchSettings

    cpus = sorted(os.sched_getaffinity(0))
    monkeypatch.delenv("LAYERTAX_CPU", raising=False)
    assert Settings.from_options().cpu == (cpus[-1] if len(cpus) > 1 else None)
    monkeypatch.setenv("LAYERTAX_CPU", str(cpus[0]))
    assert Settings.from_options().cpu == cpus[0]
    assert LaunchSettings.from_options(runs=3, warmup=1, timeout=1.0, seed=1).cpu == cpus[0]
    assert Settings.from_options(cpu=cpus[-1]).cpu == cpus[-1]
    for bad in ("4095", "x", "-1", "1.5", "\x1b[31m"):
        monkeypatch.setenv("LAYERTAX_CPU", bad)
        with pytest.raises(UsageError, match="LAYERTAX_CPU=.*give one of the CPUs this process may use") as raised:
            Settings.from_options()
        assert "\x1b" not in str(raised.value)
        assert Settings.from_options(pin=False).cpu is None
