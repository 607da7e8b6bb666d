"""bench/'s scripts measure layertax itself and are run by hand, so nothing else notices when a
change to the package leaves one behind. Each must at least import against today's package and
answer --help with its usage (bench/README.md promises it), without measuring anything."""
import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"
SCRIPTS = sorted(p for p in BENCH.glob("*.py") if not p.name.startswith("_"))

# One interpreter for all of them (an interpreter each would take a second apiece): each script
# runs as __main__ with --help, which argparse answers with exit 0 before any work.
RUN_EACH = """
import contextlib, io, json, runpy, sys
sys.path.insert(0, sys.argv[1])
answers = {}
for script in sys.argv[2:]:
    sys.argv = [script, "--help"]
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(script, run_name="__main__")
        answers[script] = ["no exit", out.getvalue()]
    except SystemExit as done:
        answers[script] = [done.code, out.getvalue()]
    except Exception as error:
        answers[script] = [repr(error), out.getvalue()]
print(json.dumps(answers))
"""


def test_every_bench_script_imports_and_answers_help_without_measuring():
    assert len(SCRIPTS) >= 20
    done = subprocess.run([sys.executable, "-c", RUN_EACH, str(BENCH), *map(str, SCRIPTS)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    answers = json.loads(done.stdout.strip().splitlines()[-1])
    for script in SCRIPTS:
        code, text = answers[str(script)]
        assert code == 0, f"{script.name}: {code}"
        assert text.startswith("usage: ") and "-h, --help" in text, f"{script.name}: {text[:200]}"


def _bench(name: str):
    """A bench script imported as a module (it imports _common from its own folder)."""
    import importlib

    sys.path.insert(0, str(BENCH))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(BENCH))


def _ratio(median, low, high):
    return {"median": median, "ci95": [low, high]}


def test_run_reach_counts_the_main_tables_and_the_classics_as_the_marks_read_them():
    """bench/run_reach.py gives the rows of the table in docs/method/measurement.md: a ratio is
    within the target when half its interval over its median is; an extended group is not a main
    table; the classic table's own baseline is not counted."""
    run_reach = _bench("run_reach")
    case = lambda name, ratio, group="": {"name": name, "status": "ok", "group": group, "stats": {"ratio": ratio}}
    doc = {"experiments": [{
        "name": "x", "baseline": "base", "groups": [{"name": "more", "extended": True}],
        "cases": [case("base", _ratio(1.0, 1.0, 1.0)), case("tight", _ratio(2.0, 1.97, 2.04)),
                  case("wide", _ratio(2.0, 1.9, 2.1)), case("other", _ratio(3.0, 2.9, 3.1), "more"),
                  {"name": "broken", "status": "failed", "group": "", "stats": None}],
        "stopping": {"cases": {"wide": {"rounds": 56, "stopped": "max rounds"}}},
        "classic_now": [{"counterpart": "base", "now_ratio": _ratio(1.0, 1.0, 1.0)},
                        {"counterpart": "tight", "now_ratio": _ratio(2.0, 1.97, 2.04)},
                        {"counterpart": "wide", "now_ratio": _ratio(2.0, 1.75, 2.25)},
                        {"counterpart": None, "now_ratio": None}]}]}
    per_experiment, classics, misses = run_reach.reach(doc, 0.02)
    assert per_experiment == [("x", 2, 3)]          # base (exactly 1) and tight (±1.75%); not wide (±5%)
    assert classics == (1, 2)                        # tight within ±5%, wide (±12.5%) not; base not counted
    assert misses == ["x/wide: ±5.0% after 56 rounds (max rounds)"]


def test_a_bench_given_a_file_that_is_not_a_result_says_so_in_one_line(tmp_path, capsys, monkeypatch):
    """Every bench that reads saved runs reads them through _common.read_run, as layertax reads a
    result: a file that is not one ends the bench with one line naming it, status 2, no traceback."""
    run_reach = _bench("run_reach")
    for text in ("not json at all\n", '{"schema": "layertax/1"', '{"experiments": []}'):
        path = tmp_path / "bad.json"
        path.write_text(text)
        monkeypatch.setattr(sys, "argv", ["run_reach.py", str(path)])
        try:
            run_reach.main()
        except SystemExit as done:
            assert done.code == 2
        else:
            raise AssertionError(f"read {text!r} as a result")
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "run_reach: " in err and str(path) in err, err


def test_a_bench_whose_reader_went_away_ends_quietly():
    """`bench/run_reach.py RUN.json | head -1`: the reader leaves before the bench has written
    all; the bench ends as a filter does (status 1, no traceback), through _common.finish."""
    import os

    read, write = os.pipe()
    os.close(read)                                   # the reader is gone before the first line
    try:
        done = subprocess.run([sys.executable, str(BENCH / "run_reach.py"), "--misses",
                               str(BENCH.parent / "tests" / "data" / "recorded" / "callchain.json")],
                              stdout=write, stderr=subprocess.PIPE, text=True, timeout=60)
    finally:
        os.close(write)
    assert done.returncode == 1 and "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr


def test_run_designs_takes_the_baseline_again_over_k_of_its_bursts_in_the_same_rounds():
    """--baseline-subsets: a baseline of four bursts a round, the first slow in every other round,
    a case as steady as it gets. Over one burst (the slowest, first by its place) every ratio
    carries the baseline's alternating noise; over all four it is the run's own ratio. Each
    row's round cost leaves out the bursts it does not take."""
    import numpy as np

    designs = _bench("run_designs")
    rng = np.random.default_rng(3)
    base, case = [], []
    for r in range(12):
        slow = 1.0 + 0.3 * (r % 2)                      # the first burst swings from round to round
        for slot, ns in enumerate((slow, 1.0, 1.0, 1.0)):
            base.append({"round": r, "slot": slot, "iters": 1, "ops": 1, "ns": int(ns * 1e9)})
        case.append({"round": r, "slot": 9, "iters": 1, "ops": 1, "ns": int(2e9 * (1 + 0.001 * rng.random()))})
    exp = {"name": "x", "baseline": "b", "groups": [], "metric": "time",
           "cases": [{"name": "b", "status": "ok", "samples": base}, {"name": "c", "status": "ok", "samples": case}],
           "stopping": {"rounds_s": 12 * 6.0, "cases": {"b": {"rounds": 12, "burst_s": 1.0}, "c": {"rounds": 12}}}}
    rows = designs.baseline_subsets(exp)
    assert [k for k, _, _ in rows] == [1, 2, 3, 4]
    assert [cost for _, _, cost in rows] == [3.0, 4.0, 5.0, 6.0]
    assert rows[0][1] > 0.1 and rows[3][1] < 0.01
    whole = designs.log_ratios(exp)                       # the run as measured: all four bursts
    assert rows[3][1] == designs.noise_probe.spread(whole["c"])
    exp["cases"][0]["samples"] = [s for s in base if s["slot"] == 1]      # one burst a round: no subsets
    assert designs.baseline_subsets(exp) == []


def test_compare_coverage_judges_a_case_on_every_cpu_as_compare_does_without_history():
    """A recorded experiment of two steady cases, the second on every CPU and at another level in
    each stretch of 8 rounds (a move between runs that no stretch shows). Without history compare
    widens only that case, by EVERY_CPU_TAU; the history rows count it apart; and the spread
    between stretches the prior stands for is found for it alone."""
    import numpy as np

    cover = _bench("compare_coverage")
    rng = np.random.default_rng(5)
    steady = np.exp(rng.normal(0, 0.01, 48))
    levels = np.repeat(np.exp(rng.normal(0, 0.15, 6)), 8)
    moving = (levels * np.exp(rng.normal(0, 0.01, 48))).view(cover.EveryCpu)
    assert isinstance(moving[8:16], cover.EveryCpu)                       # a stretch keeps the tag
    rows = cover.judged([steady[:8], moving[:8]], [steady[8:16], moving[8:16]])
    assert [r.every_cpu for r in rows] == [False, True]
    assert [r.between_runs for r in rows] == [0.0, cover.compare.EVERY_CPU_TAU] and rows[1].prior_spread
    shares, counts = cover.with_history([[steady, moving]], 8, 40, seed=1)
    assert counts == {"cases": 2, "means": 1, "every": 1}
    assert set(shares) == set(cover.HISTORY_SHARES) and all(0 <= v <= 1 for v in shares.values())
    assert shares["every CPU, no history"] >= shares["every CPU, rounds only"]
    assert cover.every_cpu_spread([[steady, moving]], 8) > 0.05
    assert np.isnan(cover.every_cpu_spread([[steady, steady.copy()]], 8))


def test_compare_coverage_counts_every_pair_of_whole_stretches_once_by_how_far_apart():
    """A recorded experiment of 48 rounds cut into stretches of 8: its 15 pairs, each once, sorted
    by how many rounds apart they start; a steady experiment's intervals hold 1 in every pair, and
    an experiment whose later half sits 30% higher misses in the pairs that cross it. The share
    of held geometric means carries its Wilson interval."""
    import numpy as np

    cover = _bench("compare_coverage")
    rng = np.random.default_rng(7)
    steady = [np.exp(rng.normal(0, 0.01, 48)) for _ in range(3)]
    pairs = list(cover.every_pair([steady], 8))
    assert len(pairs) == 15 and sorted({apart for _, _, apart in pairs}) == [8, 16, 24, 32, 40]
    assert all(len(a) == len(b) == 3 and a[0].size == 8 for a, b, _ in pairs)
    by_gap = cover.held_by_gap([steady], 8)
    assert len(by_gap) == len(cover.GAPS) and sum(total for _, total in by_gap) == 45
    assert sum(hits for hits, _ in by_gap) >= 40                          # steady: about 95% hold
    assert cover.resampled_means([steady], 8)[1] == 15
    stepped = [r * np.r_[np.ones(24), np.full(24, 1.3)] for r in steady]
    crossing = sum(hits for hits, _ in cover.held_by_gap([stepped], 8))
    assert crossing <= 45 - 3 * 9                                         # 3 x 3 pairs cross the step
    hits, total = cover.resampled_means([stepped], 8)
    assert total == 15 and hits <= 15 - 9
    low, high = cover.share_interval(hits, total)
    assert low < hits / total < high and 0 < low and high < 1
    assert all(np.isnan(cover.share_interval(0, 0)))
    assert list(cover.every_pair([[steady[0][:15]]], 8)) == []            # too short for two stretches
