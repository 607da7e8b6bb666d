"""Does a run's 95% interval hold the median of several runs pooled? Plain against widened.

Runs `layertax run EXPERIMENT --case CASE --runs R` N times in a row, then, for each run, the
case's median and its ratio to its baseline, each with two intervals: the plain one (round
medians taken as independent: how layertax worked before dependence.py) and the one layertax
reports (widened by how much successive rounds moved together, with that factor). A run's
interval "holds" when it contains the median of all the runs' samples pooled (for the ratio:
of all their paired per-round ratios pooled). Not a test: it measures (docs/method/statistics.md
says what the intervals are).

    .venv/bin/python bench/interval_holds.py [--runs-each 120] [--times 8]
                                             [--experiment encoding] [--case tp-py-encode-ascii-256]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

from layertax.engine.analysis import analyze, stats
from _common import finish, layertax_experiment   # this folder's


def figures(exp: dict, case_name: str) -> dict:
    """The case's samples, round medians and paired ratios (in round order), and its stats as reported."""
    case = next(c for c in exp["cases"] if c["name"] == case_name)
    base = next(c for c in exp["cases"] if c["name"] == analyze.baseline_of(exp, case))
    rounds = analyze.round_values(case)
    return {"samples": [analyze.ns_per_op(s) for s in case["samples"]],
            "round_medians": [rounds[r] for r in sorted(rounds)],
            "ratios": stats.paired_ratios(rounds, analyze.beside_values(case, base)),
            "stats": case["stats"]}


def row(label: str, median: float, plain: tuple, reported: dict, pooled: float, digits: int) -> tuple[str, bool, bool]:
    lo, hi = reported["ci95"]
    holds_plain, holds = plain[0] <= pooled <= plain[1], lo <= pooled <= hi
    text = (f"{label:6} {median:.{digits}f}  plain [{plain[0]:.{digits}f}, {plain[1]:.{digits}f}] "
            f"{'holds' if holds_plain else 'misses'}  widened x{reported['ci_dependence']:.2f} "
            f"[{lo:.{digits}f}, {hi:.{digits}f}] {'holds' if holds else 'misses'}")
    return text, holds_plain, holds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--experiment", default="encoding", help="the experiment (default encoding)")
    parser.add_argument("--case", default="tp-py-encode-ascii-256", help="the case (default tp-py-encode-ascii-256)")
    parser.add_argument("--runs-each", type=int, default=120, help="layertax's --runs for each run (default 120)")
    parser.add_argument("--times", type=int, default=8, help="how many runs in a row (default 8)")
    args = parser.parse_args()
    if args.times < 2 or args.runs_each < 1:
        parser.error("--times must be at least 2 and --runs-each at least 1")
    cpu = sorted(os.sched_getaffinity(0))[-1]      # layertax's default kernel CPU
    runs = []
    with tempfile.TemporaryDirectory(prefix="layertax-bench-") as tmp:
        for i in range(args.times):
            print(f"run {i + 1} of {args.times} ...", file=sys.stderr, flush=True)
            exp = layertax_experiment(args.experiment, args.case, cpu, Path(tmp) / "r.json",
                                      ["--runs", str(args.runs_each)])
            runs.append(figures(exp, args.case))
    pooled = float(np.median([v for r in runs for v in r["samples"]]))
    pooled_ratio = float(np.median([v for r in runs for v in r["ratios"]]))
    print(f"{args.case}: {args.times} runs of {args.runs_each} rounds on cpu {cpu}; pooled median {pooled:.3f} ns, "
          f"pooled ratio {pooled_ratio:.5f}")
    held = np.zeros(4, dtype=int)
    for i, r in enumerate(runs, 1):
        st = r["stats"]
        lines = [row("median", st["median"], stats.median_ci(r["round_medians"])[:2], st, pooled, 2),
                 row("ratio", st["ratio"]["median"], stats.median_ci(r["ratios"])[:2], st["ratio"], pooled_ratio, 5)]
        for j, (text, plain, wide) in enumerate(lines):
            print(f"{i if j == 0 else '':>3} {text}")
            held[2 * j:2 * j + 2] += (plain, wide)
    print(f"held the pooled figure: median plain {held[0]} widened {held[1]}, ratio plain {held[2]} "
          f"widened {held[3]}, of {args.times}")
    return 0


if __name__ == "__main__":
    finish(main)
