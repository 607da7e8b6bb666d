"""The least a launch timer can be: a C loop, pinned to a CPU, glibc's posix_spawn with
stdio on /dev/null, waitpid, CLOCK_MONOTONIC around the two, the samples kept in memory and
printed at the end. No stamp pipes, no run-queue reads, no JSON lines, no primers or
placement. The benches hold layertax's timer (bench/timer_vs_bare_loop.py) and hyperfine
(bench/launch_vs_hyperfine.py --contender bare) against it. bench/spawn_ways.py asks what
posix_spawn itself costs with the loop's other ways of starting the child (SPAWN_WAYS);
bench/pause_before_launch.py what a pause (a spin on the clock) before each launch does to it.
"""
from __future__ import annotations

import subprocess
from pathlib import Path

BARE_LOOP_C = r"""
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
extern char **environ;
static long long now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000LL + t.tv_nsec; }
/* bare-loop RUNS CPU WAY PAUSE_NS PROGRAM [ARG...]: prints each launch's ns. WAY: spawn
   (stdio opened on /dev/null by the child), spawn-inherit (no file actions: the child keeps
   the loop's stdio), vfork (vfork + execve, the child does nothing else). PAUSE_NS: a spin on
   the clock before each launch (0: none), outside the timed interval. */
int main(int argc, char **argv) {
    if (argc < 6) return 2;
    int runs = atoi(argv[1]);
    const char *way = argv[3];
    long long pause = atoll(argv[4]);
    char **args = argv + 5;
    int inherit = strcmp(way, "spawn-inherit") == 0, use_vfork = strcmp(way, "vfork") == 0;
    if (!inherit && !use_vfork && strcmp(way, "spawn") != 0) return 2;
    cpu_set_t set; CPU_ZERO(&set); CPU_SET(atoi(argv[2]), &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) return 2;
    long long *ns = malloc(sizeof *ns * runs);
    posix_spawn_file_actions_t fa; posix_spawn_file_actions_init(&fa);
    for (int fd = 0; fd < 3; fd++) posix_spawn_file_actions_addopen(&fa, fd, "/dev/null", O_RDWR, 0);
    for (int i = -5; i < runs; i++) {
        pid_t pid; int status;
        for (long long until = now() + pause; now() < until;)
            ;
        long long t0 = now();
        if (use_vfork) {
            pid = vfork();
            if (pid == 0) { execve(args[0], args, environ); _exit(127); }
            if (pid < 0) return 2;
        } else if (posix_spawn(&pid, args[0], inherit ? NULL : &fa, NULL, args, environ) != 0) return 2;
        if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return 2;
        long long t1 = now();
        if (i >= 0) ns[i] = t1 - t0;
    }
    for (int i = 0; i < runs; i++) printf("%lld\n", ns[i]);
    return 0;
}
"""


def build_bare_loop(work: Path) -> Path:
    source, loop = work / "bare_loop.c", work / "bare-loop"
    source.write_text(BARE_LOOP_C)
    subprocess.run(["cc", "-O2", "-o", str(loop), str(source)], check=True)
    return loop


SPAWN_WAYS = ("spawn", "spawn-inherit", "vfork")   # the loop's ways of starting the child (its C's comment)


def bare_times(loop: Path, program: Path, runs: int, cpu: int, way: str = "spawn", pause_ns: int = 0,
               args: tuple[str, ...] = ()) -> list[float]:
    """spawn->exit of the loop's measured launches of program with args, µs; pause_ns: a spin
    before each launch."""
    out = subprocess.run([str(loop), str(runs), str(cpu), way, str(pause_ns), str(program), *args], check=True,
                         capture_output=True, text=True)
    return [int(line) / 1e3 for line in out.stdout.split()]
