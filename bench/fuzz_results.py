"""Mutated results read every way a user can (tests/result_fuzz.py), as many as asked: how
many the validator refuses, how many are read, and every mutation that a reader fails on
(a finding: the schema or the reader is missing a rule), grouped by where it failed. One in
ten also renders the HTML report. tests/test_result_fuzz.py runs forty of them.

    .venv/bin/python bench/fuzz_results.py [--count 2000] [--seed 1]
"""
from __future__ import annotations

import argparse
import collections
import random
import sys
import time
import traceback
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from result_fuzz import mutate, read_every_way, seeds  # noqa: E402

from _common import finish   # this folder's  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    warnings.simplefilter("error", RuntimeWarning)
    rng, bases = random.Random(args.seed), seeds()
    findings: dict[str, list[str]] = collections.defaultdict(list)
    refused = read = 0
    started = time.monotonic()
    from layertax.engine.store import results

    for i in range(args.count):
        base = rng.choice(bases)
        doc, what = mutate(base, rng)
        try:
            results.validate(doc, "fuzzed")
        except results.ResultError:
            refused += 1
            continue
        try:
            read_every_way(doc, base, html=i % 10 == 0)
            read += 1
        except Exception as e:
            frame = traceback.extract_tb(e.__traceback__)[-1]
            findings[f"{type(e).__name__} at {Path(frame.filename).name}:{frame.lineno}"].append(what)
        if (i + 1) % 200 == 0:
            print(f"  {i + 1}/{args.count} ({time.monotonic() - started:.0f} s)", file=sys.stderr)
    print(f"{args.count} mutations: {refused} refused at the edge, {read} read every way, "
          f"{sum(map(len, findings.values()))} findings")
    for where, whats in sorted(findings.items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(whats)} x {where}: e.g. {whats[0]}")
    return 1 if findings else 0


if __name__ == "__main__":
    finish(main)
