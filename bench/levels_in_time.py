"""How long does a kernel's level last, and is it set by the process's memory layout?

scan's perl-tr (Perl's line loop with tr/cCgG//) can sit at two levels far apart in one run,
round by round. If what picks the level belonged to the process (where ASLR put its heap and
stacks), every pass of one process would sit at one level, and turning ASLR off would put every
process at the same one. The bench runs processes of several passes each over a DNA-like file
(scan's own input, made by its generator), Perl's line loop and a C getc() loop (scan's baseline)
in alternation, with ASLR on and off (`setarch -R`), and prints, per kernel and design, the
spread of the passes inside one process (the median over processes) against the spread of the
processes' medians ("between"), the spread from one process to the same kernel's next, a turn
later ("next"), the processes with passes at both levels (one at least UPPER times the kernel's
fastest pass, one below it: "both"), and the range of all passes. "within" far below "between":
a level holds for the seconds of a process; "next" near "between": it does not last to the next
turn; ASLR off as wide as on: it is not where the layout lands; "both" rising with --passes: the
level switches in time, inside a process too.

--watch SECONDS asks what the guest can see of a switch: one Perl process on each CPU at once for
that long, each pass timed beside what the kernel says of it (the share of its wall time the
process ran, /proc/self/schedstat; its page faults; the CPU's steal time). Passes at both levels
that ran all their wall time with no faults and no steal are slowed inside the CPU itself; two
CPUs whose levels do not go together (the correlation of passes that started nearest each other)
are not switched by anything they share in this guest.

--beside-probe SECONDS asks whether the noise probe's process (a Python busy loop,
engine/measure/noise_probe.py) feels the same levels at the same moments: for that long, on one
CPU, a Perl process of one pass over a quarter of the file, then one probe process, in turn; it
prints each one's range, the correlation of their log times, and how often the two of a turn sit
at the same level. Not a test: it measures.

    .venv/bin/python bench/levels_in_time.py [--processes 12] [--passes 6]
    .venv/bin/python bench/levels_in_time.py --watch 20
    .venv/bin/python bench/levels_in_time.py --beside-probe 60
"""
from __future__ import annotations

import argparse
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from layertax.engine.measure import noise_probe
from layertax.engine.measure.noise_probe import spread as robust_spread
from layertax.experiments.scan.inputfile import generate

from _common import finish   # this folder's

# A pass this many times the kernel's fastest is at the upper level: Perl's two levels are about
# 1.9x apart; getc's passes spread less than 1.4x.
UPPER = 1.5
# The same for --beside-probe, where the probe's loop's two levels are about 1.7x apart.
UPPER_PROBE = 1.4

PERL = r"""
use strict; use warnings; use Time::HiRes qw(time);
open(my $fh, '<:raw', $ARGV[0]) or die "open: $!\n";
my ($expect, @ms) = ($ARGV[2]);
for (1 .. $ARGV[1]) {
    seek($fh, 0, 0) or die "seek: $!\n";
    my ($gc, $t) = (0, time);
    while (my $line = <$fh>) { $gc += ($line =~ tr/cCgG//); }
    push @ms, (time - $t) * 1000;
    die "counted $gc, expected $expect\n" unless $gc == $expect;
}
print join(" ", map { sprintf "%.2f", $_ } @ms), "\n";
"""

# --watch: a pass's wall time beside its run time, faults and the CPU's steal, a line each.
WATCH = r"""
use strict; use warnings; use Time::HiRes qw(time);
sub slurp { open(my $f, '<', $_[0]) or die "$_[0]: $!\n"; local $/; my $s = <$f>; $s }
sub faults { my @f = split ' ', (slurp("/proc/self/stat") =~ s/^.*\) //sr); $f[7] + $f[9] }
sub run_ns { (split ' ', slurp("/proc/self/schedstat"))[0] }
sub steal { my ($cpu) = @_; my ($l) = grep { /^cpu$cpu / } split /\n/, slurp("/proc/stat"); (split ' ', $l)[8] }
open(my $fh, '<:raw', $ARGV[0]) or die "open: $!\n";
my ($expect, $cpu, $end) = ($ARGV[1], $ARGV[2], time + $ARGV[3]);
while (time < $end) {
    seek($fh, 0, 0) or die "seek: $!\n";
    my ($f0, $r0, $s0) = (faults(), run_ns(), steal($cpu));
    my ($gc, $t) = (0, time);
    while (my $line = <$fh>) { $gc += ($line =~ tr/cCgG//); }
    my $wall = time - $t;
    die "counted $gc, expected $expect\n" unless $gc == $expect;
    printf "%.4f %.6f %.4f %d %d\n", $t, $wall, (run_ns() - $r0) / 1e9 / $wall, faults() - $f0, steal($cpu) - $s0;
}
"""

