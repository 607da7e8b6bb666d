"""Does a case timed in its baseline's process (ABAB) give a tighter ratio, in the real kernels?

Where a case and its baseline share a C kernel binary, the harness can run both in one process
(`--case X --with B`): their samples alternate, X B, B X, X B, ..., each case in its own
directory. Against it, the protocol's way: X and B each in a fresh process of its own, one
right after the other (the closest a round ever puts them). Both designs take the same samples
of the same work at the same iteration counts, so they cost the same; the designs alternate
turn by turn. The bench prints, per case, the robust spread (1.4826 x MAD) of log(X / B) over
the processes, each process's (or pair's) value the log of the median of X's samples over the
median of B's, and how far the designs' median ratios lie apart.

    .venv/bin/python bench/abab_kernels.py [--processes 40] [--samples 3] [--min-time 0.005]
        [--pairs encoding:c-shim-tls-wcs:c-direct ...]

Not a test: it measures. Each case verifies its own result after every sample (a case whose
state another case shares fails there, and the bench says so).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from layertax import paths
from layertax.engine.builder import kernels
from layertax.engine.measure import protocol
from layertax.engine.measure.noise_probe import spread as robust_spread
from layertax.experiments import get

from _common import finish   # this folder's

DEFAULT_PAIRS = (
    "encoding:c-shim-tls-wcs:c-direct", "encoding:c-shim-heap-iconv:c-direct",
    "encoding:c-shim-tls-hand-nonascii:c-direct-nonascii",
    "tls:rand:xorshift", "tls:errno:xorshift", "tls:random-r:xorshift",
    "callchain:c-rename:c-raw-syscall",
)


def argv_of(experiment: str, case: str, work: Path) -> list[str]:
    exp = get(experiment)
    kernel = next(c.kernel for c in exp.cases if c.name == case)
    prepared = kernels.prepare([exp], paths.cache_dir(), (case,))[(experiment, kernel)]
    if not prepared.argv:
        sys.exit(f"abab_kernels: {experiment}'s {kernel} is not runnable here: {prepared.skip or prepared.error}")
    return prepared.argv


def burst(argv: list[str], case: str, samples: int, min_ns: int, cpu: int, work: Path, iters: dict[str, int],
          with_case: str | None = None) -> dict[str, list[float]]:
    """One process; its samples' ns per op by case."""
    d = Path(tempfile.mkdtemp(dir=work))
    cmd = [*argv, "--case", case, "--samples", str(samples), "--min-sample-ns", str(min_ns), "--dir", str(d),
           "--cpu", str(cpu)]
    if case in iters:
        cmd += ["--iters", str(iters[case])]
    if with_case:
        cmd += ["--with", with_case] + (["--with-iters", str(iters[with_case])] if with_case in iters else [])
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    by_case: dict[str, list[float]] = {}
    for line in out.stdout.splitlines():
        obj = protocol.json_object(line, 0)
        if "error" in obj or "skip" in obj:
            raise RuntimeError(f"{case}: {obj.get('error') or obj.get('skip')}")
        if "ns" in obj:
            by_case.setdefault(obj["case"], []).append(obj["ns"] / obj["ops"])
            iters.setdefault(obj["case"], obj["iters"])
    if out.returncode != 0:
        raise RuntimeError(f"{case}: exited {out.returncode}: {out.stderr.strip()[-200:]}")
    return by_case


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--processes", type=int, default=40, help="processes (or pairs of processes) a design")
    ap.add_argument("--samples", type=int, default=3, help="samples of each case a process")
    ap.add_argument("--min-time", type=float, default=0.005, help="seconds a sample at the least")
    ap.add_argument("--cpu", type=int, default=max(os.sched_getaffinity(0)))
    ap.add_argument("--pairs", nargs="+", default=DEFAULT_PAIRS, metavar="EXPERIMENT:CASE:BASELINE")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--gap", type=int, default=0, metavar="G",
                    help="a third design: the case and its baseline a process each with G processes of "
                         "the kernel's other cases between them, as a shuffled round puts them")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    min_ns = int(args.min_time * 1e9)
    rows = []
    with tempfile.TemporaryDirectory(prefix="abab-") as tmp:
        work = Path(tmp)
        for pair in args.pairs:
            experiment, case, base = pair.split(":")
            argv = argv_of(experiment, case, work)
            iters: dict[str, int] = {}
            try:
                burst(argv, case, 1, min_ns, args.cpu, work, iters)      # calibrates both, once
                burst(argv, base, 1, min_ns, args.cpu, work, iters)
                one, apart, gapped = [], [], []
                others = [c.name for c in get(experiment).cases
                          if c.kernel == next(k.kernel for k in get(experiment).cases if k.name == case)
                          and c.name not in (case, base)][:args.gap]
                for other in others:
                    burst(argv, other, 1, min_ns, args.cpu, work, iters)
                for _ in range(args.processes):
                    turns = ["one", "apart"] + (["gap"] if args.gap else [])
                    rng.shuffle(turns)
                    for turn in turns:
                        if turn == "one":
                            got = burst(argv, case, args.samples, min_ns, args.cpu, work, iters, base)
                            one.append(math.log(np.median(got[case]) / np.median(got[base])))
                        elif turn == "gap":
                            ends = [case, base]
                            rng.shuffle(ends)
                            got = {}
                            for c in [ends[0], *rng.sample(others, len(others)), ends[1]]:
                                got.update(burst(argv, c, args.samples, min_ns, args.cpu, work, iters))
                            gapped.append(math.log(np.median(got[case]) / np.median(got[base])))
                        else:
                            order = [case, base]
                            rng.shuffle(order)
                            got = {}
                            for c in order:
                                got.update(burst(argv, c, args.samples, min_ns, args.cpu, work, iters))
                            apart.append(math.log(np.median(got[case]) / np.median(got[base])))
            except RuntimeError as e:
                print(f"{pair}: cannot run both in one process: {e}", file=sys.stderr)
                continue
            rows.append({"pair": pair, "one_process": robust_spread(one), "apart": robust_spread(apart),
                         "gap": robust_spread(gapped) if gapped else None,
                         "ratio_one": math.exp(np.median(one)), "ratio_apart": math.exp(np.median(apart))})
            r = rows[-1]
            print(f"{case:>28} / {base:<18} one process {r['one_process']:6.2%} (x{r['ratio_one']:.3f})   "
                  f"a process each {r['apart']:6.2%} (x{r['ratio_apart']:.3f})"
                  + (f"   {len(others)} between {r['gap']:6.2%}" if gapped else ""), flush=True)
    if rows:
        gain = np.median([r["one_process"] / r["apart"] for r in rows if r["apart"] > 0])
        print(f"median spread, one process over a process each: x{gain:.2f} "
              f"({sum(r['one_process'] < r['apart'] for r in rows)} of {len(rows)} tighter); "
              f"{args.processes} processes a design, {args.samples} samples of {args.min_time * 1e3:g} ms")
        print(json.dumps(rows), file=sys.stderr) if os.environ.get("ABAB_JSON") else None
    return 0


if __name__ == "__main__":
    finish(main)
