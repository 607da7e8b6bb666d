"""Where layertax keeps things: XDG cache for builds, XDG data for runs and history."""
from __future__ import annotations

import os
from pathlib import Path


def _xdg(var: str, default: str) -> Path:
    value = os.environ.get(var)
    # The XDG spec says relative paths are invalid and must be ignored.
    base = Path(value) if value and os.path.isabs(value) else Path.home() / default
    return base / "layertax"


def cache_dir() -> Path:
    return _xdg("XDG_CACHE_HOME", ".cache")


def data_dir() -> Path:
    return _xdg("XDG_DATA_HOME", ".local/share")


def runs_dir() -> Path:
    return data_dir() / "runs"


def history_db() -> Path:
    return data_dir() / "history.sqlite"
