"""layertax's in-process timing against pyperf's on the same Python work, in one run.

The work is a case of encoding's Python kernel (its run() loop, verified after every sample):
`layertax run encoding --case C` times it with layertax's harness and scheduler; pyperf times
the very same run() in bench/pyperf_case.py with its own Runner (worker processes,
calibration, warm-up), pinned to the same CPU. The two alternate, PAIRS times each per case,
and the bench prints per pair both medians per operation, both IQR/median of the samples, and
how long each tool took; then, per case, how far each tool's medians moved from one pair to
the next ((max - min) / median over the pairs: what a user sees re-running it), and in how
many pairs layertax's own 95% interval held the median of all its pairs' samples pooled.
A tool whose figure moves between runs more than its interval says is the untrustworthy one.
Not a test: it measures, and these machines are shared.

    .venv/bin/python bench/inprocess_vs_pyperf.py [--pairs 5] [--case py-stat-str ...]
                                                  [--min-time S] [--layertax-precision F]
                                                  [--layertax-runs N]
"""
from __future__ import annotations

import argparse
import functools
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from _common import finish, iqr_over_median, layertax_experiment   # this folder's

HERE = Path(__file__).resolve().parent
DEFAULT_CASES = ("py-stat-str", "tp-py-encode-ascii-256")


def per_op_spread(values: list[float]) -> tuple[float, float]:
    """(median, IQR/median) of per-operation times."""
    return float(np.median(values)), iqr_over_median(values)


def layertax_turn(case: str, cpu: int, min_time: float | None, work: Path, precision: float | None = None,
                  runs: int | None = None) -> dict:
    """The case's per-op samples (ns), its median and 95% interval as layertax reports them."""
    options = [] if min_time is None else ["--min-time", str(min_time)]
    if precision is not None:
        options += ["--precision", str(precision), "--budget", "0"]
    if runs is not None:
        options += ["--runs", str(runs)]
    found = next(c for c in layertax_experiment("encoding", case, cpu, work / "layertax.json", options)["cases"]
                 if c["name"] == case)
    return {"values": [s["ns"] / s["ops"] for s in found["samples"]], "ci95": found["stats"]["ci95"]}


def pyperf_turn(case: str, cpu: int, min_time: float | None, work: Path) -> dict:
    """pyperf's values for the case, per op in ns (its JSON keeps seconds per inner loop)."""
    import pyperf   # only here: the bench's other half needs nothing of it
    out = work / "pyperf.json"
    out.unlink(missing_ok=True)           # pyperf refuses to overwrite its output
    sample_time = [] if min_time is None else ["--min-time", str(min_time)]
    subprocess.run([sys.executable, str(HERE / "pyperf_case.py"), "--case", case, "--affinity", str(cpu),
                    "--quiet", *sample_time, "-o", str(out)],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return {"values": [v * 1e9 for v in pyperf.Benchmark.load(str(out)).get_values()], "ci95": None}


def timed(turn, *args) -> dict:
    start = time.monotonic()
    got = turn(*args)
    got["seconds"] = time.monotonic() - start
    return got


def case_summary(case: str, turns: list[dict[str, dict]]) -> None:
    """How far each tool's medians moved across the pairs, and layertax's intervals against
    the median of all its samples."""
    for tool in ("lt", "pf"):
        medians = [per_op_spread(t[tool]["values"])[0] for t in turns]
        print(f"  {case} {tool}: medians {min(medians):.1f}-{max(medians):.1f} ns, moved "
              f"{(max(medians) - min(medians)) / np.median(medians):.1%} across {len(turns)} pairs, "
              f"{sum(t[tool]['seconds'] for t in turns) / len(turns):.1f} s per turn")
    pooled = float(np.median([v for t in turns for v in t["lt"]["values"]]))
    held = sum(t["lt"]["ci95"][0] <= pooled <= t["lt"]["ci95"][1] for t in turns)
    print(f"  {case} lt: the pooled median {pooled:.1f} ns inside the pair's 95% interval in {held} of {len(turns)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=5, help="turns of each tool per case")
    parser.add_argument("--case", action="append", help=f"an encoding Python case (default: {', '.join(DEFAULT_CASES)})")
    parser.add_argument("--min-time", type=float, metavar="S",
                        help="seconds per sample for both tools (default: each tool's own: layertax 0.005, pyperf 0.1)")
    parser.add_argument("--layertax-precision", type=float, metavar="F",
                        help="layertax's --precision (with no budget); its rounds still stop at 40 (more time: --layertax-runs)")
    parser.add_argument("--layertax-runs", type=int, metavar="N",
                        help="layertax's --runs: exactly N rounds (120 gives it about pyperf's time here)")
    args = parser.parse_args()
    try:
        import pyperf  # noqa: F401
    except ImportError:
        print("pyperf is not installed (pip install pyperf)", file=sys.stderr)
        return 2
    cpu = sorted(os.sched_getaffinity(0))[-1]      # layertax's default kernel CPU
    cases = args.case or list(DEFAULT_CASES)
    print(f"{args.pairs} pairs per case, both pinned to cpu {cpu}, "
          f"sample time {'each tool its own' if args.min_time is None else f'{args.min_time:g} s'}"
          f"{'' if args.layertax_precision is None else f', layertax --precision {args.layertax_precision:g}'}"
          f"{'' if args.layertax_runs is None else f', layertax --runs {args.layertax_runs}'}; "
          f"per-op medians in ns; layertax first in odd pairs")
    print(f"{'case':24} {'pair':>4} {'layertax':>9} {'pyperf':>8} {'ratio':>6}  {'IQR/med lt':>10} {'pf':>6}  "
          f"{'s lt':>5} {'s pf':>5}")
    with tempfile.TemporaryDirectory(prefix="layertax-bench-") as tmp:
        work = Path(tmp)
        for case in cases:
            turns = []
            for pair in range(1, args.pairs + 1):
                order = [("lt", functools.partial(layertax_turn, precision=args.layertax_precision,
                                                 runs=args.layertax_runs)),
                         ("pf", pyperf_turn)]
                if pair % 2 == 0:
                    order.reverse()
                got = {tool: timed(turn, case, cpu, args.min_time, work) for tool, turn in order}
                turns.append(got)
                (lt_med, lt_iqr), (pf_med, pf_iqr) = (per_op_spread(got[t]["values"]) for t in ("lt", "pf"))
                print(f"{case:24} {pair:>4} {lt_med:>9.1f} {pf_med:>8.1f} {lt_med / pf_med:>6.3f}  {lt_iqr:>10.3f} "
                      f"{pf_iqr:>6.3f}  {got['lt']['seconds']:>5.1f} {got['pf']['seconds']:>5.1f}", flush=True)
            case_summary(case, turns)
    return 0


if __name__ == "__main__":
    finish(main)
