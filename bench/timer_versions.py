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
import os
import subprocess
import tarfile
import tempfile
from pathlib import Path

import numpy as np
from _common import alternating, empty_specs, finish, print_turns, timer_times   # this folder's


ROOT = Path(__file__).resolve().parent.parent
# Where the timer's C side is at a revision: launch/native/ now, native/ before the move.
NATIVE_DIRS = ("src/layertax/launch/native", "src/layertax/native")
COMMON = "src/layertax/native"   # common.c and common.h, at every revision
# As engine/builder/ninja.py's BASE_CFLAGS (a program target adds nothing to them).
CFLAGS = ("-O2", "-g", "-std=gnu11", "-Wall", "-Wextra")
TIMER_SOURCES = ("launch.c", "placement.c", "child.c", "ticks.c", "common.c")   # those present at the revision


def native_tree(revision: str | None, into: Path) -> Path:
    """The timer's C side and common.c at a revision (git archive), or as in the working tree
    (None), flattened into one directory."""
    into.mkdir(parents=True)
    if revision is None:
        for where in (*NATIVE_DIRS, COMMON):
            if (ROOT / where).is_dir():
                for f in (ROOT / where).iterdir():
                    if f.suffix in (".c", ".h") and not (into / f.name).exists():
                        (into / f.name).write_bytes(f.read_bytes())
        return into
    for where in (*NATIVE_DIRS, COMMON):
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", revision, where], capture_output=True)
        if archive.returncode != 0:          # not there at this revision
            continue
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            for member in tar.getmembers():
                target = into / Path(member.name).name
                if member.isfile() and member.name.endswith((".c", ".h")) and not target.exists():
                    target.write_bytes(tar.extractfile(member).read())
    return into


def build_timer(revision: str | None, work: Path, label: str) -> Path:
    src = native_tree(revision, work / f"native-{label}")
    sources = [str(src / name) for name in TIMER_SOURCES if (src / name).exists()]
    timer = work / f"launch-{label}"
    subprocess.run(["cc", *CFLAGS, "-I", str(src), "-o", str(timer), *sources], check=True)
    return timer


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
            repeats = alternating(lambda: timer_times(timers[0], spec, args.runs, cpu, work / "out.jsonl"),
                                  lambda: timer_times(timers[1], spec, args.runs, cpu, work / "out.jsonl"), args.repeat)
            ratios, spreads = print_turns(name, repeats, lambda a, b: b / a, (9, 9, 10, 10))
            print(f"{name:<8} all: B/A median of ratios {np.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f}), "
                  f"B faster in {sum(r < 1 for r in ratios)} of {len(ratios)}; IQR/median median "
                  f"{np.median(spreads[0]):.3f} vs {np.median(spreads[1]):.3f}")
    return 0


if __name__ == "__main__":
    finish(main)
