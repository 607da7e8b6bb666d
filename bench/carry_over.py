"""What one launch leaves to the next: a small program timed right after a larger one,
with 0, 1 and 2 primers, against the same program launched on its own.

The launch timer alternates its variants round by round. With `--primers 0` each launch
of a variant follows another variant's; with P primers, P untimed launches of the same
variant come first (layertax runs the timer with 2). This builds the empty programs of
bench/launch_vs_hyperfine.py and the working tree's timer, then for each empty program and
each neighbour (perl, python3) runs four specs alternately, REPEAT times, RUNS rounds each,
pinned to the last CPU:

    alone      the empty program only (every launch follows its own: what hyperfine -N times)
    p0, p1, p2 the empty program and the neighbour, --primers 0, 1, 2

and prints the empty program's median spawn->exit in each, the ratios to "alone", and the
IQR/median of each. Not a test: it measures, and these machines are shared.

    .venv/bin/python bench/carry_over.py [--runs 100] [--repeat 8]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from launch_vs_hyperfine import build_empty, iqr_over_median   # this folder's
from timer_versions import build_timer

NEIGHBOURS = {"perl": ("/usr/bin/perl", "-e", "1"), "python3": (sys.executable, "-S", "-I", "-c", "pass")}
PRIMERS = {"alone": 0, "p0": 0, "p1": 1, "p2": 2}   # "alone" has no other variant to prime after


def spec_text(variants: dict[str, tuple[str, ...]]) -> str:
    return "".join(f"variant {name}\n" + "".join(f"arg {a}\n" for a in argv) for name, argv in variants.items())


def run_spec(timer: Path, spec: Path, runs: int, cpu: int, out: Path, primers: int) -> dict[str, list[float]]:
    """spawn->exit of each variant's measured launches, µs."""
    subprocess.run([str(timer), "--spec", str(spec), "--runs", str(runs), "--warmup", "5", "--cpu", str(cpu),
                    "--primers", str(primers), "--out", str(out)], check=True, stdout=subprocess.DEVNULL)
    got: dict[str, list[float]] = {}
    for line in out.read_text().splitlines()[1:]:
        x = json.loads(line)
        if x.get("round", -1) >= 0 and x.get("status") == "ok":
            got.setdefault(x["variant"], []).append(x["exit_ns"] / 1e3)
    return got


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100, help="rounds per timer invocation")
    parser.add_argument("--repeat", type=int, default=8, help="invocations of each spec per program and neighbour")
    args = parser.parse_args()
    cpu = sorted(os.sched_getaffinity(0))[-1]
    neighbours = {k: v for k, v in NEIGHBOURS.items() if Path(v[0]).exists()}
    with tempfile.TemporaryDirectory(prefix="layertax-bench-") as tmp:
        work = Path(tmp)
        timer = build_timer(None, work, "tree")
        print(f"spawn->exit of the empty program, µs; {args.repeat} alternating invocations of each spec, "
              f"{args.runs} rounds each, cpu {cpu}")
        print(f"{'program':<8} {'next to':<8} {'rep':>3} {'alone':>6} {'p0':>6} {'p1':>6} {'p2':>6} "
              f"{'p0/alone':>8} {'p1/alone':>8} {'p2/alone':>8}  IQR/median alone/p0/p1/p2")
        modes = tuple(PRIMERS)
        for static in (True, False):
            program = build_empty(work, static=static)
            name = "static" if static else "dynamic"
            for label, argv in neighbours.items():
                alone, mixed = work / "spec-alone", work / "spec-mixed"
                alone.write_text(spec_text({"empty": (str(program),)}))
                mixed.write_text(spec_text({"empty": (str(program),), label: argv}))
                ratios: dict[str, list[float]] = {m: [] for m in modes[1:]}
                for rep in range(args.repeat):
                    got = {m: run_spec(timer, alone if m == "alone" else mixed, args.runs, cpu, work / "out.jsonl",
                                       PRIMERS[m])["empty"]
                           for m in (modes if rep % 2 == 0 else modes[::-1])}
                    med = {m: float(np.median(got[m])) for m in modes}
                    for m in ratios:
                        ratios[m].append(med[m] / med["alone"])
                    print(f"{name:<8} {label:<8} {rep + 1:>3} " + " ".join(f"{med[m]:>6.0f}" for m in modes) + " "
                          + " ".join(f"{med[m] / med['alone']:>8.3f}" for m in modes[1:]) + "  "
                          + "/".join(f"{iqr_over_median(got[m]):.3f}" for m in modes))
                print(f"{name:<8} {label:<8} all, over alone (median, range): " + "; ".join(
                    f"{m} {np.median(r):.3f} ({min(r):.3f}-{max(r):.3f})" for m, r in ratios.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
