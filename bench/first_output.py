"""How late the launch timer sees a program's first output (`inspect --until-output`).

A C program busy-waits, stamps the clock into the timer's stamp pipe (so main_ns is the moment
just before its write), writes one line to stdout (or stderr), busy-waits again and exits. The
timer's output_ns minus that stamp is how long the byte took to reach the timer and wake it:
the marker's own delay, which every spawn->output figure includes. Printed per stream and
pinning: the median, the 90th percentile and the largest, over --runs launches.

    .venv/bin/python bench/first_output.py --runs 200
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from layertax import paths  # noqa: E402
from layertax.launch import settings, timer, tools  # noqa: E402

from _common import finish   # this folder's  # noqa: E402

PROGRAM = r"""
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
static uint64_t now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
                            return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec; }
static void spin(uint64_t ns) { uint64_t end = now() + ns; while (now() < end) ; }
int main(int argc, char **argv) {
    int fd = 1 + (argc > 1 && strcmp(argv[1], "stderr") == 0);
    const char *stamp = getenv("LAYERTAX_STAMP_FD");
    spin(2000000);
    uint64_t t = now();
    if (stamp) write(atoi(stamp), &t, sizeof t);
    write(fd, "ready\n", 6);
    spin(2000000);
    return 0;
}
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200, help="timed launches per variant")
    args = parser.parse_args()
    kit = tools.tools(paths.cache_dir())
    with tempfile.TemporaryDirectory() as work:
        source, program = Path(work) / "writer.c", Path(work) / "writer"
        source.write_text(PROGRAM)
        subprocess.run(["cc", "-O2", "-o", str(program), str(source)], check=True)
        targets = [settings.Target(stream, (str(program), stream), until_output=True) for stream in ("stdout", "stderr")]
        print(f"{'stream':8} {'pinned':7} {'median':>9} {'p90':>9} {'max':>9}  (output_ns - the stamp before write, µs)")
        for pin in (True, False):
            run = timer.run(targets, settings.LaunchSettings.from_options(args.runs, 1, 10.0, 1, pin=pin), kit)
            for t in targets:
                late = [(x.output_ns - x.main_ns) / 1e3 for x in run.of(t.name) if x.output_ns and x.main_ns]
                if not late:
                    print(f"{t.name:8} {'yes' if pin else 'no':7} no launch saw both the stamp and the output")
                    continue
                p50, p90 = np.percentile(late, [50, 90])
                print(f"{t.name:8} {'yes' if pin else 'no':7} {p50:9.1f} {p90:9.1f} {max(late):9.1f}  n={len(late)}")
    return 0


if __name__ == "__main__":
    finish(main)
