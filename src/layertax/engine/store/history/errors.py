"""The history's one error, kept apart from the database code so that naming it (every command
that saves does, in an except clause) does not load SQLAlchemy at start-up."""
from __future__ import annotations

from pathlib import Path

from layertax.errors import LayertaxError
from layertax.redaction import redact
from layertax.text import printable

ENV = "LAYERTAX_HISTORY"


class HistoryError(LayertaxError):
    """The history cannot be read or written (damaged, unreachable, a connection dropped).

    shown: the history as it may be printed (a URL without its password); file: the SQLite
    file, when it is one."""

    def __init__(self, shown: str, file: Path | None, why: str):
        why = printable(redact(why))
        file = printable(file) if file is not None else None
        if file is not None:
            super().__init__(f"the run history {file} cannot be used ({why}): rename it and layertax starts a new "
                             "one (the saved runs stay in runs/), or run with --no-save")
        else:
            super().__init__(f"the shared history {shown} cannot be used ({why}): check the server and {ENV} "
                             "(or --history), or run with --no-save")
        self.why = why
