"""The shared history against a real PostgreSQL server (tests/pgserver.py): runs kept whole
(JSONB), listed per machine or for all, pushed all-or-nothing, two writers at once, a
connection dropped mid-push, and an existing SQLite history migrated into it."""
from __future__ import annotations

import copy
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import sqlalchemy as sa
from conftest import run_cli

from layertax.engine.store import history, results

RECORDED = Path(__file__).parent / "data" / "recorded"


def _run_doc(n: int, machine_id: str = "m-here", experiment: str = "callchain") -> dict:
    """A real recorded run, made distinct (its date, a machine of our choosing, the digest of the
    code that measured it)."""
    doc = json.loads((RECORDED / f"{experiment}.json").read_text())
    doc = copy.deepcopy(doc)
    doc["experiments"][0]["code"] = f"{n:016x}"
    doc["created"] = f"2026-01-{n % 28 + 1:02d}T00:00:{n % 60:02d}+00:00"
    doc["machine"] = {**doc["machine"], "machine_id": machine_id}
    return doc


def _saved(tmp_path: Path, n: int, **kw) -> Path:
    return results.save(_run_doc(n, **kw), tmp_path / f"run{n}.json")


def _count(url: str, sql: str = "SELECT count(*) FROM runs"):
    with sa.create_engine(history.url_of(url), poolclass=sa.pool.NullPool).connect() as conn:
        return conn.execute(sa.text(sql)).scalar()


def test_a_run_is_kept_whole_as_jsonb_and_read_back(shared_history, tmp_path):
    doc = _run_doc(1)
    run_id = history.record(shared_history, doc, tmp_path / "gone.json")       # the file need not exist
    assert history.document(shared_history, run_id) == doc
    assert _count(shared_history, "SELECT pg_typeof(document)::text FROM runs") == "jsonb"
    assert _count(shared_history, "SELECT document->'machine'->>'machine_id' FROM runs") == "m-here"
    assert _count(shared_history, "SELECT version FROM schema_version") == 4
    assert _count(shared_history, "SELECT metric FROM runs") == "time"
    assert _count(shared_history, "SELECT codes FROM runs") == f"callchain={doc['experiments'][0]['code']}"
    # The same run again is not filed twice.
    assert history.record(shared_history, doc, tmp_path / "again.json") == run_id
    assert _count(shared_history) == 1


def test_the_command_line_files_lists_and_reports_from_the_shared_history(shared_history, tmp_path):
    here = _saved(tmp_path, 1)
    env = {"LAYERTAX_HISTORY": shared_history}
    pushed = run_cli("history", "push", str(here), str(_saved(tmp_path, 2, machine_id="m-elsewhere")), env=env)
    assert pushed.returncode == 0, pushed.stderr
    assert "filed as #1" in pushed.stdout and "filed as #2" in pushed.stdout
    again = run_cli("history", "push", str(here), env=env)
    assert again.returncode == 0 and "already in the history as #1" in again.stdout
    # `history` lists this machine's runs; the recorded machine ids are no machine's here, so
    # only --all-machines shows them, with the URL (never a password) above.
    mine = run_cli("history", env=env)
    assert mine.returncode == 0 and "--all-machines shows the others'" in mine.stdout, mine.stdout
    every = run_cli("--history", shared_history, "history", "--all-machines")
    assert every.returncode == 0 and every.stdout.count("callchain") == 2, every.stdout
    assert "127.0.0.1" in every.stdout
    # Another machine (another data directory, the file gone) reports and compares from the copy.
    here.unlink()
    shown = run_cli("report", "@1", env={**env, "XDG_DATA_HOME": str(tmp_path / "other")})
    assert shown.returncode == 0 and "c-rename" in shown.stdout, shown.stderr
    compared = run_cli("compare", "@1", "@2", env=env)
    assert compared.returncode == 0 and "history #1" in compared.stdout, compared.stderr
    missing = run_cli("report", "@9", env=env)
    assert missing.returncode == 2 and "no run #9 in the history" in missing.stderr


def test_a_launch_is_filed_in_the_shared_history_as_it_is_saved(shared_history, tmp_path):
    done = run_cli("--history", shared_history, "launch", "--runs", "3", "--warmup", "0", "--", "/bin/true",
                   timeout=120)
    assert done.returncode == 0, done.stderr
    saved = Path(done.stdout.split("saved: ")[1].split()[0])
    assert _count(shared_history) == 1
    assert history.document(shared_history, 1) == results.load(saved)


