"""The history lists what a run counted where it is not time: a bare `make run` files callchain
twice, timed and then its instruction counts, and the listing tells them apart (schema 4's
`metric`, filled from the document for the rows an older layertax filed)."""
from __future__ import annotations

import copy
import sqlite3
from pathlib import Path

from layertax import paths
from layertax.engine import machine
from layertax.engine.store import history, results, runs
from layertax.engine.store.history import database
from tests.conftest import history_experiments, run_cli

RECORDED = Path(__file__).parent / "data" / "recorded"


def _save(name: str, day: int) -> Path:
    doc = copy.deepcopy(results.load(RECORDED / name))
    doc["created"] = f"2026-01-{day:02d}T00:00:00+00:00"
    doc["machine"]["machine_id"] = machine.this_machine_id()
    return runs.save_run(doc)


def test_the_listing_says_a_run_counted_instructions():
    _save("callchain.json", 1)
    _save("callchain-instructions.json", 2)
    listed = run_cli("history")
    assert listed.returncode == 0, listed.stderr
    assert history_experiments(listed.stdout) == ["callchain (instructions)", "callchain"]
    # --target matches what the listing shows.
    only = run_cli("history", "--target", "instructions")
    assert history_experiments(only.stdout) == ["callchain (instructions)"]


def test_a_history_of_schema_3_is_given_each_runs_metric_from_its_document(monkeypatch):
    _save("callchain.json", 1)
    _save("callchain-instructions.json", 2)
    db = paths.history_db()
    # As a layertax of schema 3 left it: no metric column.
    with sqlite3.connect(db) as conn:
        conn.execute("ALTER TABLE runs DROP COLUMN metric")
        conn.execute("UPDATE schema_version SET version = 3")
        conn.execute("INSERT INTO runs (created, path, experiments, complete) VALUES ('2026-01-03', '/gone', "
                     "'tls', 1)")     # a row of schema 1: no document
    conn.close()
    monkeypatch.setattr(database, "_migrated", set())     # as a new process finds it
    rows = history.runs(None)
    assert [(r["experiments"], r["metric"]) for r in rows] == [("tls", None), ("callchain", "instructions"),
                                                               ("callchain", "time")]
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [(4,)]
    conn.close()
