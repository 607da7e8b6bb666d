"""Go: the runtime's package initialisers from GODEBUG=inittrace=1 (clock time per package, the
heaviest named); the fix that needs no rebuild: GOGC=off during start-up's allocations."""
from __future__ import annotations

import os
import re
from pathlib import Path

from layertax.inspect.runtime.stage import Fix, Split, Stage

RUNTIME = "Go"
# "init main @1.6 ms, 4.3 ms clock, 964232 bytes, 39739 allocs"
_INIT = re.compile(r"^init (\S+) @([\d.]+) ms, ([\d.]+) ms clock, (\d+) bytes, (\d+) allocs")


def recognise(path: Path, argv: list[str]) -> bool:
    """A Go binary carries its build information in a section of its own."""
    from elftools.common.exceptions import ELFError
    from elftools.elf.elffile import ELFFile

    try:
        with open(path, "rb") as f:
            return ELFFile(f).get_section_by_name(".go.buildinfo") is not None
    except (OSError, ELFError):
        return False


def traced(argv: list[str], workdir: Path) -> tuple[list[str], dict[str, str]]:
    godebug = ",".join(x for x in (os.environ.get("GODEBUG"), "inittrace=1") if x)
    return list(argv), {"GODEBUG": godebug}


def parse(stdout: str, stderr: str, workdir: Path) -> Split:
    split = Split(RUNTIME)
    inits = [(m.group(1), float(m.group(3)), int(m.group(5))) for m in map(_INIT.match, stderr.splitlines()) if m]
    if not inits:
        split.problem = "GODEBUG=inittrace=1 printed nothing (a Go before 1.16, or GODEBUG overridden)"
        return split
    split.stages.append(Stage(f"package initialisers ({len(inits)} packages)", sum(ms for _, ms, _ in inits) * 1e6,
                              "GODEBUG=inittrace=1"))
    top = sorted(inits, key=lambda x: -x[1])[:5]
    split.details.append("initialisers by clock time: " + ", ".join(f"{p} {ms:.2f} ms ({a:,} allocs)" for p, ms, a in top))
    return split


def fixes(argv: list[str], workdir: Path) -> list[Fix]:
    return [Fix("GOGC=off", tuple(argv), (("GOGC", "off"),),
                caveat="no garbage collection at all: only for a short-lived program, its memory grows unbounded")]
