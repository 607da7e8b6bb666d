"""The launch timer at two git revisions, side by side in one run: what a change to
native/ did to spawn->exit.

Builds the timer (native/launch.c and what it links) from each revision with the flags
layertax builds it with, and the empty programs of bench/launch_vs_hyperfine.py; then, per
program, runs the two timers alternately REPEAT times (the first of each pair alternating),
RUNS launches each, pinned to the last CPU, and prints both medians of spawn->exit, both
IQR/median and the ratio of the medians, per repeat and over all of them. Only the timer
changes between the two columns: the same programs, the same spec, the same CPU.

Not a test: it measures, and these machines are shared.

    .venv/bin/python bench/timer_versions.py BASE [NEW] [--runs 300] [--repeat 8]
    (NEW defaults to the working tree; BASE and NEW are any git revisions)
"""
from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import numpy as np

from launch_vs_hyperfine import build_empty, iqr_over_median   # this folder's

ROOT = Path(__file__).resolve().parent.parent
NATIVE = "src/layertax/native"
# As engine/builder/ninja.py's BASE_CFLAGS (a program target adds nothing to them).
CFLAGS = ("-O2", "-g", "-std=gnu11", "-Wall", "-Wextra")
TIMER_SOURCES = ("launch.c", "placement.c", "child.c", "common.c")   # those present at the revision


def native_tree(revision: str | None, into: Path) -> Path:
    """native/ at a revision (git archive), or as in the working tree (None)."""
    into.mkdir(parents=True)
    if revision is None:
        for f in (ROOT / NATIVE).iterdir():
            if f.suffix in (".c", ".h"):
                (into / f.name).write_bytes(f.read_bytes())
        return into
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", revision, NATIVE], check=True,
                             capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        for member in tar.getmembers():
            if member.isfile() and member.name.endswith((".c", ".h")):
                (into / Path(member.name).name).write_bytes(tar.extractfile(member).read())
    return into


def build_timer(revision: str | None, work: Path, label: str) -> Path:
    src = native_tree(revision, work / f"native-{label}")
    sources = [str(src / name) for name in TIMER_SOURCES if (src / name).exists()]
    timer = work / f"launch-{label}"
    subprocess.run(["cc", *CFLAGS, "-I", str(src), "-o", str(timer), *sources], check=True)
    return timer


def times(timer: Path, spec: Path, runs: int, cpu: int, out: Path) -> list[float]:
    """spawn->exit of the measured launches, µs."""
    subprocess.run([str(timer), "--spec", str(spec), "--runs", str(runs), "--warmup", "5", "--cpu", str(cpu),
                    "--out", str(out)], check=True, stdout=subprocess.DEVNULL)
    lines = [json.loads(line) for line in out.read_text().splitlines()[1:]]
    return [x["exit_ns"] / 1e3 for x in lines if x.get("round", -1) >= 0 and x.get("status") == "ok"]


def empty_specs(work: Path):
    """The static and the dynamic empty program, each with the one-variant spec the timer reads:
    (name, program, spec path)."""
    for static in (True, False):
        program = build_empty(work, static=static)
        name = "static" if static else "dynamic"
        spec = work / f"spec-{name}"
        spec.write_text(f"variant e\narg {program}\n")
        yield name, program, spec


def print_turns(name: str, repeats, ratio, widths: tuple[int, int, int, int]) -> tuple[list, tuple[list, list]]:
    """Each alternating turn as a row under the caller's header (both medians, ratio(first,
    second), both IQR/median, in columns of `widths`); returns the ratios and the two sides'
    IQR/median."""
    ratios, spreads = [], ([], [])
    for rep, (med, iqr) in enumerate(repeats):
        ratios.append(ratio(*med))
        spreads[0].append(iqr[0])
        spreads[1].append(iqr[1])
        print(f"{name:<8} {rep + 1:>3} {med[0]:>{widths[0]}.1f} {med[1]:>{widths[1]}.1f} {ratios[-1]:>6.3f} "
              f"{iqr[0]:>{widths[2]}.3f} {iqr[1]:>{widths[3]}.3f}")
    return ratios, spreads


def alternating(measure_a, measure_b, repeat: int):
    """Runs two measurements alternately `repeat` times (which goes first alternates too), and
    yields each repeat's medians and IQR/medians: ([a, b], [a, b])."""
    measures = (measure_a, measure_b)
    for rep in range(repeat):
        got = {}
        for which in ((0, 1) if rep % 2 == 0 else (1, 0)):
            got[which] = measures[which]()
        yield [float(np.median(got[w])) for w in (0, 1)], [iqr_over_median(got[w]) for w in (0, 1)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", help="git revision of the timer in the first column")
    parser.add_argument("new", nargs="?", help="git revision of the second column [default: the working tree]")
    parser.add_argument("--runs", type=int, default=300, help="launches per timer invocation")
    parser.add_argument("--repeat", type=int, default=8, help="invocations of each timer per program")
    args = parser.parse_args()
    cpu = sorted(os.sched_getaffinity(0))[-1]
    labels = (args.base, args.new or "working tree")
    with tempfile.TemporaryDirectory(prefix="layertax-bench-") as tmp:
        work = Path(tmp)
        timers = (build_timer(args.base, work, "a"), build_timer(args.new, work, "b"))
        print(f"spawn->exit, µs; {args.repeat} alternating invocations of {args.runs} launches per timer, "
              f"cpu {cpu}; A = {labels[0]}, B = {labels[1]}")
        print(f"{'program':<8} {'rep':>3} {'median A':>9} {'median B':>9} {'B/A':>6} {'IQR/med A':>10} "
              f"{'IQR/med B':>10}")
        for name, _, spec in empty_specs(work):
            repeats = alternating(lambda: times(timers[0], spec, args.runs, cpu, work / "out.jsonl"),
                                  lambda: times(timers[1], spec, args.runs, cpu, work / "out.jsonl"), args.repeat)
            ratios, spreads = print_turns(name, repeats, lambda a, b: b / a, (9, 9, 10, 10))
            print(f"{name:<8} all: B/A median of ratios {np.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f}), "
                  f"B faster in {sum(r < 1 for r in ratios)} of {len(ratios)}; IQR/median median "
                  f"{np.median(spreads[0]):.3f} vs {np.median(spreads[1]):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
