"""Where a command's result goes: the console, the saved run with its history entry, the
exports; and the end of every command built on the launch timer. Shared by every command
that measures, so a result is always kept the same way, and a finished measurement is never
lost: the tables are shown first, and a run that cannot be saved where it belongs is written
to a fallback file that the message names."""
from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from rich.console import Console

from layertax import console as consoles
from layertax import files
from layertax.engine import machine
from layertax.engine.measure.lock import Measuring
from layertax.engine.store import history, results, runs
from layertax.errors import LayertaxError
from layertax.launch import timer
from layertax.report import exporters, terminal
from layertax.result.model import ExperimentResult
from layertax.text import printable


def targets(export_options: dict, save: bool) -> dict[str, Path]:
    """The export paths, checked, and (when the run is to be saved) the data directory and the
    history checked too: everything that could fail after measuring fails here, before."""
    exports = exporters.export_paths(export_options)
    if save:
        runs.check_store()
    return exports


def _show(show: Callable[[], None]) -> bool:
    """Shows the tables; False when standard output is closed (`layertax run | head`): the
    run is still saved and exported, only not printed."""
    try:
        show()
        return True
    except BrokenPipeError:
        consoles.quiet_stdout()
        return False


def fallback_file(doc: dict) -> Path:
    """Writes the run where it can still go when the runs directory cannot take it: a new file in
    the current directory, else in the temporary directory. Raises OSError if neither can."""
    name = f"layertax-unsaved-{datetime.now().strftime('%Y%m%d-%H%M%S')}-p{os.getpid()}.json"
    text = results.dumps(doc)
    last: Exception | None = None
    for directory in (Path.cwd(), Path(tempfile.gettempdir())):
        try:
            return files.write_text(text, directory / name, exclusive=True, mode=0o600)
        except (OSError, LayertaxError) as e:
            last = e
    raise OSError(getattr(last, "errno", None) or 5, getattr(last, "strerror", None) or str(last))


def _save(doc: dict, path: Path | None, exports: dict[str, Path], failed_exports: dict[str, str],
          lines: list[str], problems: list[str], file_in_history: bool = True) -> None:
    try:
        saved = runs.save_file(doc, path)
    except (OSError, LayertaxError) as e:
        why = printable(getattr(e, "strerror", None) or e)
        json_export = exports.get("--export-json")
        if json_export is not None and "--export-json" not in failed_exports:
            where = "standard output" if str(json_export) == "-" else printable(json_export)
            problems.append(f"could not save the run in the runs directory ({why}); it is kept in --export-json "
                            f"{where} (file it later: layertax history push FILE)")
            return
        try:
            kept = fallback_file(doc)
        except OSError as again:
            problems.append(f"could not save the run ({why}), nor a copy in the current or the temporary directory "
                            f"({printable(again.strerror or again)}): it is lost but for the tables above")
            return
        problems.append(f"could not save the run in the runs directory ({why}); kept it in {printable(kept)} "
                        "instead (file it later: layertax history push FILE)")
        return
    lines.append(f"\nsaved: {printable(saved)}")
    if not file_in_history:
        return
    try:
        history.record(None, doc, saved)
    except history.HistoryError as e:
        problems.append(f"saved the run but not in the history: {e}")


def keep(doc: dict, out: Console, save: bool, exports: dict[str, Path], path: Path | None = None,
         show: Callable[[], None] | None = None, verbose: bool = False, claim: Measuring | None = None) -> None:
    """Shows the tables (show; by default the terminal report), then saves the run and records it
    in the history (unless not wanted), writes the exports, and says where. Whatever fails (the
    save, an export, the history) is said in one line at the end, after the tables; a run that
    cannot be saved is written to the --export-json file or a fallback file, named there."""
    if claim is not None:
        doc["concurrent"] = claim.record()
    printed = _show(show or (lambda: terminal.render(doc, out, verbose)))
    failed = exporters.write_exports(doc, exports)
    lines: list[str] = []
    problems: list[str] = []
    # Checked before it is filed: a run its own readers would refuse is kept as a file (nothing
    # measured is lost) and said to be layertax's defect, but not filed where every reader of the
    # history would meet it.
    defect = results.defect(doc)
    if defect:
        kept = "the run is kept as a file but not filed in the history" if save else "it is written as it is"
        problems.append(f"{defect}; a defect of layertax's, not of the measurement: {kept}")
    if save:
        _save(doc, path, exports, failed, lines, problems, file_in_history=defect is None)
    if failed:
        # The run is measured, saved and shown; only these files are missing.
        problems.insert(0, str(exporters.failure(failed)))
    if printed:
        try:
            for line in lines + exporters.wrote_lines(exports, failed):
                # soft_wrap: a path longer than the terminal stays one line, whole for copy and paste.
                out.print(line, markup=False, highlight=False, soft_wrap=True)
        except BrokenPipeError:
            consoles.quiet_stdout()
    if problems:
        raise LayertaxError("; ".join(problems))


def finish_launch_command(result: ExperimentResult | dict, method: dict, save: bool, exports: dict[str, Path],
                          verbose: bool = False, claim: Measuring | None = None) -> int:
    """The end of every command built on the launch timer (`launch`, `inspect`; inspect's result
    is still a saved result's dict): prints, saves and exports its run, complete unless it was
    interrupted, and returns the exit code the timer's result ends with (launch/timer.py)."""
    exp = result if isinstance(result, ExperimentResult) else ExperimentResult.from_json(result)
    run = results.new_run(exp, method, machine.fingerprint(), complete=not exp.extra["interrupted"])
    keep(run.to_json(), consoles.console(), save, exports, verbose=verbose, claim=claim)
    return timer.exit_code(exp)
