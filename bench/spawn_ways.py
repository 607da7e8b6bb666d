"""Why layertax's timer starts an empty program quicker than a posix_spawn loop: the ways of
starting a child, in rotated turns, and what posix_spawn's child does with signals.

Four ways of timing the same empty programs (those of bench/launch_vs_hyperfine.py), RUNS
launches each after 5 warm-ups, all pinned to the same CPU:
- spawn: the bare loop of bench/bare_loop.py as the other benches run it (glibc's
  posix_spawn, the child opening /dev/null on stdin, stdout and stderr);
- spawn-inherit: the same loop, posix_spawn with no file actions;
- vfork: the same loop, vfork + execve, the child doing nothing else;
- timer: layertax's launch timer binary (clone with CLONE_VFORK, then execve, its stamp
  pipes and session set up in the child).
Each turn runs all four in the next of their 24 orders. Per program it prints each way's
median of turn medians, then per pair the median ratio of the turns' medians (taken as the
median log ratio), in how many turns the first was quicker, and a Wilcoxon signed-rank p.
Then it times what glibc's posix_spawn child does before execve
(sysdeps/unix/sysv/linux/spawni.c, __spawni_child: for every signal, read its action and
write SIG_DFL back unless it is ignored): the calls per launch and their cost.

Not a test: it measures, and these machines are shared.

    .venv/bin/python bench/spawn_ways.py [--runs 300] [--turns 48]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from bare_loop import SPAWN_WAYS, bare_times, build_bare_loop   # this folder's
from command_vs_loop import paired, rotated_turns
from timer_versions import build_timer, empty_specs, times

WAYS = (*SPAWN_WAYS, "timer")
PAIRS = (("spawn-inherit", "spawn"), ("vfork", "spawn-inherit"), ("timer", "spawn"), ("timer", "vfork"))

# What __spawni_child does per signal, in a loop of its own: the rt_sigaction calls one
# launch makes, and their cost.
SIGNAL_RESET_C = r"""
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <time.h>
static long long now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000LL + t.tv_nsec; }
int main(void) {
    enum { LAUNCHES = 5000 };
    struct sigaction sa;
    long calls = 0;
    long long t0 = now();
    for (int i = 0; i < LAUNCHES; i++)
        for (int sig = 1; sig < NSIG; sig++) {
            if (sigaction(sig, NULL, &sa) != 0) continue;   /* SIGKILL, SIGSTOP read fine; glibc's own two fail */
            calls++;
            if (sa.sa_handler == SIG_IGN) continue;
            sa.sa_handler = SIG_DFL;
            if (sigaction(sig, &sa, NULL) == 0) calls++;
        }
    long long ns = now() - t0;
    printf("%ld %lld\n", calls / LAUNCHES, ns / LAUNCHES);
    return calls > 0 ? 0 : 1;
}
"""


def signal_reset_cost(work: Path, cpu: int) -> tuple[int, float]:
    """The rt_sigaction calls posix_spawn's child makes per launch, and their time, µs."""
    source, binary = work / "signal_reset.c", work / "signal-reset"
    source.write_text(SIGNAL_RESET_C)
    subprocess.run(["cc", "-O2", "-o", str(binary), str(source)], check=True)
    out = subprocess.run(["taskset", "-c", str(cpu), str(binary)], check=True, capture_output=True, text=True)
    calls, ns = out.stdout.split()
    return int(calls), int(ns) / 1e3


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300, help="launches per turn of each way")
    parser.add_argument("--turns", type=int, default=48, help="turns per program (each runs all four ways)")
    args = parser.parse_args()
    cpu = sorted(os.sched_getaffinity(0))[-1]
    with tempfile.TemporaryDirectory(prefix="layertax-bench-") as tmp:
        work = Path(tmp)
        loop, timer = build_bare_loop(work), build_timer(None, work, "tree")
        print(f"spawn->exit, µs; {args.turns} turns of {args.runs} launches per way, orders rotated; cpu {cpu}")
        for name, program, spec in empty_specs(work):
            measure = {way: (lambda way=way: bare_times(loop, program, args.runs, cpu, way)) for way in SPAWN_WAYS}
            measure["timer"] = lambda: times(timer, spec, args.runs, cpu, work / "out.jsonl")
            turns = rotated_turns(name, measure, args.turns)
            medians = {way: [float(np.median(values)) for values in turns[way]] for way in WAYS}
            for way in WAYS:
                print(f"{name:<8} {way:<14} median of turn medians {np.median(medians[way]):7.1f}")
            for first, second in PAIRS:
                log, quicker, p = paired(medians[first], medians[second])
                print(f"{name:<8} {first}/{second}: median ratio {np.exp(log):.4f}, {first} quicker in "
                      f"{quicker}/{args.turns} (p {p:.2g})")
        calls, us = signal_reset_cost(work, cpu)
        print(f"posix_spawn's child resets signals with {calls} rt_sigaction calls per launch: {us:.1f} µs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
