"""What a pause before a launch does to it: the bare C loop of bench/bare_loop.py, pinned,
spinning on the clock for PAUSE µs before each launch (outside the timed interval), on an
empty static and an empty dynamic program, `ssh -V` and `python3 -c pass`.

Why it matters: the launch timer starts each launch clear of the CPU's periodic
interruptions (native/ticks.h), and the wait for room is such a pause. The loop never
sleeps: the CPU spins, as the timer's does, so what a pause changes is time alone.

The pauses run in rotated orders within each turn (bench/command_vs_loop.py); per program
it prints each pause's median of turn medians, the median ratio of its turn medians to those
without a pause (taken as the median log ratio), in how many turns it was slower, a
Wilcoxon p, and the median IQR/median of its turns. Not a test: it measures, and these
machines are shared.

    .venv/bin/python bench/pause_before_launch.py [--runs 150] [--turns 12]
                                                  [--pauses 0,100,250,500,1000,2000,4000]
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

from bare_loop import bare_times, build_bare_loop      # this folder's
from command_vs_loop import paired, rotated_turns
from launch_vs_hyperfine import build_empty, iqr_over_median


def programs(work: Path) -> dict[str, tuple[Path, tuple[str, ...]]]:
    """name -> (program, its arguments): the empty ones built here, the others where installed."""
    found = {"static": (build_empty(work, static=True), ()), "dynamic": (build_empty(work, static=False), ())}
    for name, argv in (("ssh -V", ("ssh", "-V")), ("python3 -c pass", ("python3", "-c", "pass"))):
        path = shutil.which(argv[0])
        if path:
            found[name] = (Path(path), argv[1:])
        else:
            print(f"{argv[0]} is not installed: its row is left out", file=sys.stderr)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=150, help="launches per turn of each pause")
    parser.add_argument("--turns", type=int, default=12, help="turns per program (each runs every pause)")
    parser.add_argument("--pauses", default="0,100,250,500,1000,2000,4000",
                        help="µs spun before each launch, comma-separated; the first is the reference")
    args = parser.parse_args()
    try:
        pauses = [int(x) for x in args.pauses.split(",")]
    except ValueError:
        parser.error(f"--pauses {args.pauses!r}: whole µs, comma-separated")
    if len(pauses) < 2 or min(pauses) < 0 or max(pauses) > 100_000:
        parser.error("--pauses: at least two, each 0 to 100000 µs")
    if args.turns < 6 or args.runs < 20:
        parser.error("--turns at least 6 and --runs at least 20 (a Wilcoxon p and a median per turn)")
    cpu = sorted(os.sched_getaffinity(0))[-1]
    print(f"spawn->exit, µs; the bare loop on cpu {cpu}, {args.turns} turns of {args.runs} launches per pause, "
          f"orders rotated; ratios to a pause of {pauses[0]} µs")
    print(f"{'program':<16} {'pause µs':>8} {'median':>8} {'ratio':>6} {'slower':>7} {'p':>6} {'IQR/med':>8}")
    with tempfile.TemporaryDirectory(prefix="layertax-bench-") as tmp:
        work = Path(tmp)
        loop = build_bare_loop(work)
        for name, (program, extra) in programs(work).items():
            measure = {pause: (lambda pause=pause: bare_times(loop, program, args.runs, cpu, "spawn", pause * 1000,
                                                              extra)) for pause in pauses}
            turns = rotated_turns(name, measure, args.turns)
            median = {p: [float(np.median(values)) for values in turns[p]] for p in pauses}
            spread = {p: [iqr_over_median(values) for values in turns[p]] for p in pauses}
            for pause in pauses:
                row = f"{name if pause == pauses[0] else '':<16} {pause:>8} {np.median(median[pause]):>8.0f} "
                if pause == pauses[0]:
                    row += f"{'':>6} {'':>7} {'':>6} "
                else:
                    log, lower, p = paired(median[pause], median[pauses[0]])
                    row += f"{np.exp(log):>6.3f} {args.turns - lower:>3}/{args.turns:<3} {p:>6.3f} "
                print(row + f"{np.median(spread[pause]):>8.3f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
