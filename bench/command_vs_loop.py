"""Where the spread of a `layertax launch` run comes from: the whole command, its timer run by
a parent already started, and a bare loop, in rotated turns, compared pair by pair.

Three ways of timing the same empty program (those of bench/launch_vs_hyperfine.py), RUNS
launches each after 5 warm-ups:
- command: `layertax launch --no-stamp`, a new Python process each turn (its start, its
  imports, its claim on the machine, its analysis, as a user runs it);
- timer: loader.launch.run() called from this process, which is started already: the
  timer binary with the argv, session, priority and CPU the command gives it, and the
  parent's off-CPU sleep and pidfd wait around it;
- loop: the bare loop of bench/bare_loop.py (posix_spawn + waitpid, pinned, nothing else).
Each turn runs all three, in the next of the six orders, so none is always first or last.
Per program it prints each one's IQR/median (median and 90th percentile over turns) and
median, then per pair the median log ratio of IQR/median (negative: the first is
tighter), in how many turns the first was lower, and a Wilcoxon signed-rank p; the same for
the IQR in µs (a way with a lower median has a higher IQR/median for the same IQR) and for
the medians. A difference the command has and the timer has not lies in the Python
process around it; one the timer has and the loop has not lies in the timer.

Not a test: it measures, and these machines are shared.

    .venv/bin/python bench/command_vs_loop.py [--runs 300] [--turns 120]
"""
from __future__ import annotations

import argparse
import itertools
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

from bare_loop import bare_times, build_bare_loop   # this folder's
from launch_vs_hyperfine import build_empty, iqr_over_median, layertax_times
from layertax import paths
from layertax.launch import timer
from layertax.launch import settings as launch_settings
from layertax.launch import tools as launch_tools

WAYS = ("command", "timer", "loop")
PAIRS = (("command", "loop"), ("timer", "loop"), ("command", "timer"))


def timer_times(program: Path, runs: int, tools: launch_tools.LaunchTools) -> list[float]:
    """spawn->exit, µs, of the measured launches of one loader.launch.run() as `launch` makes it."""
    settings = launch_settings.LaunchSettings.from_options(runs=runs, warmup=5, timeout=10.0, seed=None)
    run = timer.run([launch_settings.Target(program.name, (str(program),))], settings, tools)
    return [x["exit_ns"] / 1e3 for x in run.launches if x["status"] == "ok"]


def paired(first: list[float], second: list[float]) -> tuple[float, int, float]:
    """The median log ratio first / second, the turns in which first was lower, and a Wilcoxon p."""
    from scipy.stats import wilcoxon   # here: ~0.5 s to load
    logs = np.log(first) - np.log(second)
    return float(np.median(logs)), int(np.sum(logs < 0)), float(wilcoxon(logs).pvalue)


def rotated_turns(name: str, measure: dict, turns: int) -> dict[str, list[list[float]]]:
    """Each way of `measure` (name -> a function giving one turn's samples) once per turn, in
    the next of their orders, so that none is always first or last; progress on stderr. Each
    way's samples, turn by turn. Up to four ways, every order in turn (24 at most); more ways
    have too many orders to go round (the first 120 of seven all begin with the same two), so
    each turn shifts the ways by one, and every other cycle runs them backwards: each way is
    in each place, and after each other way, equally often over 2 x len(ways) turns."""
    ways = list(measure)
    if len(ways) <= 4:
        orders = list(itertools.permutations(ways))
    else:
        shifted = [ways[i:] + ways[:i] for i in range(len(ways))]
        orders = shifted + [order[::-1] for order in shifted]
    got: dict[str, list[list[float]]] = {way: [] for way in measure}
    for turn in range(turns):
        for way in orders[turn % len(orders)]:
            got[way].append(measure[way]())
        if sys.stderr.isatty():
            print(f"\r{name}: turn {turn + 1}/{turns}", end="", file=sys.stderr, flush=True)
        elif (turn + 1) % 20 == 0 or turn + 1 == turns:   # piped: a line now and then
            print(f"{name}: turn {turn + 1}/{turns}", file=sys.stderr, flush=True)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    return got


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300, help="launches per turn of each way")
    parser.add_argument("--turns", type=int, default=120, help="turns per program (each runs all three ways)")
    args = parser.parse_args()
    if args.turns < 6:
        parser.error("--turns must be at least 6 (one of each order)")
    cpu = sorted(os.sched_getaffinity(0))[-1]
    tools = launch_tools.tools(paths.cache_dir())
    print(f"spawn->exit, µs; {args.turns} turns of {args.runs} launches per way, orders rotated; loop on cpu {cpu}")
    with tempfile.TemporaryDirectory(prefix="layertax-bench-") as tmp:
        work = Path(tmp)
        loop = build_bare_loop(work)
        for static in (True, False):
            program = build_empty(work, static=static)
            name = "static" if static else "dynamic"
            measure = {"command": lambda: layertax_times(program, args.runs, 5, work),
                       "timer": lambda: timer_times(program, args.runs, tools),
                       "loop": lambda: bare_times(loop, program, args.runs, cpu)}
            turns = rotated_turns(name, measure, args.turns)
            spread = {w: [iqr_over_median(values) for values in turns[w]] for w in WAYS}
            median = {w: [float(np.median(values)) for values in turns[w]] for w in WAYS}
            for way in WAYS:
                print(f"{name:<8} {way:<8} IQR/median {np.median(spread[way]):.4f} "
                      f"(90th percentile {np.percentile(spread[way], 90):.4f}), median {np.median(median[way]):.1f}")
            for a, b in PAIRS:
                iqr = {w: np.multiply(spread[w], median[w]) for w in (a, b)}
                for label, first, second in (("IQR/median", spread[a], spread[b]), ("IQR (µs)", iqr[a], iqr[b]),
                                             ("median", median[a], median[b])):
                    log, won, p = paired(first, second)
                    print(f"{name if label == 'IQR/median' else '':<8} {a}/{b}: {label} log ratio {log:+.4f}, "
                          f"{a} lower in {won}/{args.turns} (p {p:.3f})")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