GETC = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
int main(int argc, char **argv)
{
    FILE *f = fopen(argv[1], "rb");
    long passes = atol(argv[2]), expect = atol(argv[3]);
    if (!f) return 2;
    for (long p = 0; p < passes; p++) {
        struct timespec a, b;
        long n = 0;
        int c;
        rewind(f);
        clock_gettime(CLOCK_MONOTONIC, &a);
        while ((c = getc(f)) != EOF)
            n += c == 'c' || c == 'C' || c == 'g' || c == 'G';
        clock_gettime(CLOCK_MONOTONIC, &b);
        if (n != expect) return 3;
        printf("%.2f ", (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6);
    }
    printf("\n");
    return 0;
}
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, default=12, help="processes of each kernel and design")
    parser.add_argument("--passes", type=int, default=6, help="passes over the file in each process")
    parser.add_argument("--mib", type=int, default=64, help="the input's size (scan's default: 64 MiB)")
    parser.add_argument("--cpu", type=int, default=1, help="the CPU every process is pinned to (as layertax pins)")
    parser.add_argument("--watch", type=float, metavar="SECONDS",
                        help="one Perl process on each CPU at once for SECONDS, each pass beside its run time, "
                             "faults and steal")
    parser.add_argument("--beside-probe", type=float, metavar="SECONDS",
                        help="a Perl pass and a noise-probe process in turn on one CPU for SECONDS: do their "
                             "levels go together?")
    args = parser.parse_args()
    missing = [tool for tool in ("perl", "cc", "taskset", "setarch") if not shutil.which(tool)]
    if missing:
        print(f"needs {', '.join(missing)}: not found", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="layertax-bench-") as tmp:
        work = Path(tmp)
        data = work / "dna.txt"
        expect = generate(data, args.mib << 20)     # scan's own input: the same bytes for the same size
        if args.watch:
            return watch(work, data, expect, args.watch)
        if args.beside_probe:
            quarter = work / "quarter.txt"
            return beside_probe(work, quarter, generate(quarter, (args.mib << 20) // 4), args.cpu, args.beside_probe)
        (work / "scan.pl").write_text(PERL)
        (work / "getc.c").write_text(GETC)
        subprocess.run(["cc", "-O2", "-o", str(work / "getc"), str(work / "getc.c")], check=True)
        kernels = {"perl-tr": ["perl", str(work / "scan.pl")], "getc": [str(work / "getc")]}
        designs = {"ASLR on": [], "ASLR off": ["setarch", "-R"]}
        passes: dict[tuple[str, str], list[list[float]]] = {(k, d): [] for k in kernels for d in designs}
        order = list(passes)
        rng = random.Random(1)
        for i in range(args.processes):
            rng.shuffle(order)
            for kernel, design in order:
                argv = ["taskset", "-c", str(args.cpu), *designs[design], *kernels[kernel], str(data),
                        str(args.passes), str(expect)]
                out = subprocess.run(argv, check=True, capture_output=True, text=True, timeout=600).stdout
                passes[(kernel, design)].append([float(v) for v in out.split()])
            print(f"  {i + 1}/{args.processes} processes of each", file=sys.stderr)
        print(f"{'kernel':>8} {'design':>9} {'within':>7} {'between':>8} {'next':>6} {'both':>6} {'passes, ms':>12}")
        for (kernel, design), runs in passes.items():
            within = float(np.median([robust_spread([math.log(v) for v in run]) for run in runs]))
            medians = [math.log(float(np.median(run))) for run in runs]
            between = robust_spread(medians)
            # The same kernel's next process (one turn later, seconds apart): as far apart as any
            # two processes if the level is drawn anew each process; closer if it lasts in time.
            steps = [b - a for a, b in zip(medians, medians[1:])]
            following = 1.4826 * float(np.median(np.abs(steps))) / math.sqrt(2)
            every = [v for run in runs for v in run]
            upper = UPPER * min(every)
            both = sum(min(run) < upper <= max(run) for run in runs)
            print(f"{kernel:>8} {design:>9} {within:>7.1%} {between:>8.1%} {following:>6.1%} "
                  f"{f'{both}/{len(runs)}':>6} {min(every):>5.0f}-{max(every):<6.0f}")
    return 0


def watch(work: Path, data: Path, expect: int, seconds: float) -> int:
    """One Perl process on each usable CPU at once (--watch): the passes of each, and how the two
    CPUs' levels go together."""
    (work / "watch.pl").write_text(WATCH)
    cpus = sorted(os.sched_getaffinity(0))[:2]
    procs = {cpu: subprocess.Popen(["taskset", "-c", str(cpu), "perl", str(work / "watch.pl"), str(data), str(expect),
                                    str(cpu), str(seconds)], stdout=subprocess.PIPE, text=True) for cpu in cpus}
    passes = {}
    for cpu, proc in procs.items():
        out, _ = proc.communicate(timeout=seconds + 600)
        if proc.returncode != 0:
            print(f"the Perl process on cpu {cpu} failed", file=sys.stderr)
            return 1
        passes[cpu] = [tuple(float(v) for v in line.split()) for line in out.splitlines()]
    fastest = min(p[1] for rows in passes.values() for p in rows)
    print(f"{'cpu':>4} {'passes':>7} {'upper':>6} {'ms a pass':>12} {'ran, upper':>11} {'ran, lower':>11} "
          f"{'faults':>7} {'steal':>6}")
    for cpu, rows in passes.items():
        walls = [p[1] * 1000 for p in rows]
        upper = sum(p[1] >= UPPER * fastest for p in rows)
        ran = {level: [p[2] for p in rows if (p[1] >= UPPER * fastest) == level] or [math.nan]
               for level in (True, False)}
        print(f"{cpu:>4} {len(rows):>7} {upper:>6} {min(walls):>5.0f}-{max(walls):<6.0f} "
              f"{float(np.median(ran[True])):>11.1%} {float(np.median(ran[False])):>11.1%} "
              f"{sum(p[3] for p in rows):>7.0f} {sum(p[4] for p in rows):>6.0f}")
    if len(passes) == 2:
        (a, first), (b, second) = passes.items()
        starts = np.array([p[0] for p in first])
        nearest = [first[int(np.argmin(np.abs(starts - p[0])))][1] for p in second]
        r = float(np.corrcoef(nearest, [p[1] for p in second])[0, 1])
        print(f"cpu {a} and cpu {b}: correlation of passes that started nearest each other {r:+.2f}")
    print(f"(upper: passes at least {UPPER}x the fastest; ran: the median share of a pass's wall time the "
          "process was running, at each level; faults: minor and major; steal: the CPU's, in ticks)")
    return 0


def beside_probe(work: Path, data: Path, expect: int, cpu: int, seconds: float) -> int:
    """A Perl pass and a noise-probe process in turn on one CPU (--beside-probe): whether the
    probe's Python loop sits at its upper level when Perl's line loop does."""
    (work / "scan.pl").write_text(PERL)
    perl, probe = [], []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        out = subprocess.run(["taskset", "-c", str(cpu), "perl", str(work / "scan.pl"), str(data), "1", str(expect)],
                             check=True, capture_output=True, text=True, timeout=600).stdout
        perl.append(float(out.split()[0]))
        probe.append(noise_probe.process_ns(cpu) / 1e6)
    p, q = np.array(perl), np.array(probe)
    upper_p, upper_q = p >= UPPER_PROBE * p.min(), q >= UPPER_PROBE * q.min()
    print(f"{len(p)} turns on cpu {cpu}: Perl {p.min():.1f}-{p.max():.1f} ms a pass, at its upper level in "
          f"{upper_p.mean():.0%}; the probe's process {q.min():.2f}-{q.max():.2f} ms, upper in {upper_q.mean():.0%}")
    print(f"correlation of their log times {float(np.corrcoef(np.log(p), np.log(q))[0, 1]):+.2f}; the same level in "
          f"{int((upper_p == upper_q).sum())} of {len(p)} turns (upper: at least {UPPER_PROBE}x the fastest)")
    return 0


if __name__ == "__main__":
    finish(main)
