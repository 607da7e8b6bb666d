"""compare on synthetic samples: verdicts, Holm, the geometric mean, machines; hyperfine imports."""
import json
import math

import numpy as np
import pytest
from conftest import history_experiments, run_cli

from layertax.engine.analysis import compare, stats
from layertax.engine.store import hyperfine, results
from layertax.engine import machine
from layertax import units
from layertax.report import comparison


def _doc(cases: dict[str, list[float]], created: str = "2026-01-01T00:00:00+00:00", kernel: str = "6.1") -> dict:
    """A run whose cases have one sample per round, ns/op as given."""
    exp = {"name": "demo", "title": "demo", "question": "?", "unit": "ns/op", "baseline": next(iter(cases)),
           "groups": [], "cases": [{"name": n, "kernel": "k", "layer": "l", "language": "c", "status": "ok",
                                    "reason": None,
                                    "samples": [{"round": r, "iters": 10, "ops": 10, "ns": v * 10}
                                                for r, v in enumerate(vs)]} for n, vs in cases.items()]}
    return {"schema": results.SCHEMA, "layertax_version": "t", "created": created, "command": ["layertax"],
            "complete": True, "settings": {}, "experiments": [exp],
            "machine": {"cpu_model": "cpu", "kernel": kernel, "machine_id": "m", "loadavg": "0.1", "tools": {"cc": "1"}}}


def _noisy(n: int = 30, seed: int = 1, scale: float = 1.0) -> list[float]:
    rng = np.random.default_rng(seed)
    return list(100.0 * scale * (1 + 0.01 * rng.standard_normal(n)))


def test_a_5_percent_shift_of_30_samples_is_slower():
    a = _doc({"x": _noisy(seed=1)})
    b = _doc({"x": _noisy(seed=2, scale=1.05)})
    row = compare.compare_runs(a, b).experiments[0].rows[0]
    assert row.verdict == "slower" and row.ratio == pytest.approx(1.05, abs=0.01)
    assert row.ci95[0] > 1.02 and row.p_holm < 0.05
    faster = compare.compare_runs(b, a).experiments[0].rows[0]
    assert faster.verdict == "faster"


def test_a_run_compared_with_itself_is_no_difference():
    a = _doc({"x": _noisy(seed=1), "y": _noisy(seed=3, scale=2), "z": _noisy(seed=5, scale=3)})
    c = compare.compare_runs(a, a)
    e = c.experiments[0]
    assert {r.verdict for r in e.rows} == {"no difference"} and e.geomean.verdict == "no difference"
    assert all(r.ratio == 1.0 and r.p_value == 1.0 for r in e.rows)
    assert c.machine_differences == []


def test_a_shift_inside_the_noise_band_is_no_difference():
    a = _doc({"x": _noisy(seed=1)})
    b = _doc({"x": _noisy(seed=2, scale=1.01)})
    assert compare.compare_runs(a, b, threshold=0.02).experiments[0].rows[0].verdict == "no difference"
    assert compare.compare_runs(a, b, threshold=0.0).experiments[0].rows[0].ratio > 1


def test_each_runs_drift_factor_is_its_experiments_and_the_interval_is_the_tests():
    """Cases judged on their ratio share one drift factor, estimated over the experiment in both
    runs: at 6 rounds, fewer than say anything of their drift, the one for short runs. The
    interval excludes 1 where the (uncorrected, widened) test rejects."""
    from layertax.engine.analysis import rank_dependence

    cases_a = {"x": _noisy(6, seed=1)} | {f"c{i}": _noisy(6, seed=10 + i, scale=2) for i in range(4)}
    cases_b = {"x": _noisy(6, seed=2)} | {f"c{i}": _noisy(6, seed=20 + i, scale=2 * (1 + 0.05 * i)) for i in range(4)}
    e = compare.compare_runs(_doc(cases_a), _doc(cases_b), threshold=0.0).experiments[0]
    judged = [r for r in e.rows if r.to_baseline]
    assert len(judged) == 4
    for row in judged:
        assert row.dependence == rank_dependence.SHORT_FACTOR and row.coverage == 0.95
        assert row.ci95[0] <= row.ratio <= row.ci95[1]
        assert (row.ci95[0] > 1 or row.ci95[1] < 1) == (row.p_value < 0.05), (row.ci95, row.p_value)


def test_a_baseline_that_moved_warns_and_its_case_is_judged_on_its_ratio_to_it():
    # The same build run twice, the machine 5% slower in B: the baseline (x) comes out slower,
    # its case (y), judged on its ratio to x, does not, and the comparison says why.
    a = _doc({"x": _noisy(seed=1), "y": _noisy(seed=3, scale=2)})
    b = _doc({"x": _noisy(seed=2, scale=1.05), "y": _noisy(seed=4, scale=2.1)})
    e = compare.compare_runs(a, b).experiments[0]
    assert [(r.verdict, r.to_baseline) for r in e.rows] == [("slower", ""), ("no difference", "x")]
    assert e.rows[1].a == pytest.approx(2.0, abs=0.02) and e.rows[1].ratio == pytest.approx(1.0, abs=0.01)
    assert e.rows[0].ratio == pytest.approx(1.05, abs=0.002)
    d = units.ratio_decimals(e.rows[0].ratio, *e.rows[0].ci95)
    assert e.warnings == [f"the baseline x itself came out slower ({e.rows[0].ratio:.{d}f}x): its own code changed, "
                          "or the machine ran at another speed in B; the case measured against it is judged on its "
                          "ratio to it, which cancels the machine's speed where it moved case and baseline alike"]
    # Only the case moved: it is slower, and nothing to warn about.
    steady = compare.compare_runs(a, _doc({"x": _noisy(seed=2), "y": _noisy(seed=4, scale=2.1)})).experiments[0]
    assert [r.verdict for r in steady.rows] == ["no difference", "slower"] and steady.warnings == []


