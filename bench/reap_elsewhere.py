"""Whether reaping each child on another CPU narrows the launch timer's spread.

The timer reaps every child (wait4) on the CPU it is pinned to, outside the timed interval.
Releasing a task queues its freeing (the task struct, its pid, its credentials) as RCU
callbacks on the CPU that reaps it, and those run in the RCU softirq of a later timer tick:
on the pinned CPU, inside some later launch (docs/launch.md §2, bench/launch_interrupts.py).
If that deferred work widened the spread, a reaper on another CPU would narrow it.

Builds a small C program (no layertax code in it), pinned to one CPU, that launches a static
empty program the way the timer does (posix_spawn, the children's stdio on /dev/null,
SIGCHLD caught with sigwaitinfo, the zombie left until after the clock is read), and
alternates blocks of BLOCK launches between two ways of reaping: wait4 on the pinned CPU
(as the timer does), or handing the pid to a thread pinned to another CPU that reaps it.
Prints spawn->exit for both: median, IQR/median, the 90th and 99th percentiles.

Not a test: it measures, and these machines are shared.

    .venv/bin/python bench/reap_elsewhere.py [--launches 1500] [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from launch_vs_hyperfine import build_empty, iqr_over_median   # this folder's

PROBE_C = r"""
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
extern char **environ;
static int handoff[2];
static int reaper_cpu;
static uint64_t now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000ull + t.tv_nsec; }
static void pin(int cpu) { cpu_set_t s; CPU_ZERO(&s); CPU_SET(cpu, &s); if (sched_setaffinity(0, sizeof s, &s)) { perror("pin"); exit(2); } }
static void *reaper(void *unused) {
    (void)unused;
    pin(reaper_cpu);
    pid_t pid;
    while (read(handoff[0], &pid, sizeof pid) == (ssize_t)sizeof pid) { int status; waitpid(pid, &status, 0); }
    return NULL;
}
int main(int argc, char **argv) {              /* probe N BLOCK CPU OTHER_CPU EMPTY */
    if (argc != 6) { fprintf(stderr, "usage: probe N BLOCK CPU OTHER_CPU EMPTY\n"); return 2; }
    int n = atoi(argv[1]), block = atoi(argv[2]), cpu = atoi(argv[3]);
    reaper_cpu = atoi(argv[4]);
    char *child[] = { argv[5], NULL };
    sigset_t chld; sigemptyset(&chld); sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, NULL);         /* before the thread starts: it inherits the mask */
    if (pipe(handoff)) { perror("pipe"); return 2; }
    pthread_t thread;
    if (pthread_create(&thread, NULL, reaper, NULL)) { perror("thread"); return 2; }
    pin(cpu);
    int dev_null = open("/dev/null", O_RDWR | O_CLOEXEC);
    sigset_t none; sigemptyset(&none);
    for (int i = 0; i < 2 * n; i++) {
        int elsewhere = (i / block) % 2;
        posix_spawn_file_actions_t fa; posix_spawn_file_actions_init(&fa);
        for (int fd = 0; fd < 3; fd++) posix_spawn_file_actions_adddup2(&fa, dev_null, fd);
        posix_spawnattr_t attr; posix_spawnattr_init(&attr);
        posix_spawnattr_setsigmask(&attr, &none);
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
        pid_t pid;
        uint64_t t0 = now(), t1;
        if (posix_spawn(&pid, argv[5], &fa, &attr, child, environ)) { perror("spawn"); return 2; }
        for (;;) {                               /* the timer's wait: SIGCHLD, then is it ours? */
            siginfo_t got; sigwaitinfo(&chld, &got);
            t1 = now();
            siginfo_t info = {0};
            if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid) break;
        }
        posix_spawn_file_actions_destroy(&fa); posix_spawnattr_destroy(&attr);
        if (elsewhere) {
            if (write(handoff[1], &pid, sizeof pid) != (ssize_t)sizeof pid) { perror("handoff"); return 2; }
        } else {
            int status; waitpid(pid, &status, 0);
        }
        printf("%d %llu\n", elsewhere, (unsigned long long)(t1 - t0));
    }
    close(handoff[1]);
    pthread_join(thread, NULL);
    return 0;
}
"""
BLOCK = 50         # launches in a row reaped one way before switching to the other


def summary(label: str, times_us: np.ndarray) -> str:
    q = np.percentile(times_us, [50, 90, 99])
    return (f"  {label:<16} n={len(times_us)}  median {q[0]:.0f} µs  IQR/median {iqr_over_median(list(times_us)):.3f}"
            f"  p90 {q[1]:.0f}  p99 {q[2]:.0f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=1500, help="launches per way of reaping, per repeat")
    parser.add_argument("--repeat", type=int, default=3, help="how many times to run the probe")
    args = parser.parse_args()
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        print("needs two CPUs: one for the launches, one for the reaper")
        return 1
    cpu, other = allowed[-1], allowed[0]
    with tempfile.TemporaryDirectory(prefix="layertax-bench-") as tmp:
        work = Path(tmp)
        empty = build_empty(work, static=True)
        (work / "probe.c").write_text(PROBE_C)
        subprocess.run(["cc", "-O2", "-pthread", "-o", str(work / "probe"), str(work / "probe.c")], check=True)
        print(f"launches pinned to cpu {cpu}, the reaper thread to cpu {other}; blocks of {BLOCK} alternating; "
              f"the first two blocks left out as warm-up; spawn->exit")
        for r in range(args.repeat):
            out = subprocess.run([str(work / "probe"), str(args.launches), str(BLOCK), str(cpu), str(other),
                                  str(empty)], check=True, capture_output=True, text=True).stdout
            rows = np.array([[float(v) for v in line.split()] for line in out.splitlines()])[2 * BLOCK:]
            print(f"repeat {r + 1}")
            print(summary(f"reaped on cpu {cpu}", rows[rows[:, 0] == 0, 1] / 1e3))
            print(summary(f"reaped on cpu {other}", rows[rows[:, 0] == 1, 1] / 1e3))
    return 0


if __name__ == "__main__":
    sys.exit(main())
