"""`inspect` with and without the launch timer's primers, alternately, on the same programs.

inspect launches a program, its LD_BIND_NOW variant and four controls (empty programs, a
generated reference) in shuffled rounds. Without primers each launch follows another
variant's and inherits what that one left behind (bench/carry_over.py). For each program
(python3, git, perl, where present) this runs inspect REPEAT times with 0 primers and
REPEAT times with layertax's own number, alternating, and prints per run: the empty
control's median spawn->exit and IQR/median, the program's IQR/median, the stamp
preload's cost with its 95% interval, and the width of each stage's 95% interval in the
split of spawn->main (lazy binding); then the medians over the runs of each mode.

Not a test: it measures, and these machines are shared.

    .venv/bin/python bench/inspect_primers.py [--repeat 4] [--runs 30]
"""
from __future__ import annotations

import argparse
import shutil
import sys

import numpy as np

from launch_vs_hyperfine import iqr_over_median   # this folder's
from layertax.inspect.run import inspect
from layertax.launch import settings as launch_settings
from layertax.progress import NoProgress

PROGRAMS = ("python3", "git", "perl")
STAGES = {"exec + kernel": "exec", "ld.so: loading objects": "load", "ld.so: relocation + lookups": "reloc",
          "ld.so: start-up work any program pays": "any", "ld.so: other work for this program": "other"}


def spread(samples: list[dict], key: str = "exit_ns") -> tuple[float, float]:
    """Median (µs) and IQR/median of one case's samples."""
    v = [s[key] / 1e3 for s in samples if s.get(key) is not None]
    return float(np.median(v)), iqr_over_median(v)


def one_run(program: str, runs: int, primers: int) -> dict:
    launch_settings.PRIMERS = primers    # what timer.run passes to the timer
    settings = launch_settings.LaunchSettings.from_options(runs=runs, warmup=1, timeout=10.0, seed=None)
    r = inspect(program, [], settings, None, False, NoProgress, lambda message: None, keep_calibration=False)
    empty = next(c for c in r["controls"] if c["name"] == "empty (no preload)")
    lazy = next(c for c in r["cases"] if c["name"] == "lazy")
    cost = r["preload_cost"]
    # A stage within noise has no interval, only its ±x: its width is 2x.
    widths = {STAGES[p["part"]]: (p["ci95"][1] - p["ci95"][0] if p.get("ci95") else 2 * p["within_noise_ns"]) / 1e3
              for p in r["split"]["lazy"]["parts"] if p["part"] in STAGES}
    return {"empty": spread(empty["samples"]), "program": spread(lazy["samples"], "main_ns"),
            "cost": (cost["median_ns"] / 1e3, cost["ci95"][0] / 1e3, cost["ci95"][1] / 1e3), "widths": widths}


def row(label: str, x: dict) -> str:
    cost = x["cost"]
    return (f"{label:<22} {x['empty'][0]:>6.0f} {x['empty'][1]:>6.3f} {x['program'][1]:>6.3f} "
            f"{cost[0]:>6.1f} [{cost[1]:>6.1f}, {cost[2]:>6.1f}] "
            + " ".join(f"{x['widths'].get(s, float('nan')):>6.0f}" for s in STAGES.values()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=4, help="inspect runs per program and mode")
    parser.add_argument("--runs", type=int, default=30, help="launches per variant (inspect's default)")
    args = parser.parse_args()
    modes = (0, launch_settings.PRIMERS)
    print(f"inspect, {args.runs} launches per variant; empty: the empty control's spawn->exit (median µs, "
          f"IQR/median); prog: the program's spawn->main IQR/median; stamp: the preload's cost, µs [95% CI]; "
          f"then the width of each stage's 95% CI, µs")
    print(f"{'program, primers, run':<22} {'empty':>6} {'IQR/m':>6} {'prog':>6} {'stamp':>6} {'[95% CI]':>16} "
          + " ".join(f"{s:>6}" for s in STAGES.values()))
    for name in PROGRAMS:
        program = shutil.which(name)
        if program is None:
            continue
        got: dict[int, list[dict]] = {m: [] for m in modes}
        for rep in range(args.repeat):
            for primers in (modes if rep % 2 == 0 else modes[::-1]):
                got[primers].append(one_run(program, args.runs, primers))
                print(row(f"{name}, {primers}, {rep + 1}", got[primers][-1]), flush=True)
        for primers in modes:
            xs = got[primers]
            summary = {"empty": (np.median([x["empty"][0] for x in xs]), np.median([x["empty"][1] for x in xs])),
                       "program": (0.0, np.median([x["program"][1] for x in xs])),
                       "cost": tuple(np.median([x["cost"][i] for x in xs]) for i in range(3)),
                       "widths": {s: np.median([x["widths"].get(s, np.nan) for x in xs]) for s in STAGES.values()}}
            print(row(f"{name}, {primers}, median", summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
