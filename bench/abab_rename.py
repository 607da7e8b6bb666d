"""Does timing a case and its baseline in one process (ABAB) tighten their ratio?

A design the paired-per-round protocol could take where a case and its baseline share a kernel
binary: one process alternates samples of the case (A) and of the baseline (B), so whatever
belongs to the process (its memory layout, its directory's place in the dentry cache, the CPU
it landed on) is in both. Against it, the protocol's way: A and B each in a fresh process of
its own. Both designs take the same samples of the same work, in alternating turns, so they
cost the same; the bench sets side by side the robust spread (1.4826 x MAD) of log(A / B) over
the processes, at two grains: a few long samples and many short ones.

A is glibc's rename(), B the renameat2 system call by syscall(2), each moving a file to a
second name and back in a private directory (callchain's c-rename and c-syscall, written
again here so that one program can run both). Every rename is checked; the file must be
there at the end. Not a test: it measures.

    .venv/bin/python bench/abab_rename.py [--rounds 40]
"""
from __future__ import annotations

import argparse
import math
import random
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from layertax.engine.measure.noise_probe import spread as robust_spread

from _common import finish   # this folder's

SOURCE = r"""
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static char A[4096], B[4096];

static uint64_t now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void by_glibc(long n)
{
    for (long i = 0; i < n; i++)
        if (rename(A, B) != 0 || rename(B, A) != 0)
            exit(3);
}

static void by_syscall(long n)
{
    for (long i = 0; i < n; i++)
        if (syscall(SYS_renameat2, AT_FDCWD, A, AT_FDCWD, B, 0) != 0 ||
            syscall(SYS_renameat2, AT_FDCWD, B, AT_FDCWD, A, 0) != 0)
            exit(3);
}

/* usage: DIR WHICH SAMPLES ITERS; WHICH is "a", "b" or "ab" (alternating) */
int main(int argc, char **argv)
{
    if (argc != 5)
        return 2;
    snprintf(A, sizeof A, "%s/file-a", argv[1]);
    snprintf(B, sizeof B, "%s/file-b", argv[1]);
    int fd = open(A, O_CREAT | O_EXCL | O_WRONLY, 0600);
    if (fd < 0 || close(fd) != 0)
        return 3;
    const char *which = argv[2];
    long samples = atol(argv[3]), iters = atol(argv[4]);
    by_glibc(iters / 10 + 1);
    by_syscall(iters / 10 + 1);
    for (long s = 0; s < samples; s++) {
        if (strchr(which, 'a')) {
            uint64_t t = now();
            by_glibc(iters);
            printf("a %.3f\n", (double)(now() - t) / (2.0 * (double)iters));
        }
        if (strchr(which, 'b')) {
            uint64_t t = now();
            by_syscall(iters);
            printf("b %.3f\n", (double)(now() - t) / (2.0 * (double)iters));
        }
    }
    return access(A, F_OK) == 0 && access(B, F_OK) != 0 ? 0 : 3;
}
"""

# (samples a process, iterations a sample): the same work either way, ~26 ms or ~2.6 ms a sample here.
GRAINS = ((3, 2000), (30, 200))


def run(program: Path, work: Path, which: str, samples: int, iters: int) -> dict[str, float]:
    """The median ns per rename of A and of B in one process."""
    directory = Path(tempfile.mkdtemp(dir=work))
    try:
        out = subprocess.run([str(program), str(directory), which, str(samples), str(iters)], check=True,
                             capture_output=True, text=True, timeout=120).stdout
    finally:
        shutil.rmtree(directory)
    values: dict[str, list[float]] = {"a": [], "b": []}
    for line in out.splitlines():
        key, value = line.split()
        values[key].append(float(value))
    return {k: float(np.median(v)) for k, v in values.items() if v}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=40, help="processes of each design at each grain")
    args = parser.parse_args()
    rng = random.Random(1)
    with tempfile.TemporaryDirectory(prefix="layertax-bench-") as tmp:
        work = Path(tmp)
        (work / "abab.c").write_text(SOURCE)   # the bench's own scratch directory
        program = work / "abab"
        subprocess.run(["cc", "-O2", "-o", str(program), str(work / "abab.c")], check=True)
        print(f"{'grain':>22} {'design':>24} {'ratio A/B':>10} {'spread':>8}")
        for samples, iters in GRAINS:
            logs: dict[str, list[float]] = {"one process (ABAB)": [], "a process each": []}
            for _ in range(args.rounds):
                designs = list(logs)
                rng.shuffle(designs)
                for design in designs:
                    if design == "a process each":
                        a, b = run(program, work, "a", samples, iters)["a"], run(program, work, "b", samples, iters)["b"]
                    else:
                        both = run(program, work, "ab", samples, iters)
                        a, b = both["a"], both["b"]
                    logs[design].append(math.log(a / b))
            for design, values in logs.items():
                print(f"{f'{samples} x {iters} iterations':>22} {design:>24} {math.exp(np.median(values)):>10.3f} "
                      f"{robust_spread(values):>8.2%}")
    return 0


if __name__ == "__main__":
    finish(main)