def test_two_writers_at_once_on_an_empty_database(shared_history, tmp_path):
    # Both also meet an empty database: the schema must be created once, not twice.
    batches = [[str(_saved(tmp_path, 10 * w + i)) for i in range(6)] for w in (1, 2)]
    env = {**os.environ, "LAYERTAX_HISTORY": shared_history}
    writers = [subprocess.Popen([sys.executable, "-m", "layertax", "history", "push", *batch], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for batch in batches]
    outcomes = [w.communicate(timeout=120) + (w.returncode,) for w in writers]
    assert [code for _, _, code in outcomes] == [0, 0], outcomes
    assert _count(shared_history) == 12
    assert _count(shared_history, "SELECT count(DISTINCT digest) FROM runs") == 12
    assert _count(shared_history, "SELECT count(*) FROM schema_version") == 1


def test_a_connection_dropped_mid_push_writes_nothing(shared_history, postgres_server, tmp_path):
    docs = [(_run_doc(n), tmp_path / f"r{n}.json") for n in range(3)]
    history.check(shared_history)                    # the schema exists: the push below only inserts
    engine = history.database.engine_for(history.url_of(shared_history))
    inserts = []

    def drop_after_first_insert(conn, cursor, statement, parameters, context, executemany):
        if statement.lstrip().upper().startswith("INSERT"):
            inserts.append(statement)
            if len(inserts) == 1:
                pid = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar()
                with postgres_server.connect(shared_history) as admin:
                    admin.execute("SELECT pg_terminate_backend(%s)", (pid,))

    sa.event.listen(engine, "after_cursor_execute", drop_after_first_insert)
    try:
        with pytest.raises(history.HistoryError, match="nothing of this push was written") as failed:
            history.push(shared_history, docs)
    finally:
        sa.event.remove(engine, "after_cursor_execute", drop_after_first_insert)
    assert len(inserts) == 1 and "\n" not in str(failed.value)
    assert _count(shared_history) == 0                # the first insert went with its transaction
    # The next push (a new connection: the pool pre-pings) files them all.
    assert [new for _, new in history.push(shared_history, docs)] == [True] * 3
    assert _count(shared_history) == 3


# The history table exactly as layertax wrote it before the shared history (schema version 1).
LEGACY_SCHEMA = """
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


def _legacy_history(tmp_path: Path, n: int) -> tuple[Path, list[Path]]:
    db = tmp_path / "data" / "layertax" / "history.sqlite"
    db.parent.mkdir(parents=True, exist_ok=True)
    files = [_saved(tmp_path, i, experiment=("callchain", "tls")[i % 2]) for i in range(n)]
    with sqlite3.connect(db) as conn:
        conn.execute(LEGACY_SCHEMA)
        for f in files:
            doc = results.load(f)
            conn.execute("INSERT INTO runs (created, path, experiments, machine_id, machine, version, complete) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?)", (doc["created"], str(f), doc["experiments"][0]["name"],
                                                          doc["machine"]["machine_id"], "x", "old", 1))
    conn.close()
    return db, files


def test_an_existing_sqlite_history_migrates_into_postgresql(shared_history, tmp_path):
    db, files = _legacy_history(tmp_path, 4)
    env = {"XDG_DATA_HOME": str(tmp_path / "data")}
    moved = run_cli("history", "migrate", "--to", shared_history, env=env)
    assert moved.returncode == 0, moved.stderr
    assert "copied 4 run(s)" in moved.stdout
    assert _count(shared_history) == 4
    for i, f in enumerate(files):
        assert history.document(shared_history, i + 1) == results.load(f)       # oldest first, whole
    again = run_cli("history", "migrate", "--to", shared_history, env=env)
    assert again.returncode == 0 and "copied 0 run(s)" in again.stdout and "4 were there already" in again.stdout
    # The copies name each experiment's code on the index (schema 3), read from the runs.
    assert [_count(shared_history, f"SELECT codes FROM runs WHERE id = {i + 1}") for i in range(4)] == [
        f"{name}={i:016x}" for i, name in enumerate(("callchain", "tls") * 2)]
    # The SQLite history itself was brought to version 4 in place, its old rows kept as they were.
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [(4,)]
        assert conn.execute("SELECT count(*) FROM runs WHERE document IS NULL AND codes IS NULL").fetchone() == (4,)
    conn.close()


def test_a_shared_history_of_schema_3_is_given_each_runs_metric_from_its_jsonb(shared_history, tmp_path,
                                                                              monkeypatch):
    from layertax.engine.store.history import database

    counted = json.loads((RECORDED / "callchain-instructions.json").read_text())
    history.record(shared_history, _run_doc(1), tmp_path / "a.json")
    history.record(shared_history, counted, tmp_path / "b.json")
    with sa.create_engine(history.url_of(shared_history), poolclass=sa.pool.NullPool).begin() as conn:
        conn.execute(sa.text("ALTER TABLE runs DROP COLUMN metric"))
        conn.execute(sa.text("UPDATE schema_version SET version = 3"))
    monkeypatch.setattr(database, "_migrated", set())     # as a new process finds it
    assert sorted(r["metric"] for r in history.runs(shared_history, machine_id=None)) == ["instructions", "time"]
    assert _count(shared_history, "SELECT version FROM schema_version") == 4


def test_a_migration_with_a_lost_file_copies_nothing(shared_history, tmp_path):
    db, files = _legacy_history(tmp_path, 3)
    files[1].unlink()
    moved = run_cli("history", "migrate", "--to", shared_history, env={"XDG_DATA_HOME": str(tmp_path / "data")})
    assert moved.returncode == 2 and "neither a stored copy nor their file" in moved.stderr
    assert [line for line in moved.stderr.splitlines() if "error" in line] == [moved.stderr.strip().splitlines()[-1]]
    assert _count(shared_history, "SELECT count(*) FROM pg_tables WHERE tablename = 'runs'") == 0


@pytest.mark.parametrize("url, needle", [
    ("mysql://me@host/db", "not mysql"),
    ("not a url at all", "is not a database URL"),
    ("postgresql://me:s3cret@127.0.0.1:1/db", "cannot be used"),
])
def test_a_bad_or_unreachable_history_is_one_line_and_hides_the_password(url, needle):
    done = run_cli("--history", url, "history", timeout=60)
    assert done.returncode in (1, 2) and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert needle in done.stderr and "s3cret" not in done.stderr and "Traceback" not in done.stderr


def test_history_lists_what_each_run_measured_and_filters_by_experiment(tmp_path):
    """inspect and launch runs are listed with their target; --experiment keeps one experiment's runs."""
    from conftest import run_cli

    env = {"XDG_DATA_HOME": str(tmp_path / "data")}
    for args in (["inspect", "--runs", "2", "--no-predict", "/bin/true"], ["launch", "--runs", "2", "/bin/true"]):
        assert run_cli(*args, env=env).returncode == 0
    listed = run_cli("history", env=env).stdout
    assert "inspect true" in listed and "launch true" in listed and "file" not in listed
    only = run_cli("history", "--experiment", "launch", env=env).stdout
    assert "launch true" in only and "inspect" not in only
    assert "file" in run_cli("history", "--verbose", env=env).stdout
    assert "launch true" not in run_cli("history", "--target", "inspect", env=env).stdout
    assert "inspect true" in run_cli("history", "--target", "inspect", env=env).stdout
    assert "no runs" in run_cli("history", "--machine", "no such machine", env=env).stdout


def _running(pid: int) -> bool:
    """Whether a process runs (a zombie waiting for its new parent to reap it does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def test_the_test_server_does_not_outlive_a_killed_test_run():
    """A test run killed before its fixtures stop the server (SIGKILL: no teardown) leaves no
    PostgreSQL server running: it shuts down when the process that started it dies."""
    import pgserver

    if pgserver.binaries() is None:
        pytest.skip(pgserver.HINT)
    script = ("import sys, time; sys.path.insert(0, sys.argv[1]); import pgserver; "
              "s = pgserver.Server(pgserver.binaries()).start(); print(s.process.pid, s.root, flush=True); "
              "time.sleep(600)")
    runner = subprocess.Popen([sys.executable, "-c", script, str(Path(__file__).parent)], stdout=subprocess.PIPE,
                              text=True)
    pid, root = None, None
    try:
        pid_text, root = runner.stdout.readline().split()
        pid = int(pid_text)
        assert _running(pid)
        runner.kill()
        runner.wait(timeout=10)
        deadline = time.monotonic() + 30
        while _running(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _running(pid), "the test server outlived the run that started it"
    finally:
        if runner.poll() is None:
            runner.kill()
        if pid is not None and _running(pid):
            os.kill(pid, signal.SIGKILL)
        if root:
            shutil.rmtree(root, ignore_errors=True)


def test_prune_forgets_only_this_machines_older_runs_in_a_shared_history(shared_history, tmp_path):
    """Other machines' runs stay; files that are not in this user's runs directory stay too (a
    shared history's paths are another machine's)."""
    from layertax.engine import machine

    here = machine.this_machine_id()
    for n in range(3):
        history.record(shared_history, _run_doc(n, machine_id=here), tmp_path / f"mine{n}.json")
    history.record(shared_history, _run_doc(9, machine_id="m-there"), tmp_path / "theirs.json")
    done = run_cli("--history", shared_history, "history", "prune", "--keep", "1")
    assert done.returncode == 0, done.stderr
    assert "forgot 2 run(s) of this machine" in done.stdout and "removed 0 saved file(s)" in done.stdout
    left = {r["machine_id"]: r["created"] for r in history.runs(shared_history)}
    assert left == {here: _run_doc(2)["created"], "m-there": _run_doc(9)["created"]}
