"""Whether the stretches of slower launches come from the launch timer or from the CPU itself.

Builds a small C program (no layertax code in it) that, pinned to one CPU, alternates
    a launch (posix_spawn of a static empty program, then waitpid), timed, and
    a memory loop (4 passes over 1 MiB, one byte per cache line, no system call), timed,
ITERATIONS times, then cuts both series into windows of WINDOW iterations. If the launches'
slow windows are the CPU's (the host's other work, a sibling hyperthread), the memory loop,
which neither spawns nor waits, is slower in the same windows. A second pass times the same
memory loop on every CPU in turn, moving between them every iteration, to show whether the
slow stretches come to one CPU at a time or to all together.

Not a test: it measures, and these machines are shared.

    .venv/bin/python bench/cpu_speed.py [--iterations 6000] [--cpu LAST]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from scipy import stats

from launch_vs_hyperfine import build_empty   # this folder's

PROBE_C = r"""
#define _GNU_SOURCE
#include <sched.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
extern char **environ;
static unsigned char buf[1 << 20];
static uint64_t now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000ull + t.tv_nsec; }
static void pin(int cpu) { cpu_set_t s; CPU_ZERO(&s); CPU_SET(cpu, &s); if (sched_setaffinity(0, sizeof s, &s)) { perror("pin"); exit(2); } }
static uint64_t memory_loop(void) {
    uint64_t a = now();
    for (int pass = 0; pass < 4; pass++)
        for (int i = 0; i < (int)sizeof buf; i += 64) buf[i]++;
    return now() - a;
}
int main(int argc, char **argv) {
    int n = atoi(argv[2]);
    memset(buf, 1, sizeof buf);
    if (!strcmp(argv[1], "launch")) {            /* launch CPU N EMPTY */
        char *child[] = { argv[4], NULL };
        pin(atoi(argv[3]));
        for (int i = 0; i < n; i++) {
            pid_t pid; int status;
            uint64_t a = now();
            if (posix_spawn(&pid, argv[4], NULL, NULL, child, environ)) { perror("spawn"); return 2; }
            waitpid(pid, &status, 0);
            uint64_t launch = now() - a;
            printf("%llu %llu\n", (unsigned long long)launch, (unsigned long long)memory_loop());
        }
    } else {                                     /* cpus N NCPUS */
        int cpus = atoi(argv[3]);
        for (int i = 0; i < n; i++) {
            for (int cpu = 0; cpu < cpus; cpu++) {
                pin(cpu);
                memory_loop();                   /* after a move: the caches refill here */
                printf("%llu ", (unsigned long long)memory_loop());
            }
            printf("\n");
        }
    }
    return 0;
}
"""
WINDOW = 30
SLOW = 0.10        # a window is slow when its median is this much above the series' median


def window_medians(series: np.ndarray) -> np.ndarray:
    usable = len(series) // WINDOW * WINDOW
    return np.median(series[:usable].reshape(-1, WINDOW), axis=1)


def slow_windows(series: np.ndarray) -> np.ndarray:
    medians = window_medians(series)
    return medians > (1 + SLOW) * np.median(series)


def run_probe(probe: Path, args: list[str]) -> np.ndarray:
    out = subprocess.run([str(probe), *args], check=True, capture_output=True, text=True).stdout
    return np.array([[float(v) for v in line.split()] for line in out.splitlines()])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=6000, help="launches (each followed by a memory loop)")
    parser.add_argument("--cpu", type=int, default=None, help="the CPU to pin to (default: the last allowed)")
    args = parser.parse_args()
    allowed = sorted(os.sched_getaffinity(0))
    cpu = allowed[-1] if args.cpu is None else args.cpu
    with tempfile.TemporaryDirectory(prefix="layertax-bench-") as tmp:
        work = Path(tmp)
        empty = build_empty(work, static=True)
        (work / "probe.c").write_text(PROBE_C)
        subprocess.run(["cc", "-O2", "-o", str(work / "probe"), str(work / "probe.c")], check=True)
        both = run_probe(work / "probe", ["launch", str(args.iterations), str(cpu), str(empty)])
        per_cpu = run_probe(work / "probe", ["cpus", str(args.iterations), str(len(allowed))])
    launches, loops = both[:, 0] / 1e3, both[:, 1] / 1e3
    slow = slow_windows(launches)
    loop_ratio = window_medians(loops) / np.median(loops)
    rho = stats.spearmanr(window_medians(launches), window_medians(loops)).statistic
    print(f"pinned to cpu {cpu}: {len(launches)} launches, each followed by the memory loop; "
          f"windows of {WINDOW}")
    print(f"  launch median {np.median(launches):.0f} µs, memory loop median {np.median(loops):.1f} µs")
    print(f"  window medians, launch against memory loop: Spearman rho {rho:.2f}")
    print(f"  slow launch windows (>{SLOW:.0%} above the median): {slow.sum()} of {len(slow)}")
    if slow.any():
        print(f"  the memory loop ran at {np.median(loop_ratio[slow]):.2f}x its median in them (range "
              f"{loop_ratio[slow].min():.2f}-{loop_ratio[slow].max():.2f}), at {np.median(loop_ratio[~slow]):.2f}x "
              "in the others")
    flags = np.array([slow_windows(per_cpu[:, i]) for i in range(per_cpu.shape[1])])
    alone = (flags.sum(axis=0) == 1).sum()
    print(f"memory loop on each of {len(allowed)} CPUs in turn, {args.iterations} times; windows of {WINDOW}")
    for i, cpu_flags in enumerate(flags):
        print(f"  cpu {allowed[i]}: median {np.median(per_cpu[:, i]) / 1e3:.1f} µs, slow windows {cpu_flags.sum()} "
              f"of {len(cpu_flags)}")
    print(f"  windows slow on one CPU only: {alone}; on all at once: {(flags.all(axis=0)).sum()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