def test_a_case_called_that_had_moved_between_earlier_runs_is_named():
    """B's run had found y's ratio moving between this machine's runs (its `!`): compare still calls
    the move it sees, and says a move like it has come here without a change of code."""
    a = _doc({"x": _noisy(seed=1), "y": _noisy(seed=3, scale=2)})
    b = _doc({"x": _noisy(seed=2), "y": _noisy(seed=4, scale=2.2)})
    b["experiments"][0]["between_runs"] = {"runs": 4, "cases": {"y": {"runs": 5, "low": 1.9, "high": 2.3,
                                                                       "p": 1e-5, "moved": True}}}
    e = compare.compare_runs(a, b).experiments[0]
    assert [r.verdict for r in e.rows] == ["no difference", "slower"]
    assert e.warnings == ["y was marked ! in B: its ratio had moved between this machine's runs before (1.9x to "
                          "2.3x over 5 runs), so a move like this one has come without a change of code here"]
    b["experiments"][0]["between_runs"]["cases"]["y"]["moved"] = False
    assert compare.compare_runs(a, b).experiments[0].warnings == []


def test_a_ratio_that_moves_between_runs_here_is_widened_by_that_and_said():
    """y's ratio 6% up in B with tight rounds (±1%): called slower. Where a run found y's ratio
    moving between this machine's runs by 3% a run beyond their intervals (tau, the runs'
    disagreement at p < TAU_P), B/A's variance grows by 2 tau^2: its interval widens, the test
    no longer decides, and the note says what the interval includes. A tau whose runs did not
    disagree at TAU_P is not used."""
    a = _run_on_a_machine(1, 1.00, {"x": 100.0, "y": 200.0})
    b = _run_on_a_machine(2, 1.00, {"x": 100.0, "y": 212.0})
    plain = compare.compare_runs(a, b).experiments[0].rows[1]
    assert plain.verdict == "slower" and plain.between_runs == 0
    record = {"runs": 6, "low": 1.9, "high": 2.1, "p": 0.001, "moved": False, "tau": 0.03}
    a["experiments"][0]["between_runs"] = {"runs": 5, "cases": {"y": record}}
    e = compare.compare_runs(a, b).experiments[0]
    wide = e.rows[1]
    assert wide.between_runs == 0.03 and wide.ratio == plain.ratio
    assert wide.ci95[0] < plain.ci95[0] and wide.ci95[1] > plain.ci95[1] and wide.p_value > plain.p_value
    # Its standard error, read from the interval's width, now holds 2 tau^2 more variance.
    z = 1.959964
    se = [(np.log(r.ci95[1]) - np.log(r.ci95[0])) / (2 * z) for r in (plain, wide)]
    assert se[1] ** 2 == pytest.approx(se[0] ** 2 + 2 * 0.03 ** 2, rel=0.05)
    assert wide.verdict in ("no difference", "inconclusive")
    assert e.notes == ["y: B/A's interval includes how far the ratio moved between this machine's earlier runs "
                       "beyond their intervals (up to 3.0% a run, y), as A's or B's run found it beside them: a "
                       "change must exceed that to be called"]
    assert "  note: y: B/A's interval includes" in _rendered(compare.compare_runs(a, b), 100)
    record["p"] = 0.2
    assert compare.compare_runs(a, b).experiments[0].rows[1].verdict == "slower"


def test_runs_without_earlier_runs_here_are_said_to_have_within_run_intervals():
    """Where neither run was set beside two earlier runs of its design, nothing measured how far
    its ratios move between runs: one note above the tables names the experiments whose B/A
    intervals hold only the runs' rounds. One run with two earlier runs is enough to drop it, and
    an experiment of baselines alone (no ratio) is not named."""
    a = _run_on_a_machine(1, 1.00, {"x": 100.0, "y": 200.0})
    b = _run_on_a_machine(2, 1.00, {"x": 100.0, "y": 200.0})
    c = compare.compare_runs(a, b)
    assert c.without_history == ["demo"]
    text = " ".join(_rendered(c, 80).split())
    assert ("note: demo: no earlier runs here beside A or B, so B/A's intervals hold each run's rounds, not how "
            "far ratios move between runs; compare adds that once a run has two before it") in text
    a["experiments"][0]["between_runs"] = {"runs": 1, "cases": {}}
    assert compare.compare_runs(a, b).without_history == ["demo"]
    b["experiments"][0]["between_runs"] = {"runs": 2, "cases": {}}
    c = compare.compare_runs(a, b)
    assert c.without_history == [] and "no earlier runs here" not in _rendered(c, 80)
    alone = compare.compare_runs(_doc({"x": _noisy(seed=1)}), _doc({"x": _noisy(seed=2)}))
    assert alone.without_history == []


