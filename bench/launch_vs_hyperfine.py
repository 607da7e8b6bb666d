"""layertax's launch timer against hyperfine on the same empty programs, in one run.

Builds `int main(void){return 0;}` twice (gcc -O2 -static, and dynamic), then for each
program runs `layertax launch --no-stamp` and `hyperfine -N` alternately, PAIRS times each,
with the same number of launches, and prints both medians of spawn->exit, both IQR/median
and their ratios, and whether each tool's turn changed level while it ran (a stretch of
slower launches: layertax's level-shift test on the turn's samples in launch order, the
size of the shift or "-"), and how many of layertax's launches waited for their CPU (another
task held it: the timer's run-queue reading, the `preempted` of each sample). With --chunks N the two tools alternate N times within each pair (runs / N
launches per invocation, samples pooled per tool), so that the machine's drift during a pair
hits both alike, as layertax's own rounds do; the default, 1, is the issue's protocol: one
invocation of each tool per pair.
With --contender bare, the bare C loop of bench/_common.py (pinned posix_spawn + waitpid,
nothing else; 5 warm-ups) takes layertax's place: what the least a timer can be does against
hyperfine under the same protocol, so a reader can tell the machine's share of the misses.
--layertax-warmup-time S is passed to `layertax launch` (0: a warm-up of rounds only, as
before the warm-up had a least time), so runs with and without it can be compared; so is
--no-dodge (each launch started at once, as hyperfine does, instead of clear of the pinned
CPU's periodic interruptions), so a reader can see what dodging them does to the target.
Target (issue 23): layertax's median <= hyperfine's and its IQR/median <= hyperfine's in
every pair. Not a test: it measures, and these machines are shared.

    .venv/bin/python bench/launch_vs_hyperfine.py [--runs 300] [--pairs 5] [--chunks 1]
                                                  [--contender layertax|bare]
                                                  [--layertax-warmup-time S] [--no-dodge]
"""
from __future__ import annotations

import argparse
import functools
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

import numpy as np

from layertax.engine.analysis.level_shift import level_shift
from _common import SETTLED, bare_times, build_bare_loop, build_empty, finish, hyperfine_turn, iqr_over_median, layertax_turn, shift_label   # this folder's


def bare_contender(work: Path):
    """The bare loop (bench/_common.py) with layertax_turn's signature, pinned to the CPU
    layertax's timer would use (the last); its warm-up is its own 5."""
    loop, cpu = build_bare_loop(work), sorted(os.sched_getaffinity(0))[-1]

    def times(program: Path, runs: int, _warmup: int, _work: Path) -> tuple[list[float], None]:
        return bare_times(loop, program, runs, cpu), None
    return times


class Outcome(NamedTuple):
    """One pair: the target met, whether each tool's turn changed level (in all its launches,
    and after its first SETTLED, which leaves out a start-of-invocation transient), and how
    many of the contender's launches waited for their CPU (None: not known)."""
    met: bool
    shifted: bool
    hf_shifted: bool
    shifted_later: bool
    hf_shifted_later: bool
    waited: int | None


