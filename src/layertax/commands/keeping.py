"""Where a command's result goes: the saved run with its history entry, the exports, the
console; and the end of every command built on the launch timer. Shared by every command
that measures, so a result is always kept the same way."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rich.console import Console

from layertax import console as consoles
from layertax.engine import machine
from layertax.engine.store import results, runs
from layertax.report import exporters, terminal


def keep(doc: dict, out: Console, save: bool, exports: dict[str, Path], path: Path | None = None,
         show: Callable[[], None] | None = None, verbose: bool = True) -> None:
    """Saves the run and records it in the history (unless not wanted), writes the exports,
    then shows the tables (show; by default the terminal report) and says where. Files first:
    a closed pipe on stdout (`layertax run | head`) cannot lose one."""
    lines = []
    if save:
        path = runs.save_run(doc, path)
        lines.append(f"\nsaved: {path}")
    failed = exporters.write_exports(doc, exports)
    (show or (lambda: terminal.render(doc, out, verbose)))()
    for line in lines + exporters.wrote_lines(exports, failed):
        out.print(line, markup=False, highlight=False)
    if failed:
        # The run is measured, saved and shown; only these files are missing.
        raise exporters.failure(failed)


def finish_launch_command(result: dict, method: dict, save: bool, exports: dict[str, Path],
                          verbose: bool = True) -> int:
    """Prints, saves and exports a launch-timer result; 130 if interrupted, 1 if a case failed."""
    out = consoles.console()
    doc = results.new_document(method, machine.fingerprint(), [result], complete=not result["interrupted"])
    keep(doc, out, save, exports, verbose=verbose)
    if result["interrupted"]:
        return 130
    if any(c["status"] == "failed" for c in result["cases"]):
        return 1
    return 0