def test_a_case_on_every_cpu_carries_at_least_the_prior_spread_between_runs():
    """y runs on every CPU at once (the ^ mark) and its ratio is 6% up in B with tight rounds. With
    no earlier runs here, its B/A interval holds 2 EVERY_CPU_TAU^2 more variance than its rounds
    show, so a 6% move is not called, and a note says what stands in; x, on one CPU, is judged on
    its rounds. Earlier runs that found y steady keep the prior (its moves come in bursts); earlier
    runs that found it moving more than the prior widen it by what they found."""
    a = _run_on_a_machine(1, 1.00, {"x": 100.0, "y": 200.0})
    b = _run_on_a_machine(2, 1.00, {"x": 100.0, "y": 212.0})
    plain = compare.compare_runs(a, b).experiments[0].rows[1]
    for doc in (a, b):
        doc["experiments"][0]["cases"][1]["every_cpu"] = True
    c = compare.compare_runs(a, b)
    x, y = c.experiments[0].rows
    assert y.prior_spread and y.between_runs == compare.EVERY_CPU_TAU and y.ratio == plain.ratio
    assert not x.prior_spread and x.between_runs == 0
    z = 1.959964
    se = [(np.log(r.ci95[1]) - np.log(r.ci95[0])) / (2 * z) for r in (plain, y)]
    assert se[1] ** 2 == pytest.approx(se[0] ** 2 + 2 * compare.EVERY_CPU_TAU ** 2, rel=0.05)
    assert plain.verdict == "slower" and y.verdict == "no difference"
    assert c.experiments[0].notes == [
        "y: runs on every CPU at once (^), so the ratio moves between runs with the load on the machine's "
        "other CPUs, in bursts few runs show; B/A's interval includes at least "
        f"{math.expm1(compare.EVERY_CPU_TAU):.1%} a run (such cases' spread on a 2-vCPU VM): a change must "
        "exceed that to be called"]
    text = " ".join(_rendered(c, 80).split())
    assert "not how far ratios move between runs (but for cases on every CPU, noted below)" in text
    record = {"runs": 6, "low": 1.9, "high": 2.1, "p": 0.6, "moved": False, "tau": 0.0}
    a["experiments"][0]["between_runs"] = {"runs": 5, "cases": {"y": record}}
    steady = compare.compare_runs(a, b).experiments[0].rows[1]
    assert steady.prior_spread and steady.between_runs == compare.EVERY_CPU_TAU
    record.update(p=0.001, tau=0.2)
    e = compare.compare_runs(a, b).experiments[0]
    assert not e.rows[1].prior_spread and e.rows[1].between_runs == 0.2
    assert e.notes[0].startswith("y: B/A's interval includes how far the ratio moved between this machine's")


def test_the_geometric_mean_carries_its_cases_spread_between_runs():
    """Two cases 6% up in B; one moves 3% a run between runs here: the mean's interval is widened
    by the mean of the cases' tau (their offsets taken as moving together), and says so."""
    costs = {"x": 100.0, "y": 200.0, "z": 300.0}
    a = _run_on_a_machine(1, 1.00, costs)
    b = _run_on_a_machine(2, 1.00, {"x": 100.0, "y": 212.0, "z": 318.0})
    plain = compare.compare_runs(a, b).experiments[0]
    a["experiments"][0]["between_runs"] = {"runs": 5, "cases": {"y": {"runs": 6, "low": 1.9, "high": 2.1,
                                                                       "p": 0.001, "moved": False, "tau": 0.03}}}
    wide = compare.compare_runs(a, b).experiments[0]
    assert wide.geomean.ratio == plain.geomean.ratio
    assert wide.geomean.ci95[0] < plain.geomean.ci95[0] and wide.geomean.ci95[1] > plain.geomean.ci95[1]
    assert "widened for the spread between runs (tau 0.015, the cases' mean)" in wide.geomean_method
    assert "spread between runs" not in plain.geomean_method


def test_the_geometric_mean_carries_its_own_spread_between_runs_where_the_runs_kept_it():
    """Where a run kept how far the experiment's mean moved beside its earlier runs
    (between_runs.mean_compared), compare widens the mean by that tau, not the cases' mean; a
    mean whose runs agreed (p at or above TAU_P) is not widened."""
    costs = {"x": 100.0, "y": 200.0, "z": 300.0}
    a = _run_on_a_machine(1, 1.00, costs)
    b = _run_on_a_machine(2, 1.00, {"x": 100.0, "y": 212.0, "z": 318.0})
    plain = compare.compare_runs(a, b).experiments[0]
    mean = {"cases": 2, "runs": 6, "low": 2.3, "high": 2.5, "p": 0.01, "tau": 0.04}
    a["experiments"][0]["between_runs"] = {"runs": 5, "cases": {"y": {"runs": 6, "low": 1.9, "high": 2.1,
                                                                       "p": 0.001, "moved": False, "tau": 0.03}},
                                           "mean": mean}
    wide = compare.compare_runs(a, b).experiments[0]
    assert wide.mean_tau == 0.04 and wide.geomean.ratio == plain.geomean.ratio
    assert wide.geomean.ci95[0] < plain.geomean.ci95[0] and wide.geomean.ci95[1] > plain.geomean.ci95[1]
    assert "widened for the spread between runs (tau 0.040, the mean's own, beside earlier runs)" in wide.geomean_method
    mean["p"] = 0.3
    agreed = compare.compare_runs(a, b).experiments[0]
    assert agreed.mean_tau == 0.0 and "spread between runs" not in agreed.geomean_method
    assert agreed.geomean.ci95 == plain.geomean.ci95