def print_totals(outcomes: list[Outcome], contender: str) -> None:
    """The target's count, how often each tool's turn changed level, the target's count in the
    pairs where the contender's turn (layertax's, or the bare loop's) held one level; then what
    the missed pairs' contender turns met."""
    def count(field: str) -> int:
        return sum(1 for o in outcomes if getattr(o, field))
    print(f"target met in {count('met')} of {len(outcomes)} pairs")
    print(f"a level shift in {contender}'s turn in {count('shifted')} pairs, in hyperfine's in {count('hf_shifted')}; "
          f"after the first {SETTLED} launches, in {count('shifted_later')} and {count('hf_shifted_later')}")
    steady = [o.met for o in outcomes if not o.shifted]
    print(f"pairs where {contender}'s turn held one level: target met in {sum(steady)} of {len(steady)}")
    missed = [o for o in outcomes if not o.met]
    if missed:
        line = f"missed pairs: {len(missed)}; in {contender}'s turn a level shift in {sum(o.shifted for o in missed)}"
        if all(o.waited is not None for o in missed):   # the bare loop does not read run-queue waits
            line += (f", launches that waited for their CPU in {sum(1 for o in missed if o.waited)}, "
                     f"neither in {sum(1 for o in missed if not o.shifted and not o.waited)}")
        print(line)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300, help="launches per tool per pair")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--chunks", type=int, default=1,
                        help="invocations per tool within a pair, alternating (runs are split among them)")
    parser.add_argument("--layertax-warmup-time", type=float, metavar="S",
                        help="layertax's --warmup-time (default: the command's; 0 warms up by rounds only, "
                             "as before 3293e23)")
    parser.add_argument("--no-dodge", action="store_true",
                        help="layertax launch --no-dodge: start each launch at once, as hyperfine does")
    parser.add_argument("--contender", choices=("layertax", "bare"), default="layertax",
                        help="what runs against hyperfine: layertax launch, or the bare C loop (5 warm-ups)")
    args = parser.parse_args()
    if args.contender == "bare" and args.warmup != 5:
        parser.error("--contender bare: the bare loop's warm-up is fixed at 5 launches")
    if args.contender == "bare" and args.no_dodge:
        parser.error("--no-dodge is layertax's: the bare loop always starts at once")
    if not shutil.which("hyperfine"):
        print("hyperfine is not installed (Debian: apt-get install hyperfine)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="layertax-bench-") as tmp:
        work = Path(tmp)
        programs = {"static": build_empty(work, static=True), "dynamic": build_empty(work, static=False)}
        if args.contender == "layertax":
            contender = functools.partial(layertax_turn, warmup_time=args.layertax_warmup_time,
                                          dodge=not args.no_dodge)
        else:
            contender = bare_contender(work)
        per_chunk = max(1, args.runs // args.chunks)
        chunks = f" ({args.chunks} alternating invocations of {per_chunk})" if args.chunks > 1 else ""
        if args.layertax_warmup_time is not None:
            chunks += f", layertax --warmup-time {args.layertax_warmup_time:g}"
        if args.no_dodge:
            chunks += ", layertax --no-dodge"
        tag = "lt" if args.contender == "layertax" else "bl"   # bl: the bare loop
        print(f"{args.pairs} pairs x {per_chunk * args.chunks} launches per tool{chunks}, spawn->exit, medians in µs; "
              f"{args.contender} first in odd pairs, hyperfine first in even ones")
        print(f"{'program':8} {'pair':>4} {args.contender:>9} {'hyperfine':>9} {'ratio':>6}   "
              f"{'IQR/med ' + tag:>10} {'IQR/med hf':>10} {'ratio':>6}  {'shift ' + tag:>8} {'hf':>4} "
              f"{'waited':>6}  target")
        outcomes = []
        for name, program in programs.items():
            for pair in range(1, args.pairs + 1):
                tools = [("lt", contender), ("hf", hyperfine_turn)]
                if pair % 2 == 0:
                    tools.reverse()
                got: dict[str, list[float]] = {"lt": [], "hf": []}
                waited: int | None = None   # the contender's launches that waited for their CPU
                for _ in range(args.chunks):
                    for label, measure in tools:
                        times, turn_waited = measure(program, per_chunk, args.warmup, work)
                        got[label] += times
                        if label == "lt" and turn_waited is not None:
                            waited = (waited or 0) + turn_waited
                lt_med, hf_med = float(np.median(got["lt"])), float(np.median(got["hf"]))
                lt_iqr, hf_iqr = iqr_over_median(got["lt"]), iqr_over_median(got["hf"])
                met = lt_med <= hf_med and lt_iqr <= hf_iqr
                shifts = {label: level_shift(got[label]) for label in got}
                later = {label: level_shift(got[label][SETTLED:]) is not None for label in got}
                outcomes.append(Outcome(met, shifts["lt"] is not None, shifts["hf"] is not None, later["lt"],
                                        later["hf"], waited))
                print(f"{name:8} {pair:>4} {lt_med:>9.0f} {hf_med:>9.0f} {lt_med / hf_med:>6.3f}   "
                      f"{lt_iqr:>10.3f} {hf_iqr:>10.3f} {lt_iqr / hf_iqr:>6.2f}  {shift_label(shifts['lt']):>8} "
                      f"{shift_label(shifts['hf']):>4} {'-' if waited is None else waited:>6}  "
                      f"{'met' if met else 'MISSED'}")
        print_totals(outcomes, args.contender)
    return 0


if __name__ == "__main__":
    finish(main)
