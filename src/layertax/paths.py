"""Where layertax keeps things: XDG cache for builds, XDG data for runs and history."""
from __future__ import annotations

import os
from pathlib import Path

from layertax import files
from layertax.errors import UsageError

_checked: set[Path] = set()


def _xdg(var: str, default: str) -> Path:
    value = os.environ.get(var)
    # The XDG spec says relative paths are invalid and must be ignored.
    base = Path(value) if value and os.path.isabs(value) else Path.home() / default
    return base / "layertax"


def cache_dir() -> Path:
    """The build cache, made if missing and checked to be the user's own (files.own_directory),
    once per process: one that cannot be made or used is one line, before anything is built."""
    where = _xdg("XDG_CACHE_HOME", ".cache")
    if where not in _checked:
        try:
            files.own_directory(where, "the cache directory")
        except UsageError as e:
            raise UsageError(f"{e} (set XDG_CACHE_HOME to a directory of yours that can be written)") from None
        _checked.add(where)
    return where


def data_dir() -> Path:
    return _xdg("XDG_DATA_HOME", ".local/share")


def runs_dir() -> Path:
    return data_dir() / "runs"


def history_db() -> Path:
    return data_dir() / "history.sqlite"