def test_a_case_called_beside_a_baseline_that_moved_is_named():
    """The machine 20% faster in B for the baseline only (a dynamic program's start) and not for
    its case (a static one's): the case's ratio rises, compare calls it slower, and the warning
    names it as possibly the machine's move."""
    a = _doc({"x": _noisy(seed=1), "y": _noisy(seed=3, scale=0.2), "z": _noisy(seed=5, scale=0.9)})
    b = _doc({"x": _noisy(seed=2, scale=0.8), "y": _noisy(seed=4, scale=0.2), "z": _noisy(seed=6, scale=0.72)})
    e = compare.compare_runs(a, b).experiments[0]
    assert [r.verdict for r in e.rows] == ["faster", "slower", "no difference"]
    assert len(e.warnings) == 1 and e.warnings[0].endswith(
        "; y, called slower or faster beside it, may have moved with the machine rather than its code: "
        "run A and B again to tell")
    assert compare._listed(["a", "b"]) == "2 cases (a, b)"
    assert compare._listed(["a", "b", "c", "d"]) == "4 cases (a, b, c, ...)"


def _run_on_a_machine(seed: int, speed: float, costs: dict[str, float], rounds: int = 40) -> dict:
    """A run whose rounds each ran every case moments apart: a round's drift (3%) and the run's
    machine speed hit all its cases alike; each case adds its own 0.5% of noise."""
    rng = np.random.default_rng(seed)
    drift = speed * (1 + 0.03 * rng.standard_normal(rounds))
    return _doc({name: list(cost * drift * (1 + 0.005 * rng.standard_normal(rounds))) for name, cost in costs.items()})


def test_the_machine_speed_between_runs_cancels_in_the_ratio_to_the_baseline():
    costs = {"raw": 100.0, "layered": 300.0, "other": 150.0}
    a = _run_on_a_machine(1, 1.00, costs)
    b = _run_on_a_machine(2, 1.06, costs)                         # unchanged code, a machine 6% slower
    e = compare.compare_runs(a, b).experiments[0]
    assert [(r.case, r.verdict) for r in e.rows] == [("raw", "slower"), ("layered", "no difference"),
                                                     ("other", "no difference")]
    assert e.geomean.verdict == "no difference" and len(e.warnings) == 1
    # The layer's own cost up 5% on the same slower machine: found, and only there.
    changed = compare.compare_runs(a, _run_on_a_machine(2, 1.06, {**costs, "layered": 315.0})).experiments[0]
    assert [r.verdict for r in changed.rows] == ["slower", "slower", "no difference"]
    assert changed.rows[1].ratio == pytest.approx(1.05, abs=0.01)


def test_a_case_that_drifted_inside_a_run_is_widened_and_said():
    # The case stepped 8% halfway through its rounds in each run (up in A, down in B) while its
    # baseline did not: its ratios move together, so the comparison's interval widens and a
    # warning names the case.
    costs = {"raw": 100.0, "layered": 300.0}
    a, b = _run_on_a_machine(1, 1.0, costs), _run_on_a_machine(2, 1.0, costs)
    for doc, slow in ((a, lambda r: r >= 20), (b, lambda r: r < 20)):
        for sample in doc["experiments"][0]["cases"][1]["samples"]:
            if slow(sample["round"]):
                sample["ns"] *= 1.08
    e = compare.compare_runs(a, b).experiments[0]
    layered = e.rows[1]
    assert layered.dependence > stats.DRIFT_FACTOR and layered.verdict == "no difference"
    assert [w for w in e.warnings if w.startswith("1 case drifted while A or B ran")]
    assert "the most, layered, by a variance factor of" in e.warnings[-1]


def test_holm_adjusts_step_down_and_stays_monotone():
    assert stats.holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert stats.holm([0.5]) == [0.5]
    assert stats.holm([0.9, 0.9]) == [1.0, 1.0]


def test_holm_keeps_one_lucky_case_among_many_from_being_called_a_change():
    # 40 cases with no change, one of which drew p < 0.05 by chance: after Holm it is not significant.
    names = {f"c{i}": _noisy(seed=i) for i in range(40)}
    a = _doc(names)
    b = _doc({n: _noisy(seed=1000 + i) for i, n in enumerate(names)})
    rows = compare.compare_runs(a, b).experiments[0].rows
    assert all(r.p_holm >= r.p_value for r in rows)
    assert all(r.verdict == "no difference" for r in rows)


