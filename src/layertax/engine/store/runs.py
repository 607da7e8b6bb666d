"""A saved run: its file under the data directory and its row in the history."""
from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

from layertax import files, paths
from layertax.engine.store import history, results
from layertax.errors import LayertaxError, UsageError
from layertax.text import printable


def runs_directory() -> Path:
    """The runs directory, made if missing and checked to be the user's own (files.own_directory)."""
    files.own_directory(paths.data_dir(), "the data directory")
    return files.own_directory(paths.runs_dir(), "the runs directory")


def check_store() -> None:
    """Fails in one line, before anything is measured, if a run could not be kept: the data
    directory cannot be made (XDG_DATA_HOME names a file), is not the user's, the disk is
    nearly full, or the history is damaged."""
    where = paths.runs_dir()
    try:
        runs_directory()
        free = shutil.disk_usage(where).free
    except UsageError as e:
        raise UsageError(f"cannot keep runs: {e} (set XDG_DATA_HOME to a directory of yours, or run with "
                         "--no-save)") from None
    except OSError as e:
        raise UsageError(f"cannot keep runs in {where}: {e.strerror or e} (set XDG_DATA_HOME to a directory, "
                         "or run with --no-save)") from None
    if free < results.MIN_FREE_BYTES:
        raise UsageError(f"cannot keep runs in {where}: only {free >> 20} MiB free, and a run needs up to "
                         f"{results.MIN_FREE_BYTES >> 20} MiB (free some space: `layertax history prune --keep 30` "
                         "forgets this machine's older runs and their files; or run with --no-save)")
    history.check()


def save_file(doc: dict, path: Path | None = None, experiments: list[str] | None = None) -> Path:
    """Writes the run's file: to path (an earlier save of the same run), or under a new name in
    the runs directory, named for `experiments` where given (results.file_name). Whole or not at
    all (files.py); OSError or UsageError if it cannot."""
    if path is not None:
        return results.save(doc, path)
    return results.save_new(doc, runs_directory(), experiments)


def remove_saved(paths: list[str]) -> list[int | None]:
    """Removes each saved run's file that is one of this user's in the runs directory: named
    there directly, a regular file (a symbolic link is never followed, nor removed), this user's
    own. Per path, the bytes it freed, or None where it left the file (elsewhere, a link, gone).
    The directory is checked once (runs_directory), not once a file."""
    where = str(runs_directory())
    return [_remove_own(path) if os.path.dirname(path) == where else None for path in paths]


def _remove_own(path: str) -> int | None:
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
            return None
        os.unlink(path)
    except OSError:
        return None
    return st.st_size


def save_run(doc: dict, path: Path | None = None) -> Path:
    """Saves the run (atomically) and records it in the history; returns where it went. The file
    is written first: if the history then fails (HistoryError), the run is still on disk; a run
    that would not read back (results.defect) is kept on disk and refused in one line."""
    path = save_file(doc, path)
    defect = results.defect(doc)
    if defect:
        raise LayertaxError(f"{defect}; a defect of layertax's: the run is kept in {printable(path)} but not filed in "
                            "the history")
    history.record(None, doc, path)
    return path
