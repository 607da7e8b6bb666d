"""The run history: an index of every run, with its whole result, in SQLite (the default,
under the data directory) or in a shared PostgreSQL database (LAYERTAX_HISTORY).

The saved files stay the truth on the machine that made them; the stored copy lets any
machine that shares the history report or compare any run."""
from layertax.engine.store.history.database import HistoryError
from layertax.engine.store.history.location import configured, shown, url_of
from layertax.engine.store.history.runs import (check, copy, digest, document, load, previous, push, record,
                                                runs)

__all__ = ["HistoryError", "check", "configured", "copy", "digest", "document", "load", "previous", "push",
           "record", "runs", "shown", "url_of"]
