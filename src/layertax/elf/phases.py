"""Instructions, not time: a program's start-up counted under valgrind's callgrind.

Instruction counts do not depend on machine noise, so they are the third,
independent view of the loader (beside the wall clock and glibc's statistics).
Inclusive counts of the loader's phases come from callgrind_annotate.
Valgrind adds its own preloaded objects, so a few lookups more than a plain run.
"""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

from layertax.engine.builder import toolchain
from layertax.scratch import private_dir

# Loader phases by the ld.so function that does them (inclusive instructions).
PHASES = {
    "loader": "_dl_start",                     # everything ld.so does before the program's entry point
    "load_objects": "_dl_map_object_deps",     # finding, opening and mapping the libraries
    "relocation": "_dl_relocate_object",       # relocating every object, symbol lookups included
    "lookups": "_dl_lookup_symbol_x",          # the symbol lookups alone
    "init": "_dl_init",                        # constructors
}
_LINE = re.compile(r"^\s*([\d,]+)\s+\([\s\d.]+%\)\s+(.*?)\s+\[(.*)\]\s*$")


def available() -> bool:
    return toolchain.available("valgrind") and bool(toolchain.find_command("callgrind_annotate"))


def parse_annotate(text: str) -> tuple[int | None, list[tuple[int, str, str]]]:
    """(program total, [(instructions, function, object)]) from callgrind_annotate output."""
    total = None
    rows = []
    for line in text.splitlines():
        if "PROGRAM TOTALS" in line:
            total = int(line.split()[0].replace(",", ""))
            continue
        m = _LINE.match(line)
        if m:
            func = m.group(2).rsplit(":", 1)[-1]
            rows.append((int(m.group(1).replace(",", "")), func, m.group(3)))
    return total, rows


def count(argv: list[str], env: dict[str, str], timeout: float = 120) -> dict:
    """Runs argv once under callgrind; returns instructions in total, per loader phase and per object."""
    annotate = toolchain.find_command("callgrind_annotate")
    with private_dir("callgrind") as tmp:
        out = tmp / "callgrind.out"
        run = subprocess.run([toolchain.find("valgrind").path, "--tool=callgrind", f"--callgrind-out-file={out}",
                              *argv], capture_output=True, text=True, encoding="utf-8", errors="replace", env=env, timeout=timeout,
                             stdin=subprocess.DEVNULL, cwd=tmp)
        if not out.is_file():
            raise RuntimeError(f"callgrind wrote nothing: {(run.stderr.strip().splitlines() or ['?'])[-1]}")
        inclusive = subprocess.run([annotate, "--inclusive=yes", "--threshold=100", str(out)],
                                   capture_output=True, text=True, encoding="utf-8", errors="replace", timeout=timeout).stdout
        exclusive = subprocess.run([annotate, "--threshold=100", str(out)],
                                   capture_output=True, text=True, encoding="utf-8", errors="replace", timeout=timeout).stdout
    total, rows = parse_annotate(inclusive)
    phases = {}
    for phase, func in PHASES.items():
        phases[phase] = max((n for n, f, _ in rows if f == func), default=0)
    _, self_rows = parse_annotate(exclusive)
    by_object: dict[str, int] = {}
    for n, _, obj in self_rows:
        name = Path(obj).name
        by_object[name] = by_object.get(name, 0) + n
    return {"instructions": total, "phases": phases, "by_object": by_object}
