"""Instructions, not time: a program's start-up counted under valgrind's callgrind.

Instruction counts do not depend on machine noise, so they are the third, independent view
of the loader (beside the wall clock and glibc's statistics). The profile is read by the one
callgrind reader (engine/measure/callgrind.py): the loader's phases are the inclusive counts
of the ld.so functions that do them, and each object's count is the sum of its functions'
own. Valgrind adds its own preloaded objects, so a few lookups more than a plain run.
"""
from __future__ import annotations

import subprocess

from layertax import files
from layertax.engine.builder import toolchain
from layertax.engine.measure import callgrind
from layertax.scratch import private_dir

# Loader phases by the ld.so function that does them (inclusive instructions).
PHASES = {
    "loader": "_dl_start",                     # everything ld.so does before the program's entry point
    "load_objects": "_dl_map_object_deps",     # finding, opening and mapping the libraries
    "relocation": "_dl_relocate_object",       # relocating every object, symbol lookups included
    "lookups": "_dl_lookup_symbol_x",          # the symbol lookups alone
    "init": "_dl_init",                        # constructors
}


def available() -> bool:
    return toolchain.available("valgrind")


def phases_of(profile: callgrind.Profile) -> dict[str, int]:
    """Each phase's inclusive instructions (0 where its function did not run)."""
    functions = profile.self_cost.keys() | {callee for _, callee in profile.calls}
    return {phase: max((profile.inclusive(f) for f in functions if f[1] == name), default=0)
            for phase, name in PHASES.items()}


def count(argv: list[str], env: dict[str, str], timeout: float = 120) -> dict:
    """Runs argv once under callgrind; returns instructions in total, per loader phase and per object."""
    with private_dir("callgrind") as tmp:
        out = tmp / "callgrind.out"
        run = subprocess.run([toolchain.find("valgrind").path, "--tool=callgrind", f"--callgrind-out-file={out}",
                              *argv], capture_output=True, text=True, encoding="utf-8", errors="replace", env=env,
                             timeout=timeout, stdin=subprocess.DEVNULL, cwd=tmp)
        if not out.is_file():
            raise RuntimeError(f"callgrind wrote nothing: {(run.stderr.strip().splitlines() or ['?'])[-1]}")
        profile = callgrind.parse(files.read_text(out, "callgrind profile", limit=1 << 30))
    return {"instructions": profile.total, "phases": phases_of(profile), "by_object": profile.by_object()}
