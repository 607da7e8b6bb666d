"""The statistical power of `layertax launch X --vs Y`, measured.

A/A: Y is a byte-identical copy of X, so every verdict but "no difference" is a false alarm.
3% slower: Y is X with a constructor that spins for 3% of X's measured spawn->main, so
every verdict but "slower" is a miss. Each check runs TRIALS times with the given number of
launches (default: the command's default), and prints every verdict and the counts.
Target (issue 23): A/A "no difference" 10 times of 10; 3% found slower at least 9 of 10.
Not a test: it measures.

    .venv/bin/python bench/launch_power.py [--runs N] [--trials 10] [--slower 0.03]
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import finish   # this folder's

# A dynamic program whose constructor spins on the monotonic clock for SPIN_NS (0: no constructor work).
PROGRAM_C = r"""
#include <time.h>
#ifndef SPIN_NS
#define SPIN_NS 0
#endif
static unsigned long long now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}
__attribute__((constructor)) static void spin(void)
{
    unsigned long long end = now() + SPIN_NS;
    while (SPIN_NS && now() < end)
        ;
}
int main(void) { return 0; }
"""


def launch(a: Path, b: Path, runs: int | None, work: Path) -> dict:
    out = work / "launch.json"
    argv = [sys.executable, "-m", "layertax", "launch", "--no-save", "--export-json", str(out)]
    if runs:
        argv += ["--runs", str(runs)]
    subprocess.run([*argv, "--", str(a), "--vs", str(b)], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return json.loads(out.read_text())["experiments"][0]


def build(source: Path, out: Path, spin_ns: int) -> None:
    subprocess.run(["cc", "-O2", f"-DSPIN_NS={spin_ns}ULL", "-o", str(out), str(source)], check=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, help="launches per command (default: the command's own default)")
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--slower", type=float, default=0.03, help="how much slower Y starts (0.03: 3%%)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="layertax-bench-") as tmp:
        work = Path(tmp)
        source = work / "prog.c"
        source.write_text(PROGRAM_C)
        x, x_copy, y = work / "x", work / "x-copy", work / "y"
        build(source, x, 0)
        shutil.copy2(x, x_copy)
        first = launch(x, x_copy, 200, work)   # X's start-up, to size the spin
        start_ns = first["cases"][0]["stats"]["median"]
        spin = int(start_ns * args.slower)
        build(source, y, spin)
        runs = args.runs
        print(f"X: spawn->main {start_ns / 1e3:.0f} µs (median of 200); Y spins {spin / 1e3:.1f} µs "
              f"({args.slower:.0%}) in a constructor; {args.trials} trials each, "
              f"{'--runs ' + str(args.runs) if args.runs else 'the default number of launches'}")
        for label, other, wanted in (("A/A (byte-identical copy)", x_copy, "no difference"),
                                     (f"{args.slower:.0%} slower", y, "slower")):
            got = []
            for _ in range(args.trials):
                exp = launch(x, other, runs, work)
                case = exp["cases"][1]
                ratio = case["stats"]["ratio"]
                got.append((case["verdict"], ratio["median"], ratio["ci95"], case["stats"]["n"]))
            hits = sum(v == wanted for v, *_ in got)
            print(f"{label}: '{wanted}' {hits} of {len(got)}  (launches per command: {got[0][3]})")
            for verdict, median, (lo, hi), _ in got:
                print(f"    {verdict:14} {median:.3f}x [{lo:.3f}, {hi:.3f}]")
    return 0


if __name__ == "__main__":
    finish(main)
