"""Which history a command uses: the embedded SQLite file under the data directory (the
default), or a shared database named by URL (LAYERTAX_HISTORY, or `layertax --history URL`)."""
from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

from layertax import paths
from layertax.errors import UsageError
from layertax.redaction import redact
from layertax.text import printable

from layertax.engine.store.history.errors import ENV
# postgresql:// is what people write; SQLAlchemy would read it as psycopg2, which layertax does not use.
DRIVERS = {"postgresql": "postgresql+psycopg", "postgres": "postgresql+psycopg", "sqlite": "sqlite"}


def configured() -> str | None:
    """The shared history's URL, if one is configured."""
    return os.environ.get(ENV) or None


def default() -> str:
    return f"sqlite:///{paths.history_db()}"


def url_of(where: str | Path | None = None) -> URL:
    """The SQLAlchemy URL of a history: a path is an SQLite file; None is the configured one."""
    if where is None:
        where = configured() or default()
    if isinstance(where, Path):
        return make_url(f"sqlite:///{where}")
    try:
        url = make_url(where)
    except ArgumentError:
        raise UsageError(f"{shown(where)} is not a database URL (examples: postgresql://user@host/db, "
                         "sqlite:///path/history.sqlite)") from None
    backend = url.drivername.split("+")[0]
    if backend not in DRIVERS:
        raise UsageError(f"{shown(where)}: layertax keeps its history in PostgreSQL or SQLite, not {backend}")
    return url.set(drivername=DRIVERS[backend]) if "+" not in url.drivername else url


def shown(where: str | URL) -> str:
    """A URL as it may be printed: never with its password, and as people write it (postgresql://,
    not the driver layertax picked)."""
    try:
        url = where if isinstance(where, URL) else make_url(where)
    except ArgumentError:
        return printable(redact(repr(str(where))))
    # hide_password covers user:password@; a password given as a query parameter needs redact.
    return printable(redact(url.set(drivername=url.get_backend_name()).render_as_string(hide_password=True)))


def is_sqlite(url: URL) -> bool:
    return url.get_backend_name() == "sqlite"


def sqlite_file(url: URL) -> Path | None:
    return Path(url.database) if is_sqlite(url) and url.database not in (None, "", ":memory:") else None
