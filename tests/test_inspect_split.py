"""The stage split of spawn->main on synthetic launches whose truth is known: every stage from
values paired inside one launch, an interval for each, and never a negative time."""
from __future__ import annotations

import json

import numpy as np
import pytest

from layertax import units
from layertax.engine.analysis import stats
from layertax.inspect import split
from layertax.launch.stamp import EMPTY, EMPTY_STAMPED, preload_cost
from tests.result_numbers import numbers_in

US = 1000.0


def _launches(rng, n, exec_us, load_us, reloc_us, other_us, ctor_us, debug_us=40.0, noise_us=3.0):
    """Plain launches (stamps) and LD_DEBUG launches (glibc's readings) of one program."""
    def jitter():
        return float(rng.normal(0, noise_us)) * US

    samples, readings = [], []
    for r in range(n):
        first = (exec_us + load_us + reloc_us + other_us) * US + jitter()
        ctor = ctor_us * US + jitter() / 10
        samples.append({"round": r, "first_init_ns": first, "libc_start_main_ns": first + ctor / 2,
                        "main_ns": first + ctor, "exit_ns": first + ctor + 30 * US})
        load, reloc, other = load_us * US + jitter(), reloc_us * US + jitter(), (other_us + debug_us) * US + jitter()
        total = load + reloc + other
        readings.append({"status": "ok", "round": r, "total_ns": total, "load_ns": load, "relocation_ns": reloc,
                         "wall_ns_same_run": exec_us * US + jitter() + total, "wall_key": "first_init_ns"})
    return samples, readings


def _result(program_other_us: float, seed: int = 1, n: int = 30, debug_us: float = 40.0) -> dict:
    rng = np.random.default_rng(seed)
    fixed = 450.0   # what ld.so does for any program (CPUID on this VM): the empty control's remainder
    e_samples, e_readings = _launches(rng, n, 100, 20, 15, fixed, 10, debug_us=debug_us)
    p_samples, p_readings = _launches(rng, n, 105, 120, 80, fixed + program_other_us, 20)
    return {"cases": [{"name": "lazy", "samples": p_samples, "loader": p_readings}],
            "controls": [{"name": EMPTY_STAMPED, "samples": e_samples, "loader": e_readings}]}


def test_every_stage_is_recovered_with_an_interval_that_covers_it():
    sp = split.split(_result(program_other_us=60.0), "lazy")
    assert sp["status"] == "ok"
    got = {p["part"]: p for p in sp["parts"]}
    truth = {"exec + kernel": 105, "ld.so: loading objects": 120, "ld.so: relocation + lookups": 80,
             "ld.so: start-up work any program pays": 450, "ld.so: other work for this program": 60,
             "constructors": 20}
    assert list(got) == list(truth)
    for name, us in truth.items():
        lo, hi = got[name]["ci95"]
        assert lo <= us * US <= hi, (name, lo, hi)
        assert got[name]["ns"] == pytest.approx(us * US, rel=0.1)
    # The LD_DEBUG launches' own cost (40 µs here) is measured and taken out of the start-up row.
    assert sp["debug_cost"]["ns"] == pytest.approx(40 * US, abs=5 * US)
    assert abs(sp["error"]) < 0.02
    assert split.residual_share(sp) == pytest.approx(60 / 855, rel=0.15)


def test_a_stage_that_is_zero_is_within_noise_never_negative():
    for seed in range(20):   # whichever way the noise falls, no stage is a negative time
        sp = split.split(_result(program_other_us=0.0, seed=seed), "lazy")
        other = next(p for p in sp["parts"] if p["part"] == "ld.so: other work for this program")
        if "within_noise_ns" in other:
            assert other["ns"] == 0 and "ci95" not in other and other["within_noise_ns"] > 0
            assert units.part(other).startswith("within noise (±")
        assert all(x >= 0 for p in sp["parts"] for x in numbers_in(p)), json.dumps(sp["parts"])
        assert sp["sum_ns"] >= 0 and split.residual_share(sp) >= 0
    assert any("within_noise_ns" in next(p for p in split.split(_result(0.0, seed=s), "lazy")["parts"]
                                          if p["part"] == "ld.so: other work for this program")
               for s in range(20))


