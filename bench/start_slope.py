"""The start of a launch run: how much slower a timer's first launches are than its later
ones, whether that goes by time or by the number of launches, and what the warm-up leaves.

Two programs, both static: the empty one (~0.5 ms a launch) and one that spins on the clock
for 1.5 ms in main (~2 ms a launch, four times as long). Each is run by `layertax launch
--no-stamp` for RUNS launches a turn, two ways: with no warm-up at all (`--warmup 0
--warmup-time 0`) and with the command's default warm-up; the four ways in rotated turns.
Printed: for each block of BLOCK launches, in launch order, the median over the turns of
each turn's median in that block, as a share above the way's level (the median of its
turns' medians over the second half of their launches), and about when the block ends
from the first measured launch (launches x the level: the timer's own time between
launches is left out). If the slope goes by time, the longer program's excess
ends after fewer launches than the empty one's, at about the same time.
Not a test: it measures, and these machines are shared.

    .venv/bin/python bench/start_slope.py [--runs 600] [--turns 12] [--block 50]
"""
from __future__ import annotations

import argparse
import functools
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from command_vs_loop import rotated_turns          # this folder's
from launch_vs_hyperfine import build_empty, layertax_times

SPIN_C = """#include <time.h>
static long ns(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000L + t.tv_nsec; }
int main(void) { long end = ns() + 1500000L; while (ns() < end) ; return 0; }
"""


def build_spin(work: Path) -> Path:
    """SPIN_C, static: a program whose launch is four times the empty one's, all of it CPU."""
    source, program = work / "spin.c", work / "spin-static"
    source.write_text(SPIN_C)
    subprocess.run(["cc", "-O2", "-static", "-o", str(program), str(source)], check=True)
    return program


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=600, help="launches per turn")
    parser.add_argument("--turns", type=int, default=12, help="turns per way")
    parser.add_argument("--block", type=int, default=50, help="launches per printed block")
    args = parser.parse_args()
    if args.runs < 2 * args.block or args.turns < 1:
        parser.error("--runs must be at least two blocks, and --turns at least 1")
    with tempfile.TemporaryDirectory(prefix="layertax-bench-") as tmp:
        work = Path(tmp)
        programs = {"empty": build_empty(work, static=True), "spin 1.5 ms": build_spin(work)}
        # (--warmup, --warmup-time): none at all, and the command's defaults (1 round and its own time)
        warmups = {"no warm-up": (0, 0.0), "default warm-up": (1, None)}
        measure = {f"{p}, {w}": functools.partial(layertax_times, programs[p], args.runs, warmups[w][0], work,
                                                  warmups[w][1])
                   for p in programs for w in warmups}
        got = rotated_turns("start_slope", measure, args.turns)
    print(f"{args.turns} turns x {args.runs} launches per way, `layertax launch --no-stamp`; per block of "
          f"{args.block} launches: the median of the turns' medians, above the way's level (its second half)")
    for way, turns in got.items():
        samples = np.asarray(turns)
        level = float(np.median(np.median(samples[:, args.runs // 2:], axis=1)))
        per_launch = level / 1e3
        print(f"\n{way}: level {level:.1f} µs")
        print(f"{'launches':>10} {'ends at':>8} {'median':>8} {'above':>7}")
        for start in range(0, args.runs, args.block):
            block = samples[:, start:start + args.block]
            median = float(np.median(np.median(block, axis=1)))
            ends = (start + block.shape[1]) * per_launch
            print(f"{start:>4}-{start + block.shape[1] - 1:<5} {ends:>6.0f}ms {median:>8.1f} {median / level - 1:>+7.2%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
