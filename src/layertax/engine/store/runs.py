"""A saved run: its file under the data directory and its row in the history."""
from __future__ import annotations

import shutil
from pathlib import Path

from layertax import paths
from layertax.engine.store import history, results
from layertax.errors import UsageError

def check_store() -> None:
    """Fails in one line, before anything is measured, if a run could not be kept: the data
    directory cannot be made (XDG_DATA_HOME names a file), the disk is nearly full, or the
    history is damaged."""
    where = paths.runs_dir()
    try:
        where.mkdir(parents=True, exist_ok=True)
        free = shutil.disk_usage(where).free
    except OSError as e:
        raise UsageError(f"cannot keep runs in {where}: {e.strerror or e} (set XDG_DATA_HOME to a directory, "
                         "or run with --no-save)") from None
    if free < results.MIN_FREE_BYTES:
        raise UsageError(f"cannot keep runs in {where}: only {free >> 20} MiB free, and a run needs up to "
                         f"{results.MIN_FREE_BYTES >> 20} MiB (free some space, or run with --no-save)")
    history.check()


def new_path(doc: dict) -> Path:
    """Where a run is saved unless told otherwise: the runs directory, named by time and experiments."""
    return results.default_path(paths.runs_dir(), doc)


def save_run(doc: dict, path: Path | None = None) -> Path:
    """Saves the run (atomically) and records it in the history; returns where it went. The file
    is written first: if the history then fails (HistoryError), the run is still on disk."""
    path = path or new_path(doc)
    results.save(doc, path)
    history.record(None, doc, path)
    return path