def test_what_ld_debug_costs_and_what_the_stamp_costs_are_never_negative_times():
    # LD_DEBUG costing nothing: its measured cost straddles zero, and the result keeps it as
    # noise, not as an interval with a negative end (the error, a signed share, is no time).
    costs = [split.split(_result(60.0, seed=s, debug_us=0.0), "lazy") for s in range(10)]
    for sp in costs:
        assert min(numbers_in({k: v for k, v in sp.items() if k != "error"})) >= 0, json.dumps(sp["debug_cost"])
    assert any("within_noise_ns" in sp["debug_cost"] for sp in costs)
    # A stamp that costs nothing: each round's stamped launch 3 µs on either side of the plain one.
    def control(name, extra_us, sway_us):
        return {"name": name, "samples": [{"round": r, "exit_ns": (300 + 5 * (r % 7) + extra_us + sway_us * (-1) ** r) * US}
                                          for r in range(100)]}
    free = preload_cost({"controls": [control(EMPTY, 0.0, 0.0), control(EMPTY_STAMPED, 0.0, 3.0)]})
    assert free["ns"] == 0 and free["within_noise_ns"] > 0 and free["n"] == 100 and min(numbers_in(free)) >= 0
    assert units.part(free).startswith("within noise (±")
    paid = preload_cost({"controls": [control(EMPTY, 0.0, 0.0), control(EMPTY_STAMPED, 12.0, 3.0)]})
    assert paid["ci95"][0] <= paid["ns"] <= paid["ci95"][1] and paid["ns"] == pytest.approx(12 * US, abs=2 * US)


def test_as_time_keeps_each_kind_of_difference_without_a_negative_number():
    assert stats.as_time({"median": 5.0, "ci95": [4.0, 6.0], "n": 9}) == {"ns": 5.0, "ci95": [4.0, 6.0], "n": 9}
    assert stats.as_time({"median": -1.0, "ci95": [-7.0, 3.0], "n": 9}) == {"ns": 0.0, "within_noise_ns": 7.0, "n": 9}
    assert stats.as_time({"median": -5.0, "ci95": [-6.0, -4.0], "n": 9}) == \
        {"ns": 0.0, "below_control_ns": 5.0, "below_control_ci95": [4.0, 6.0], "n": 9}
    assert stats.as_time(None) is None and units.part(None) == "-"


def test_a_stage_wholly_below_its_control_says_so_in_words():
    part = split.stage_part("x", {"median": -50 * US, "ci95": [-60 * US, -40 * US], "n": 30}, "src", 800 * US)
    assert part["ns"] == 0 and part["below_control_ns"] == 50 * US and part["below_control_ci95"] == [40 * US, 60 * US]
    assert units.part(part) == "less than the control's (by 50.0 µs [40.0, 60.0])"
    assert units.stage({"median": -5.0, "ci95": [-9.0, 3.0]}) == "within noise (±9.00 ns)"
    assert units.stage({"median": 5 * US, "ci95": [4 * US, 6 * US]}) == "5.00 µs [4.00, 6.00]"
    # The interval's ends are in the median's unit, even where an end crosses into the next one.
    assert units.stage({"median": 980 * US, "ci95": [950 * US, 1050 * US]}) == "980 µs [950, 1050]"
    # Three significant digits, trailing zeros kept, and the ends with the median's decimals.
    assert units.with_interval(1.18e6, 1.17e6, 1.2e6) == "1.18 ms [1.17, 1.20]"
    assert units.with_interval(9.98e3, 9.5e3, 10.4e3) == "9.98 µs [9.50, 10.40]"
    assert [units.duration(ns) for ns in (0, 0.5, 12, 1.1e6, 123e6, 4.2e9)] == \
        ["0 ns", "0.500 ns", "12.0 ns", "1.10 ms", "123 ms", "4.20 s"]


def test_a_missing_view_makes_the_split_incomplete_not_wrong():
    result = _result(10.0)
    result["cases"][0]["loader"] = []
    assert split.split(result, "lazy")["status"] == "incomplete"


def test_paired_differences_cancel_what_both_share():
    rng = np.random.default_rng(3)
    drift = rng.normal(0, 100, 40)                     # a machine that wanders by far more than the effect
    a = {i: 1000 + 5 + d + rng.normal(0, 1) for i, d in enumerate(drift)}
    b = {i: 1000 + d + rng.normal(0, 1) for i, d in enumerate(drift)}
    paired = stats.paired_difference(a, b)
    assert paired["ci95"][0] > 0 and paired["median"] == pytest.approx(5, abs=1)
    unpaired = stats.difference_of_medians(list(a.values()), list(b.values()))
    assert unpaired["ci95"][0] < 0 < unpaired["ci95"][1]   # the same data, unpaired, cannot tell
