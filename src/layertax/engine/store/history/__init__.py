"""The run history: an index of every run, with its whole result, in SQLite (the default,
under the data directory) or in a shared PostgreSQL database (LAYERTAX_HISTORY).

The saved files stay the truth on the machine that made them; the stored copy lets any
machine that shares the history report or compare any run.

The functions are loaded on first use (PEP 562): naming HistoryError, as every command that
saves does, must not load SQLAlchemy into every start-up."""
from __future__ import annotations

import importlib

from layertax.engine.store.history.errors import HistoryError

# name -> the module of this package that defines it
_LAZY = {**dict.fromkeys(("check", "copy", "digest", "document", "earlier", "forget", "load", "push", "record",
                          "runs"),
                         "rows"),
         **dict.fromkeys(("configured", "shown", "url_of"), "location")}
_MODULES = ("database", "location", "rows", "schema")

__all__ = ["HistoryError", *_LAZY]


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    if name in _MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
