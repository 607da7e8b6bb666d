"""Connections to a history, whichever database holds it: one engine per URL per process,
the schema brought up to date on first use, and every database failure turned into one
HistoryError that says which history and what to do."""
from __future__ import annotations

import os
import stat
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import URL

from layertax import files
from layertax.engine.store.history import location, schema
from layertax.engine.store.history.errors import HistoryError
from layertax.errors import UsageError


def error(url: URL, why: str) -> HistoryError:
    return HistoryError(location.shown(url), location.sqlite_file(url), why)


def _why(e: Exception) -> str:
    """The driver's own words, first line only (SQLAlchemy wraps them in its own and a link)."""
    original = getattr(e, "orig", None) or e
    text = str(original).strip().splitlines()
    return text[0] if text else type(original).__name__


def _sqlite_transactions(engine: sa.Engine) -> None:
    """Real transactions in SQLite: Python's driver would begin one only before INSERT/UPDATE
    and never around DDL, so a migration could be half-applied. Every transaction begins
    IMMEDIATE, taking the write lock at once: two writers queue (for up to the busy timeout)
    instead of one failing when both try to upgrade a read lock."""
    @sa.event.listens_for(engine, "connect")
    def _no_implicit(dbapi_connection, record):
        dbapi_connection.isolation_level = None

    @sa.event.listens_for(engine, "begin")
    def _begin(conn):
        conn.exec_driver_sql("BEGIN IMMEDIATE")


@lru_cache(maxsize=16)
def engine_for(url: URL) -> sa.Engine:
    if location.is_sqlite(url):
        # A generous timeout: two layertax processes may finish at the same moment.
        engine = sa.create_engine(url, connect_args={"timeout": 30}, poolclass=sa.pool.NullPool)
        _sqlite_transactions(engine)
        return engine
    # pre_ping: a pooled connection the server has since closed is replaced, not used.
    return sa.create_engine(url, pool_pre_ping=True, connect_args={"connect_timeout": 10})


_migrated: set[URL] = set()

_SQLITE_MAGIC = b"SQLite format 3\x00"


def _check_sqlite_file(url: URL, file: Path) -> None:
    """An SQLite history is a regular file that is an SQLite database, or one that does not
    exist yet (made on first use). SQLite itself would take any empty file for a new database,
    and open a FIFO or a device: a file the user named that is not a history is refused, never
    turned into one; and no link another user could have planted is followed (files.py)."""
    try:
        real = files.resolve(file)
    except UsageError as e:
        raise error(url, str(e)) from None
    if real is None:
        raise error(url, "a descriptor link is not a database file")
    try:
        st = os.stat(real)
    except FileNotFoundError:
        return
    except OSError as e:
        raise error(url, e.strerror or str(e)) from None
    if not stat.S_ISREG(st.st_mode):
        raise error(url, "not a regular file")
    if st.st_size == 0:
        if location.configured() is None:     # layertax's own default file, left empty by an interrupted start
            return
        raise error(url, "an empty file, not a history; remove it, or name a new file, and layertax makes one there")
    with open(real, "rb") as f:
        if f.read(len(_SQLITE_MAGIC)) != _SQLITE_MAGIC:
            raise error(url, "file is not a database")


@contextmanager
def transaction(url: URL):
    """A connection in one transaction (committed at the end, rolled back on any failure), on a
    history whose schema is current. Database failures become HistoryError."""
    file = location.sqlite_file(url)
    if file is not None and url not in _migrated:
        _check_sqlite_file(url, file)
    try:
        if file is not None:
            file.parent.mkdir(parents=True, exist_ok=True)
        with engine_for(url).begin() as conn:
            if url not in _migrated:
                schema.migrate(conn)
            yield conn
        _migrated.add(url)
    except sa.exc.SQLAlchemyError as e:
        raise error(url, _why(e)) from None
    except RuntimeError as e:          # schema.migrate: a newer layertax's history
        raise error(url, str(e)) from None
    except OSError as e:
        raise error(url, e.strerror or str(e)) from None


def compact(url: URL) -> None:
    """Gives an SQLite history's free pages back to the disk (VACUUM): SQLite keeps the pages of
    deleted rows for later ones, so a history that forgot runs would stay as large. VACUUM runs
    outside any transaction, as SQLite requires (this engine's transactions begin IMMEDIATE), and
    needs free space about the size of the file while it rewrites it."""
    import sqlite3

    try:
        raw = engine_for(url).raw_connection()
        try:
            raw.driver_connection.execute("VACUUM")
        finally:
            raw.close()
    except (sa.exc.SQLAlchemyError, sqlite3.Error, OSError) as e:    # the driver's own: a disk full
        raise error(url, _why(e)) from None


def exists(url: URL) -> bool:
    """False for an SQLite history not yet created (reading one must not create it)."""
    file = location.sqlite_file(url)
    return file is None or file.exists()