def test_geometric_mean_row():
    # Over the cases judged on their ratio to the baseline (y, z), not the baseline's own time.
    a = _doc({"x": _noisy(seed=1), "y": _noisy(seed=2), "z": _noisy(seed=5)})
    b = _doc({"x": _noisy(seed=3), "y": _noisy(seed=4, scale=1.10), "z": _noisy(seed=6, scale=1.10)})
    c = compare.compare_runs(a, b).experiments[0]
    g = c.geomean
    assert g.ratio == pytest.approx(1.10, abs=0.01) and g.ci95[0] > 1.05 and g.verdict == "slower"
    assert c.geomean_method.startswith("over the 2 cases judged on their ratio to a baseline")
    # Without a baseline to take ratios to (a hyperfine import's rounds are not paired): every case, in time.
    for doc in (a, b):
        doc["experiments"][0]["rounds_paired"] = False
    unpaired = compare.compare_runs(a, b).experiments[0]
    assert all(r.to_baseline == "" for r in unpaired.rows)
    assert unpaired.geomean.ratio == pytest.approx((1.0 * 1.1 * 1.1) ** (1 / 3), abs=0.01)


def _drifting_run(seed: int, cases: int = 10, rounds: int = 20) -> list[dict[int, float]]:
    """Cases of one run whose rounds share a drift (5%) much larger than each case's own noise (0.5%)."""
    rng = np.random.default_rng(seed)
    drift = 1 + 0.05 * rng.standard_normal(rounds)
    return [{r: 100.0 * drift[r] * (1 + 0.005 * rng.standard_normal()) for r in range(rounds)} for _ in range(cases)]


def test_the_geometric_mean_interval_keeps_the_drift_rounds_share():
    a, b = _drifting_run(seed=1), _drifting_run(seed=2)
    point, shared, how = stats.geomean_ratio(list(zip(a, b)))
    assert how == "bootstrap over shared rounds"
    # The same samples with each case's round ids made distinct: resampled case by case, as if independent.
    apart = [({i * 1000 + r: v for r, v in ca.items()}, {i * 1000 + r: v for r, v in cb.items()})
             for i, (ca, cb) in enumerate(zip(a, b))]
    point_apart, independent, how_apart = stats.geomean_ratio(apart)
    assert how_apart.startswith("bootstrap per case") and point_apart == pytest.approx(point)
    # Ten cases moving together are one observation of the drift, not ten: the interval is
    # about sqrt(10) times wider than the one that treats them as independent.
    assert (shared[1] - shared[0]) > 2 * (independent[1] - independent[0])
    assert shared[0] <= point <= shared[1]


def test_compare_says_how_the_geometric_mean_interval_was_drawn(tmp_path):
    a = results.save(_doc({"x": _noisy(seed=1), "y": _noisy(seed=2), "z": _noisy(seed=5)}), tmp_path / "a.json")
    b = results.save(_doc({"x": _noisy(seed=3), "y": _noisy(seed=4), "z": _noisy(seed=6)}), tmp_path / "b.json")
    p = run_cli("compare", str(a), str(b), "--verbose")
    assert p.returncode == 0, p.stderr
    flat = " ".join(p.stdout.split())
    assert ("geometric mean interval: over the 2 cases judged on their ratio to a baseline; bootstrap over shared "
            "rounds") in flat
    assert "verdict: Mann-Whitney U on one value per round" in flat and "--verbose" not in flat
    # Without --verbose: the answer first, the tables, and where the rest is.
    short = run_cli("compare", str(a), str(b))
    lines = short.stdout.splitlines()
    assert lines[2] == "3 cases compared: 0 slower, 0 faster, 3 no difference, 0 inconclusive", lines[:4]
    assert "verdict: Mann-Whitney" not in short.stdout and "geometric mean interval" not in short.stdout
    # The mean's bootstrap interval holds 95-100% (bench/compare_coverage.py --experiments): its row says so.
    assert "geometric mean (interval ≥95%)" in " ".join(short.stdout.split())
    assert lines[-1] == "how each verdict is reached, and how each mean's interval was drawn: --verbose"
    # The cases' A and B are their ratios to the baseline, the baseline's its time.
    assert "1.00x" in flat and "100 ns" in flat


def _rendered(c, width: int, verbose: bool = False) -> str:
    import io

    from rich.console import Console

    out = io.StringIO()
    comparison.render(c, Console(file=out, width=width, no_color=True), verbose=verbose)
    return out.getvalue()


@pytest.mark.parametrize("width", [80, 200])
def test_the_comparison_table_never_cuts_a_figure(width):
    names = ["c-rename-through-stdio-and-the-locale-shim", "x"]
    a = _doc({n: _noisy(seed=i) for i, n in enumerate(names)})
    b = _doc({n: _noisy(seed=i + 9, scale=1.05) for i, n in enumerate(names)})
    c = compare.compare_runs(a, b)
    text, verbose = _rendered(c, width), _rendered(c, width, verbose=True)
    for shown in (text, verbose):
        assert max(map(len, shown.splitlines())) <= width and "…" not in shown
        assert all(line == line.rstrip() for line in shown.splitlines())   # no blank cell's padding
    for row in c.experiments[0].rows:
        lo, hi = row.ci95
        d = units.ratio_decimals(row.ratio, lo, hi)
        for figure in (f"{row.ratio:.{d}f}x", f"[{lo:.{d}f}, {hi:.{d}f}]"):
            assert figure in text and figure in verbose, figure
        # where the p column does not fit beside the rest, --verbose has it
        assert f"{row.p_holm:.2g}" in verbose
    flat = " ".join(text.split())
    assert "slower" in flat
    # the long name breaks after its hyphens only: each part whole, in order
    parts = [p + "-" for p in "c-rename-through-stdio-and-the-locale-shim".split("-")]
    parts[-1] = parts[-1].rstrip("-")
    pieces = {"".join(parts[i:j]) for i in range(len(parts)) for j in range(i + 1, len(parts) + 1)}
    firsts = [line.replace("│", " ").split()[:1] for line in text.splitlines()]
    lines = [first[0] for first in firsts if first and first[0] in pieces]
    assert "".join(lines) == "c-rename-through-stdio-and-the-locale-shim", lines


