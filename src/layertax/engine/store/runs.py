"""A saved run: its file under the data directory and its row in the history."""
from __future__ import annotations

from pathlib import Path

from layertax import paths
from layertax.engine.store import history, results


def new_path(doc: dict) -> Path:
    """Where a run is saved unless told otherwise: the runs directory, named by time and experiments."""
    return results.default_path(paths.runs_dir(), doc)


def save_run(doc: dict, path: Path | None = None) -> Path:
    """Saves the run (atomically) and records it in the history; returns where it went."""
    path = path or new_path(doc)
    results.save(doc, path)
    history.record(paths.history_db(), doc, path)
    return path
