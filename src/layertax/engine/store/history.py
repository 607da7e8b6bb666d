"""The run history: a SQLite index of saved result files (the files stay the truth)."""
from __future__ import annotations

import sqlite3
from contextlib import closing, contextmanager
from pathlib import Path

from layertax.errors import LayertaxError


class HistoryError(LayertaxError):
    """The history database cannot be read or written (damaged, not a database, a directory)."""

    def __init__(self, db: Path, why: str):
        super().__init__(f"the run history {db} cannot be used ({why}): rename it and layertax starts a new one "
                         "(the saved runs stay in runs/), or run with --no-save")

SCHEMA_SQL = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created TEXT NOT NULL,
    path TEXT NOT NULL,
    experiments TEXT NOT NULL,
    machine_id TEXT,
    machine TEXT,
    version TEXT,
    complete INTEGER NOT NULL
)
"""


@contextmanager
def _connect(db: Path):
    """An open connection, closed after; any database failure becomes one HistoryError."""
    try:
        db.parent.mkdir(parents=True, exist_ok=True)
        # A generous timeout: two layertax processes may finish at the same moment.
        with closing(sqlite3.connect(db, timeout=30)) as conn:
            conn.execute(SCHEMA_SQL)
            yield conn
    except sqlite3.Error as e:
        raise HistoryError(db, str(e)) from None
    except OSError as e:
        raise HistoryError(db, e.strerror or str(e)) from None


def check(db: Path) -> None:
    """Opens the history and reads it through, so a damaged one is reported before a run
    measures rather than after (SQLite opens a damaged file lazily, and happily)."""
    with _connect(db) as conn:
        problem = conn.execute("PRAGMA quick_check").fetchone()[0]
        conn.execute("SELECT count(*) FROM runs").fetchone()
    if problem != "ok":
        raise HistoryError(db, f"quick_check: {problem}")


def record(db: Path, doc: dict, path: Path) -> int:
    machine = doc.get("machine", {})
    summary = f"{machine.get('cpu_model', '?')}, {machine.get('cores', '?')} cores, {machine.get('kernel', '?')}"
    with _connect(db) as conn, conn:
        cur = conn.execute(
            "INSERT INTO runs (created, path, experiments, machine_id, machine, version, complete) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (doc.get("created", ""), str(path), ",".join(e["name"] for e in doc.get("experiments", [])),
             machine.get("machine_id"), summary, doc.get("layertax_version", ""), int(bool(doc.get("complete")))),
        )
        return int(cur.lastrowid)


def runs(db: Path, limit: int | None = None) -> list[dict]:
    """Newest first."""
    if not db.exists():
        return []
    with _connect(db) as conn:
        conn.row_factory = sqlite3.Row
        sql = "SELECT * FROM runs ORDER BY id DESC"
        rows = conn.execute(sql + (" LIMIT ?" if limit else ""), (limit,) if limit else ()).fetchall()
    return [dict(r) for r in rows]


def previous(db: Path, doc: dict, path: Path | None, n: int) -> dict | None:
    """The n-th run before doc (1 = the one just before) on the same machine that ran
    every experiment doc ran; None if there is no such run. doc's own history entry is
    found by its file; a document not in the history (an export) counts as of its date."""
    wanted = {e["name"] for e in doc.get("experiments", [])}
    rows = runs(db)                                          # newest first
    own = [i for i, r in enumerate(rows) if path is not None and Path(r["path"]).resolve() == Path(path).resolve()]
    older = rows[own[0] + 1:] if own else [r for r in rows if r["created"] < doc.get("created", "")]
    matching = [r for r in older if r["machine_id"] == doc.get("machine", {}).get("machine_id")
                and wanted <= set(filter(None, r["experiments"].split(",")))]
    return matching[n - 1] if 0 < n <= len(matching) else None