def test_b_over_a_carries_the_digits_its_interval_supports():
    """A ratio and its interval are printed as a run prints its ratios: one significant digit of
    the half-width (a wide interval, one decimal; a tight one, three), and an end that keeps the
    interval clear of 1 with the digits that show it."""
    wide = compare.Row("e", "wide", 1.0, 1.0, 1.0123, (0.88, 1.14), "time")
    tight = compare.Row("e", "tight", 1.0, 1.0, 1.0512, (1.0473, 1.0561), "time")
    barely = compare.Row("e", "barely", 1.0, 1.0, 1.05, (1.0024, 1.11), "time")
    exact = compare.Row("e", "exact", 1.0, 1.0, 1.25, (1.25, 1.25), "instructions")
    assert comparison._ratio(wide) == "1.0x [0.9, 1.1]"
    assert comparison._ratio(tight) == "1.051x [1.047, 1.056]"
    assert comparison._ratio(barely) == "1.05x [1.002, 1.11]"
    assert comparison._ratio(exact) == "1.250x"


def test_each_case_takes_one_line_where_its_figures_fit():
    """At 100 columns twenty-odd cases with long names: one line a case, the interval beside its
    ratio (no outer rules). At 80 the p column gives way, so each case's figures and whole verdict
    still take one line (its name breaking after a hyphen), and the last line says --verbose has
    p; with --verbose, the ratio goes above its interval instead. Nothing past the width."""
    names = [f"case-with-a-longish-name-{i}" for i in range(20)]
    a = _doc({n: _noisy(seed=i) for i, n in enumerate(names)})
    b = _doc({n: _noisy(seed=i + 40, scale=1.01) for i, n in enumerate(names)})
    c = compare.compare_runs(a, b)
    at_100, at_80, verbose_80 = _rendered(c, 100), _rendered(c, 80), _rendered(c, 80, verbose=True)
    assert max(map(len, at_100.splitlines())) <= 100
    assert max(map(len, at_80.splitlines())) <= 80 and max(map(len, verbose_80.splitlines())) <= 80
    for row in c.experiments[0].rows:
        line = next(ln for ln in at_100.splitlines() if ln.startswith(row.case + " "))
        assert comparison._ratio(row) in line and row.verdict in line
        line = next(ln for ln in at_80.splitlines() if comparison._ratio(row) in ln)
        assert line.startswith("case-with-") and line.rstrip().endswith(row.verdict)
    def header(text):
        return next(ln for ln in text.splitlines() if ln.startswith("case "))
    assert "p (Holm)" not in header(at_80) and "each case's p (Holm)" in " ".join(at_80.split())
    assert "p (Holm)" in header(verbose_80) and "each case's p" not in verbose_80
    assert sum(ln.startswith("case-with") for ln in verbose_80.splitlines()) == 20
    assert not any(comparison._ratio(row) in verbose_80 for row in c.experiments[0].rows)


def test_at_80_columns_a_verdict_is_never_cut_beside_an_interval_of_three_decimals():
    """The widest interval line ("[0.93, 0.999]", its bracket kept with it when the ratio goes
    above it) is counted whole when the case names are given their room, so the verdict column
    keeps its longest word: it read "inconclusiv" at 80 columns."""
    import io

    from rich.console import Console

    rows = [compare.Row("e", name, 1.0, 0.97, 0.97, (0.93, 0.999), "time", p_value=0.2, p_holm=1.0,
                        verdict=verdict, to_baseline="base")
            for name, verdict in (("c-raw-syscall", "inconclusive"), ("node-renamesync-buffer", "no difference"),
                                  ("rust-fs-rename-long", "no difference"))]
    e = compare.ExperimentComparison("e", "ns", "time", rows, None, [])
    out = io.StringIO()
    Console(file=out, width=80, no_color=True).print(comparison._table(e, 80)[0])
    text = out.getvalue()
    assert max(map(len, text.splitlines())) <= 80
    assert "inconclusive" in text.split() and text.split().count("difference") == 2
    assert text.count("[0.93, 0.999]") == 3


def test_unmatched_and_failed_cases_are_listed_not_compared():
    a = _doc({"x": _noisy(seed=1), "only-a": _noisy(seed=2)})
    b = _doc({"x": _noisy(seed=1), "only-b": _noisy(seed=2)})
    b["experiments"][0]["cases"][0]["status"] = "failed"
    b["experiments"][0]["cases"][0]["reason"] = "boom"
    e = compare.compare_runs(a, b).experiments[0]
    assert e.rows == [] and "x: failed in B (boom)" in e.not_compared
    assert "only-a: not in B" in e.not_compared and "only-b: not in A" in e.not_compared


def test_machine_differences_say_how():
    a, b = _doc({"x": [1, 2]}, kernel="6.1"), _doc({"x": [1, 2]}, kernel="6.5")
    b["machine"]["tools"]["cc"] = "2"
    b["machine"]["loadavg"] = "3.0"          # the moment's load is not a different machine
    assert machine.differences(a["machine"], b["machine"]) == ["kernel: 6.1 vs 6.5", "tools.cc: 1 vs 2"]


