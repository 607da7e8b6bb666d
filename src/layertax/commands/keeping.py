"""Where a command's result goes: the saved run with its history entry, the exports, the
console; and the end of every command built on the launch timer. Shared by every command
that measures, so a result is always kept the same way."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rich.console import Console

from layertax import console as consoles
from layertax.engine import machine
from layertax.engine.measure.alone import Measuring
from layertax.engine.store import history, results, runs
from layertax.errors import LayertaxError
from layertax.report import exporters, terminal


def targets(export_options: dict, save: bool) -> dict[str, Path]:
    """The export paths, checked, and (when the run is to be saved) the data directory and the
    history checked too: everything that could fail after measuring fails here, before."""
    exports = exporters.export_paths(export_options)
    if save:
        runs.check_store()
    return exports


def keep(doc: dict, out: Console, save: bool, exports: dict[str, Path], path: Path | None = None,
         show: Callable[[], None] | None = None, verbose: bool = True, claim: Measuring | None = None) -> None:
    """Saves the run and records it in the history (unless not wanted), writes the exports,
    then shows the tables (show; by default the terminal report) and says where. Files first:
    a closed pipe on stdout (`layertax run | head`) cannot lose one. Whatever fails (an export,
    the history) is said in one line at the end, after the tables and what was kept."""
    if claim is not None:
        doc["concurrent"] = claim.record()
    lines, problems = [], []
    if save:
        path = path or runs.new_path(doc)
        try:
            runs.save_run(doc, path)        # the file is written before the history row
        except history.HistoryError as e:
            problems.append(f"saved the run but not in the history: {e}")
        lines.append(f"\nsaved: {path}")
    failed = exporters.write_exports(doc, exports)
    (show or (lambda: terminal.render(doc, out, verbose)))()
    for line in lines + exporters.wrote_lines(exports, failed):
        out.print(line, markup=False, highlight=False)
    if failed:
        # The run is measured, saved and shown; only these files are missing.
        problems.insert(0, str(exporters.failure(failed)))
    if problems:
        raise LayertaxError("; ".join(problems))


def finish_launch_command(result: dict, method: dict, save: bool, exports: dict[str, Path],
                          verbose: bool = True, claim: Measuring | None = None) -> int:
    """Prints, saves and exports a launch-timer result; 130 if interrupted, 1 if a case failed."""
    out = consoles.console()
    doc = results.new_document(method, machine.fingerprint(), [result], complete=not result["interrupted"])
    keep(doc, out, save, exports, verbose=verbose, claim=claim)
    if result["interrupted"]:
        return 130
    if any(c["status"] == "failed" for c in result["cases"]):
        return 1
    return 0
