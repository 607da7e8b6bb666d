"""How much of a program's start-up is CPU feature detection: glibc's CPUID instructions, counted
and priced on this machine.

1. Counts the CPUID instructions executed while a program starts: every CPUID site in the
   dynamic loader (objdump -d) gets a breakpoint under gdb, and each hit is counted; for a
   static program, the sites in the program itself.
2. Times one CPUID (a loop of 2,000, three leaves): on a virtual machine the instruction
   traps to the hypervisor, so each costs microseconds, not nanoseconds.
Prints count x cost, the time glibc spends asking the CPU what it is, before main. Not a
test: it measures, and needs gdb and objdump (apt-get install gdb binutils).

    .venv/bin/python bench/cpuid_count.py [PROGRAM ...]   (default: an empty dynamic and static program)
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

LOADER = "/lib64/ld-linux-x86-64.so.2"

CPUID_TIMER_C = r"""
#include <cpuid.h>
#include <stdio.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e9 + t.tv_nsec; }
int main(void)
{
    unsigned a, b, c, d, leaves[] = {0, 2, 4};
    for (int k = 0; k < 3; k++) {
        double t0 = now();
        for (int i = 0; i < 2000; i++)
            __cpuid_count(leaves[k], 0, a, b, c, d);
        printf("%u %.1f\n", leaves[k], (now() - t0) / 2000);
    }
    return 0;
}
"""

# gdb: a breakpoint on every CPUID site of one object (its load address found at the first
# instruction), then run to the end and count the hits.
GDB_SCRIPT = r"""
set pagination off
set confirm off
starti
python
import gdb
sites = [int(x, 16) for x in open("{sites}").read().split()]
base = 0
if "{object}":
    for line in gdb.execute("info proc mappings", to_string=True).splitlines():
        if "{object}" in line:
            base = int(line.split()[0], 16)
            break
for s in sites:
    gdb.Breakpoint("*0x%x" % (base + s)).silent = True
hits = 0
while True:
    try:
        gdb.execute("continue", to_string=True)
    except gdb.error:
        break
    if not gdb.selected_inferior().pid:
        break
    hits += 1
print("CPUID-HITS", hits)
end
"""


def cpuid_sites(path: str) -> list[str]:
    out = subprocess.run(["objdump", "-d", path], capture_output=True, text=True, check=True).stdout
    return [line.split(":")[0].strip() for line in out.splitlines() if "\tcpuid" in line]


def is_static(path: str) -> bool:
    out = subprocess.run(["objdump", "-p", path], capture_output=True, text=True, check=True).stdout
    return "INTERP" not in out


def count(program: str, work: Path) -> tuple[int, int, str]:
    """(CPUID sites, CPUIDs executed, where) for one run of program."""
    static = is_static(program)
    where = program if static else LOADER
    sites = cpuid_sites(where)
    (work / "sites").write_text("\n".join(sites))
    script = work / "count.gdb"
    script.write_text(GDB_SCRIPT.format(sites=work / "sites", object="" if static else Path(LOADER).name))
    out = subprocess.run(["gdb", "-q", "-batch", "-x", str(script), "--args", program], capture_output=True,
                         text=True, timeout=300, stdin=subprocess.DEVNULL).stdout
    hits = next(int(line.split()[1]) for line in out.splitlines() if line.startswith("CPUID-HITS"))
    return len(sites), hits, "the program (static)" if static else "ld.so"


def main() -> int:
    for tool in ("gdb", "objdump", "cc"):
        if not shutil.which(tool):
            print(f"{tool} is not installed", file=sys.stderr)
            return 2
    with tempfile.TemporaryDirectory(prefix="layertax-bench-") as tmp:
        work = Path(tmp)
        (work / "t.c").write_text(CPUID_TIMER_C)
        subprocess.run(["cc", "-O2", "-o", str(work / "t"), str(work / "t.c")], check=True)
        timing = subprocess.run([str(work / "t")], capture_output=True, text=True, check=True).stdout.split("\n")
        costs = {int(leaf): float(ns) for leaf, ns in (line.split() for line in timing if line.strip())}
        each = sorted(costs.values())[1]
        print("one CPUID, ns (leaf: median of 2,000): " + ", ".join(f"{k}: {v:,.0f}" for k, v in costs.items()))
        programs = sys.argv[1:]
        if not programs:
            (work / "empty.c").write_text("int main(void) { return 0; }\n")
            for name, flags in (("empty-dynamic", []), ("empty-static", ["-static"])):
                subprocess.run(["cc", "-O2", *flags, "-o", str(work / name), str(work / "empty.c")], check=True)
                programs.append(str(work / name))
        for program in programs:
            sites, hits, where = count(program, work)
            print(f"{Path(program).name}: {hits} CPUID executed in {where} ({sites} sites) x {each:,.0f} ns = "
                  f"{hits * each / 1e3:,.0f} µs of start-up")
    return 0


if __name__ == "__main__":
    sys.exit(main())