def test_compare_cli_warns_about_machines_and_rejects_bad_input(tmp_path):
    a = results.save(_doc({"x": _noisy(seed=1)}), tmp_path / "a.json")
    b = results.save(_doc({"x": _noisy(seed=2, scale=1.05)}, kernel="6.5"), tmp_path / "b.json")
    p = run_cli("compare", str(a), str(b))
    assert p.returncode == 0, p.stderr
    assert "machines differ" in p.stdout and "kernel: 6.1 vs 6.5" in p.stdout and "slower" in p.stdout
    one = run_cli("compare", str(a))
    assert one.returncode == 2 and "needs two result files" in one.stderr
    missing = run_cli("compare", str(a), str(tmp_path / "nope.json"))
    assert missing.returncode == 2 and "no such file" in missing.stderr
    (tmp_path / "junk.json").write_text("{")
    junk = run_cli("compare", str(a), str(tmp_path / "junk.json"))
    assert junk.returncode == 2 and "not valid JSON" in junk.stderr and "Traceback" not in junk.stderr


HYPERFINE = {"results": [
    {"command": "true", "mean": 0.001, "stddev": 0.0001, "median": 0.001, "user": 0.0, "system": 0.0, "min": 0.0009,
     "max": 0.0012, "times": [0.0010, 0.0009, 0.0011, 0.0010, 0.0012], "exit_codes": [0, 0, 0, 0, 0]},
    {"command": "sleep 0.002", "mean": 0.003, "stddev": 0.0001, "median": 0.003, "user": 0.0, "system": 0.0,
     "min": 0.0029, "max": 0.0032, "times": [0.0030, 0.0029, 0.0031, 0.0030, 0.0032], "exit_codes": [0, 0, 0, 0, 0]}]}


def test_hyperfine_import_becomes_an_experiment():
    import pathlib
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        path = pathlib.Path(d) / "h.json"
        path.write_text(json.dumps(HYPERFINE))
        exp = hyperfine.experiment(path)
    assert [c["name"] for c in exp["cases"]] == ["true", "sleep 0.002"] and exp["baseline"] == "true"
    slow = exp["cases"][1]
    assert [s["ns"] for s in slow["samples"]] == [3_000_000, 2_900_000, 3_100_000, 3_000_000, 3_200_000]
    assert slow["stats"]["median"] == 3_000_000 and slow["stats"]["ratio"]["median"] == pytest.approx(3.0)


def test_import_hyperfine_cli_records_history_and_compares(tmp_path):
    path = tmp_path / "h.json"
    path.write_text(json.dumps(HYPERFINE))
    for _ in range(2):
        p = run_cli("import-hyperfine", str(path))
        assert p.returncode == 0, p.stderr
        assert "saved: " in p.stdout and "sleep 0.002" in p.stdout
    assert history_experiments(run_cli("history").stdout) == ["hyperfine", "hyperfine"]
    c = run_cli("compare", "--vs-history", "1")
    assert c.returncode == 0, c.stderr
    assert "sleep 0.002" in c.stdout and "0 slower, 0 faster, 2 no difference" in c.stdout


def test_the_saved_and_wrote_lines_keep_a_path_longer_than_the_terminal_whole(tmp_path):
    path = tmp_path / "h.json"
    path.write_text(json.dumps(HYPERFINE))
    deep = tmp_path / ("a-directory-name-longer-than-the-terminal-" * 3)
    deep.mkdir()
    out = deep / "r.json"
    p = run_cli("import-hyperfine", str(path), "--export-json", str(out),
                env={"COLUMNS": "60", "XDG_DATA_HOME": str(deep / "data")})
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    saved = next(line for line in lines if line.startswith("saved: ")).removeprefix("saved: ")
    assert json.loads(open(saved).read())["experiments"][0]["name"] == "hyperfine"
    assert f"wrote: {out}" in lines


def test_history_never_cuts_a_path_or_date_at_any_width(tmp_path):
    path = tmp_path / "h.json"
    path.write_text(json.dumps(HYPERFINE))
    first, saved = (run_cli("import-hyperfine", str(path)).stdout.split("saved: ")[1].split()[0] for _ in range(2))
    narrow = run_cli("history", "--verbose", env={"COLUMNS": "80"}).stdout     # --verbose: with the files
    assert max(map(len, narrow.splitlines())) <= max(80, len(f"    file: {saved}")) and "…" not in narrow
    assert narrow.startswith("#2  ") and f"    file: {saved}" in narrow.splitlines()
    assert f"    file: {saved}\n\n#1  " in narrow   # a blank line between runs, as git log
    wide = run_cli("history", "--verbose", env={"COLUMNS": "1000"}).stdout
    assert "│" in wide and saved in wide and first in wide and "…" not in wide
    assert history_experiments(narrow) == history_experiments(wide) == ["hyperfine", "hyperfine"]


