"""The launch timer against the least a launch timer can be, side by side in one run: how
much of spawn->exit is the timer's own.

The bare loop (bench/_common.py) is what a hand-written timer would be: pinned to a CPU,
glibc's posix_spawn with stdio on /dev/null, waitpid, CLOCK_MONOTONIC around the two, the
samples kept in memory and printed at the end. No stamp pipes, no run-queue reads, no JSON
lines, no primers or placement. Per program (the empty ones of bench/launch_vs_hyperfine.py),
the timer (native/ as in the working tree, on the same CPU, --no-stamp's spec) and the loop
run alternately REPEAT times, RUNS launches each after 5 warm-ups, and the bench prints both
medians, both IQR/median and the ratio timer / loop; over all repeats, how many turns of each
changed level while they ran (layertax's level-shift test). With --command the first column
is the whole `layertax launch --no-stamp` command (the Python parent, its start, its polling)
rather than the timer binary alone.

Not a test: it measures, and these machines are shared.

    .venv/bin/python bench/timer_vs_bare_loop.py [--runs 300] [--repeat 8] [--command]
"""
from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

import numpy as np

from layertax import paths
from layertax.engine.analysis.level_shift import level_shift
from layertax.launch import tools as launch_tools
from _common import alternating, bare_times, build_bare_loop, empty_specs, finish, layertax_times, print_turns, timer_times   # this folder's


def shifts_counted(measure, shifted: list[bool]):
    """measure, noting in `shifted` whether each turn's samples changed level."""
    def counted() -> list[float]:
        values = measure()
        shifted.append(level_shift(values) is not None)
        return values
    return counted


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300, help="launches per invocation")
    parser.add_argument("--repeat", type=int, default=8, help="invocations of each per program")
    parser.add_argument("--command", action="store_true",
                        help="time whole `layertax launch --no-stamp` commands, not the timer binary")
    args = parser.parse_args()
    cpu = sorted(os.sched_getaffinity(0))[-1]
    with tempfile.TemporaryDirectory(prefix="layertax-bench-") as tmp:
        work = Path(tmp)
        timer = None if args.command else launch_tools.tools(paths.cache_dir()).timer   # as layertax builds it
        loop = build_bare_loop(work)
        first = "`layertax launch --no-stamp`" if args.command else "the timer"
        print(f"spawn->exit, µs; {args.repeat} alternating invocations of {args.runs} launches each, cpu {cpu}; "
              f"timer: {first}")
        print(f"{'program':<8} {'rep':>3} {'timer':>7} {'loop':>7} {'ratio':>6} {'IQR/med timer':>14} {'loop':>6}")
        for name, program, spec in empty_specs(work):
            shifted = ([], [])
            ours = ((lambda: layertax_times(program, args.runs, 5, work)) if args.command
                    else (lambda: timer_times(timer, spec, args.runs, cpu, work / "out.jsonl")))
            repeats = alternating(shifts_counted(ours, shifted[0]),
                                  shifts_counted(lambda: bare_times(loop, program, args.runs, cpu), shifted[1]),
                                  args.repeat)
            ratios, spreads = print_turns(name, repeats, lambda a, b: a / b, (7, 7, 14, 6))
            print(f"{name:<8} all: timer / loop, median of ratios {np.median(ratios):.3f} "
                  f"({min(ratios):.3f}-{max(ratios):.3f}); IQR/median, median {np.median(spreads[0]):.3f} against "
                  f"{np.median(spreads[1]):.3f}, 90th percentile {np.percentile(spreads[0], 90):.3f} against "
                  f"{np.percentile(spreads[1], 90):.3f}, max {max(spreads[0]):.3f} against {max(spreads[1]):.3f}; "
                  f"turns that changed level {sum(shifted[0])} against {sum(shifted[1])}")
    return 0


if __name__ == "__main__":
    finish(main)
