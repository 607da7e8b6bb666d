"""The history's rows: file a run, push saved runs, list them, find a run's predecessor, and
read a run back whole (from the row's own copy, or from its file for rows an older layertax
wrote)."""
from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path

import sqlalchemy as sa

from layertax.engine.store import results
from layertax.engine.store.history import database, location
from layertax.engine.store.history.errors import HistoryError
from layertax.engine.store.history.schema import RUNS
from layertax.errors import UsageError

# What listing reads: everything but the documents, which may be megabytes each.
_INDEX = [c for c in RUNS.c if c.name != "document"]


def digest(doc: dict) -> str:
    """Identifies a run by its content: the same run pushed twice is filed once."""
    return hashlib.sha256(json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _summary(doc: dict) -> str:
    machine = doc.get("machine", {})
    return f"{machine.get('cpu_model', '?')}, {machine.get('cores', '?')} cores, {machine.get('kernel', '?')}"


def codes(doc: dict) -> str | None:
    """The index's note of which code measured each experiment: "name=digest,..." (None when no
    experiment carries a digest, as in an imported or older run)."""
    pairs = [f"{e['name']}={e['code']}" for e in doc.get("experiments", []) if e.get("code")]
    return ",".join(pairs) or None


def _row(doc: dict, path: Path | str) -> dict:
    return {"created": doc.get("created", ""), "path": str(path),
            "experiments": ",".join(e["name"] for e in doc.get("experiments", [])),
            "machine_id": doc.get("machine", {}).get("machine_id"), "machine": _summary(doc),
            "version": doc.get("layertax_version", ""), "complete": int(bool(doc.get("complete"))),
            "digest": digest(doc), "codes": codes(doc), "metric": (doc.get("settings") or {}).get("metric"),
            "document": doc}


def _file(conn: sa.Connection, row: dict) -> tuple[int, bool]:
    """(id, True) for a new row; (the existing row's id, False) when the same run is already filed."""
    existing = conn.execute(sa.select(RUNS.c.id).where(RUNS.c.digest == row["digest"])).scalar()
    if existing is not None:
        return int(existing), False
    return int(conn.execute(RUNS.insert().values(**row).returning(RUNS.c.id)).scalar_one()), True


def check(where=None) -> None:
    """Opens the history and reads it through, so a damaged or unreachable one is reported before
    a run measures rather than after (SQLite opens a damaged file lazily, and happily)."""
    url = location.url_of(where)
    with database.transaction(url) as conn:
        if location.is_sqlite(url):
            problem = conn.exec_driver_sql("PRAGMA quick_check").scalar()
            if problem != "ok":
                raise database.error(url, f"quick_check: {problem}")
        conn.execute(sa.select(sa.func.count()).select_from(RUNS)).scalar()


def record(where, doc: dict, path: Path | str) -> int:
    """Files one run (saved at path); returns its id."""
    with database.transaction(location.url_of(where)) as conn:
        return _file(conn, _row(doc, path))[0]


def push(where, docs: Iterable[tuple[dict, Path | str]]) -> list[tuple[int, bool]]:
    """Files several runs in one transaction: all of them, or (a dropped connection, a failure
    part-way) none. Returns (id, newly filed) per run, in order."""
    url = location.url_of(where)
    try:
        with database.transaction(url) as conn:
            return [_file(conn, _row(doc, path)) for doc, path in docs]
    except HistoryError as e:
        raise database.error(url, f"{e.why}; nothing of this push was written, run it again") from None


def runs(where=None, limit: int | None = None, machine_id: str | None = None,
         experiment: str | None = None) -> list[dict]:
    """Index rows, newest first (without documents); only machine_id's when given, only runs of
    the experiment when given. Newest by the run's own date: a shared history receives runs in
    any order (pushed late, migrated)."""
    url = location.url_of(where)
    if not database.exists(url):
        return []
    query = sa.select(*_INDEX).order_by(RUNS.c.created.desc(), RUNS.c.id.desc())
    if machine_id is not None:
        query = query.where(RUNS.c.machine_id == machine_id)
    if experiment is not None:      # the column is "a,b,c": the name whole, at either end or between commas
        column = sa.literal(",") + RUNS.c.experiments + sa.literal(",")
        query = query.where(column.contains(f",{experiment},", autoescape=True))
    if limit:
        query = query.limit(limit)
    with database.transaction(url) as conn:
        return [dict(r._mapping) for r in conn.execute(query)]


def forget(where, ids: list[int]) -> str | None:
    """Removes these runs from the history, in one transaction; an SQLite history is compacted
    after (database.compact), so that the disk space they took comes back. Returns why the
    compacting failed (the runs are forgotten all the same), or None."""
    url = location.url_of(where)
    if not ids or not database.exists(url):
        return None
    with database.transaction(url) as conn:
        conn.execute(RUNS.delete().where(RUNS.c.id.in_(ids)))
    if location.is_sqlite(url):
        try:
            database.compact(url)
        except HistoryError as e:
            return e.why
    return None


# Run ids are SQL BIGINTs: a larger number names no run (and would overflow the driver).
MAX_ID = (1 << 63) - 1


def document(where, run_id: int) -> dict:
    """The whole result of run run_id: the row's copy, or the saved file it names."""
    url = location.url_of(where)
    if not 0 < run_id <= MAX_ID:
        raise UsageError(f"no run #{run_id} in the history: ids are whole numbers from 1 (see `layertax history`)")
    if not database.exists(url):
        raise UsageError(f"no run #{run_id} in the history: it is empty (see `layertax history`)")
    with database.transaction(url) as conn:
        row = conn.execute(sa.select(RUNS.c.path, RUNS.c.document).where(RUNS.c.id == run_id)).first()
    if row is None:
        raise UsageError(f"no run #{run_id} in the history {location.shown(url)} (see `layertax history`)")
    if row.document is not None:   # a shared history's rows come from anyone: checked like a file
        return results.validate(row.document, f"history #{run_id}")
    return results.load(row.path)


def load(row: dict, where=None) -> dict:
    """The whole result of an index row (from runs())."""
    return document(where, row["id"])


def earlier(where, doc: dict, path: Path | None) -> list[dict]:
    """The runs before doc on the same machine that ran every experiment doc ran, newest first.
    doc's own history entry is found by its file or its content; a document not in the history
    counts as of its date."""
    wanted = {e["name"] for e in doc.get("experiments", [])}
    rows = runs(where, machine_id=doc.get("machine", {}).get("machine_id"))          # newest first
    own_digest = digest(doc)
    own = [i for i, r in enumerate(rows)
           if r["digest"] == own_digest or (path is not None and _same_file(r["path"], path))]
    older = rows[own[0] + 1:] if own else [r for r in rows if r["created"] < doc.get("created", "")]
    return [r for r in older if wanted <= set(filter(None, r["experiments"].split(",")))]


def _same_file(a: str, b: Path | str) -> bool:
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return False


def _with_stored_copy(where) -> set[int]:
    url = location.url_of(where)
    with database.transaction(url) as conn:
        return set(conn.execute(sa.select(RUNS.c.id).where(RUNS.c.document.is_not(None))).scalars())


def copy(source, target) -> tuple[int, int]:
    """Files every run of source into target (an SQLite history into a shared PostgreSQL one),
    oldest first, in one transaction; rows whose file is gone are reported, not guessed.
    Returns (filed, already there). One run is in memory at a time: a history can hold
    thousands of megabyte-sized runs."""
    rows = list(reversed(runs(source)))
    stored = _with_stored_copy(source)
    missing = [f"#{row['id']} (no such file: {row['path']})" for row in rows
               if row["id"] not in stored and not Path(row["path"]).is_file()]
    if missing:
        raise UsageError(f"{len(missing)} run(s) of the history have neither a stored copy nor their file: "
                         + "; ".join(missing[:3]) + (" ..." if len(missing) > 3 else ""))
    filed = push(target, ((load(row, source), row["path"]) for row in rows))
    new = sum(1 for _, is_new in filed if is_new)
    return new, len(filed) - new