@pytest.mark.parametrize("content, message", [
    ("{", "not valid JSON"),
    ('{"results": []}', "not a hyperfine export"),
    ('{"results": [{"command": "x"}]}', "lacks 'command' or 'times'"),
    ('{"results": [{"command": "x", "times": [-1]}]}', "seconds from 0 to a day"),
])
def test_import_hyperfine_rejects_bad_files_in_one_line(tmp_path, content, message):
    path = tmp_path / "h.json"
    path.write_text(content)
    p = run_cli("import-hyperfine", str(path))
    assert p.returncode == 2 and message in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_a_case_at_two_levels_that_moved_between_them_says_so():
    """random_r's way on the 2-vCPU VM: rounds at 1.96x and 2.10x. Where only the shares of its
    rounds at each level moved (A 8 of 30 at the upper, B 22), its rounds' distribution moved with
    no round shifted: compare calls it slower, as the rounds say, and warns that a move up to the
    gap can be the shares of the levels. Where every round moved 10%, it is slower too, with the
    same warning; a case at one level has none."""
    rng = np.random.default_rng(4)
    base = list(100.0 * (1 + 0.003 * rng.standard_normal(30)))

    def rounds(upper: int, scale: float = 1.0) -> list[float]:
        at = [1.0] * (30 - upper) + [1.075] * upper
        rng.shuffle(at)
        return [b * 1.96 * scale * u * (1 + 0.003 * rng.standard_normal()) for b, u in zip(base, at)]
    a = _doc({"base": base, "split": rounds(8)})
    shares = compare.compare_runs(a, _doc({"base": base, "split": rounds(22)})).experiments[0]
    row = next(r for r in shares.rows if r.case == "split")
    assert row.ratio > 1.05 and row.verdict == "slower", (row.ratio, row.ci95)
    assert [w for w in shares.warnings if w.startswith("split sat at two levels in ")], shares.warnings
    moved = compare.compare_runs(a, _doc({"base": base, "split": rounds(8, scale=1.10)})).experiments[0]
    row = next(r for r in moved.rows if r.case == "split")
    assert row.verdict == "slower", (row.ratio, row.ci95, row.p_holm, row.dependence)
    assert [w for w in moved.warnings if w.startswith("split sat at two levels in ")
            and "(1.96x and 2.10x to base, 7." in w], moved.warnings
    steady = _doc({"base": base, "split": [v * 1.96 for v in base]})
    assert not [w for w in compare.compare_runs(steady, steady).experiments[0].warnings if "two levels" in w]


def test_too_few_rounds_for_a_95_percent_interval_say_what_theirs_covers():
    """3 rounds a side: the widest interval, the lowest ratio of a round of B to one of A to the
    highest, covers 90% of independent rounds (2 of the 20 ways to order them fall outside it),
    87% with the drift compare allows runs this short (rank_dependence.SHORT_FACTOR); compare
    says so."""
    a = _doc({"x": [100.0, 101.0, 99.0], "y": [200.0, 203.0, 198.0]})
    b = _doc({"x": [100.0, 100.5, 99.5], "y": [210.0, 212.0, 207.0]})
    e = compare.compare_runs(a, b).experiments[0]
    row = next(r for r in e.rows if r.case == "y")
    assert row.coverage == pytest.approx(0.87, abs=0.005)      # 90%, less for the drift short runs allow
    assert [w for w in e.warnings if "too few rounds for a 95% interval (x: 3 in A, 3 in B)" in w
            and "cover as little as 87%" in w], e.warnings
    assert not [w for w in compare.compare_runs(_doc({"x": _noisy(8)}), _doc({"x": _noisy(8, seed=2)}))
                .experiments[0].warnings if "too few rounds" in w]


def test_a_round_timed_at_zero_is_not_compared_and_says_why():
    """hyperfine writes 0.0 for a run below its resolution: no ratio of rounds can be taken."""
    a, b = _doc({"x": [0.0, 1.0, 2.0, 1.0, 0.0, 1.0]}), _doc({"x": [1.0, 1.0, 2.0, 1.0, 1.5, 1.0]})
    e = compare.compare_runs(a, b).experiments[0]
    assert e.rows == [] and e.not_compared == ["x: a round timed at 0 (below the timer's resolution): no ratio"]


def test_vs_history_takes_the_earlier_run_counted_the_same_way():
    """`make run` saves a timed run and then callchain's instruction counts: `compare --vs-history
    1` after it compares the counts with the earlier counts, not with the timed run (nothing to
    compare: "A counted time, B counted instructions"), and a timed run with the earlier timed run."""
    from layertax.commands import compare as comparing
    from layertax.commands import runref
    from layertax.engine.store import runs

    def saved(metric: str, created: str) -> runref.Run:
        doc = _doc({"x": _noisy(seed=1), "y": _noisy(seed=2)}, created=created)
        doc["settings"] = {"metric": metric} if metric != "time" else {}
        path = runs.save_run(doc)
        return runref.Run(str(path), results.load(path), path)

    timed = saved("time", "2026-01-01T00:00:00+00:00")
    counted = saved("instructions", "2026-01-01T00:01:00+00:00")
    timed_again = saved("time", "2026-01-01T00:02:00+00:00")
    counted_again = saved("instructions", "2026-01-01T00:03:00+00:00")
    assert comparing._earlier(counted_again, 1).path == counted.path
    assert comparing._earlier(timed_again, 1).path == timed.path
    with pytest.raises(Exception, match="no 2nd earlier run of demo counted in instructions"):
        comparing._earlier(counted_again, 2)
