"""What a generated program will cost to write and build: disk, memory and time, estimated
before anything is written, so that a request this machine cannot do is refused in one
line with the estimate rather than discovered by the kernel's OOM killer an hour in.

The source size is exact enough: the longest function's text (the last one has the longest
name) times the number of functions. The build's costs are scaled from a calibration of gcc
12 -O1 on this generated code, on a 2-vCPU VM (2026-11-23):
  one library of 1000 x 5: 0.58 MB of C, 0.64 s, 58 MB peak RSS, 1.0 MB .so
  one library of 200 x 200: 3.0 MB, 5.0 s, 157 MB, 6.3 MB .so
  one library of 20000 x 1: 6.0 MB, 9.3 s, 351 MB, 7.6 MB .so
so about 1.7 s and 50 MB of compiler memory (over a 60 MB base) per MB of C, and about
1.3 bytes of output per byte of C. They are upper-side figures, not promises."""
from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from layertax.engine import machine
from layertax.errors import UsageError
from layertax.programs import generate

SECONDS_PER_SOURCE_BYTE = 1.7e-6
COMPILER_BASE_BYTES = 60 << 20
COMPILER_BYTES_PER_SOURCE_BYTE = 50
OUTPUT_BYTES_PER_SOURCE_BYTE = 1.3


def _human(n: float) -> str:
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n:.0f} B"


def _duration(s: float) -> str:
    if s >= 3600:
        return f"{s / 3600:.1f} h"
    return f"{s / 60:.1f} min" if s >= 60 else f"{s:.0f} s"


@dataclass(frozen=True)
class Estimate:
    source_bytes: int         # all the C written
    largest_unit_bytes: int   # the largest file one compiler process reads
    disk_bytes: int           # sources, objects and programs
    memory_bytes: int         # compilers running at once, at their peak
    build_s: float            # wall time of the build with `jobs` compilers

    def line(self) -> str:
        if not self.memory_bytes:    # sources only (--no-build)
            return f"about {_human(self.source_bytes)} of C on disk"
        return (f"about {_human(self.source_bytes)} of C, {_human(self.disk_bytes)} on disk, "
                f"{_human(self.memory_bytes)} of compiler memory, {_duration(self.build_s)} to build")


def estimate(shape: generate.Shape, builds: int, jobs: int | None = None) -> Estimate:
    """builds: how many times each source is compiled and linked (object sets plus variants);
    0 for sources only."""
    jobs = jobs or os.cpu_count() or 1
    longest_function = len(generate.function_source(shape, shape.libs - 1, shape.exports - 1))
    library = longest_function * shape.exports + 200
    name = len(shape.function(shape.libs - 1, shape.exports - 1))
    main = shape.libs * shape.exports * (2 * name + 30) + 1000
    source = library * shape.libs + main
    largest = max(library, main)
    if not builds:
        return Estimate(source, largest, source, 0, 0.0)
    disk = source + int(source * OUTPUT_BYTES_PER_SOURCE_BYTE * builds)
    at_once = min(jobs, shape.libs + 1)
    memory = at_once * (COMPILER_BASE_BYTES + COMPILER_BYTES_PER_SOURCE_BYTE * largest)
    build_s = source * builds * SECONDS_PER_SOURCE_BYTE / at_once
    return Estimate(source, largest, disk, memory, build_s)


def refuse_what_cannot_fit(shape: generate.Shape, builds: int, where: Path) -> Estimate:
    """The estimate, or a UsageError (one line, with the estimate) when the disk under where or
    the available memory cannot hold it."""
    guess = estimate(shape, builds)
    free = shutil.disk_usage(where).free
    if guess.disk_bytes > free:
        raise UsageError(f"{shape.label()} needs {guess.line()}; {where} has {_human(free)} free")
    available = machine.memory_available()
    if available is not None and guess.memory_bytes > available:
        raise UsageError(f"{shape.label()} needs {guess.line()}; this machine has {_human(available)} of "
                         "memory available")
    return guess
