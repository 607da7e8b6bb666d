"""`layertax history prune --keep N`: this machine's older runs forgotten, their rows and their
saved files; a link in the runs directory, a file elsewhere and other machines' runs left alone;
the SQLite history compacted so the space comes back. A real history under a temporary data
directory, driven through the command line."""
from __future__ import annotations

import copy
import os
from pathlib import Path

from layertax import paths
from layertax.engine import machine
from layertax.engine.store import history, results, runs
from tests.conftest import run_cli

RECORDED = Path(__file__).parent / "data" / "recorded" / "callchain.json"


def _saved_runs(machine_id: str, count: int, day0: int = 1) -> list[Path]:
    """count runs of machine_id saved as a run saves them (file, then row), oldest first."""
    doc = results.load(RECORDED)
    saved = []
    for i in range(count):
        one = copy.deepcopy(doc)
        one["created"] = f"2026-01-{day0 + i:02d}T00:00:00+00:00"
        one["machine"]["machine_id"] = machine_id
        saved.append(runs.save_run(one))
    return saved


def test_prune_forgets_this_machines_older_runs_and_their_own_files_only(tmp_path):
    here = machine.this_machine_id()
    mine = _saved_runs(here, 5)
    others = _saved_runs("another-machine", 1, day0=20)
    # The second oldest's file is now a link to a file outside: neither is removed.
    outside = tmp_path / "outside.json"
    outside.write_bytes(mine[1].read_bytes())
    mine[1].unlink()
    mine[1].symlink_to(outside)
    db = paths.history_db()
    before = db.stat().st_size

    dry = run_cli("history", "prune", "--keep", "2", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout.startswith("would forget 3 run(s) of this machine") and "nothing removed" in dry.stdout
    assert len(history.runs(None)) == 6 and all(os.path.lexists(p) for p in mine)

    done = run_cli("history", "prune", "--keep", "2")
    assert done.returncode == 0, done.stderr
    assert "forgot 3 run(s) of this machine" in done.stdout and "the newest 2 stay" in done.stdout
    assert "removed 2 saved file(s)" in done.stdout and "1 left" in done.stdout
    left = history.runs(None)
    assert sorted(r["path"] for r in left) == sorted(map(str, [*mine[3:], *others]))
    assert not mine[0].exists() and not mine[2].exists() and mine[3].exists() and others[0].exists()
    assert mine[1].is_symlink() and outside.read_bytes()           # the link not followed, nor removed
    assert db.stat().st_size < before                              # compacted: the space came back

    again = run_cli("history", "prune", "--keep", "2")
    assert again.returncode == 0 and again.stdout.startswith("nothing to forget: the history holds 2 run(s)")


def test_prune_needs_how_many_to_keep():
    p = run_cli("history", "prune")
    assert p.returncode == 2 and "--keep" in p.stderr
    p = run_cli("history", "prune", "--keep", "0")
    assert p.returncode == 2 and "--keep" in p.stderr and "Traceback" not in p.stderr


def test_a_file_a_kept_run_names_too_stays():
    """The same file filed twice (pushed again under another digest): forgetting the older row
    leaves the file the newer one still reads."""
    here = machine.this_machine_id()
    older = _saved_runs(here, 1)[0]
    newer = copy.deepcopy(results.load(older))
    newer["created"] = "2026-02-01T00:00:00+00:00"
    history.record(None, newer, older)                  # a newer row naming the same file
    done = run_cli("history", "prune", "--keep", "1")
    assert done.returncode == 0, done.stderr
    assert "forgot 1 run(s)" in done.stdout and "removed 0 saved file(s)" in done.stdout
    assert older.exists() and [r["path"] for r in history.runs(None)] == [str(older)]


def test_what_prune_prints_of_a_row_is_printable(tmp_path):
    """A shared history's rows come from anyone: a control character in a row's date reaches the
    terminal escaped."""
    here = machine.this_machine_id()
    doc = results.load(RECORDED)
    for n, created in enumerate(("2026-01-01\x1b[2J\x07", "2026-01-02T00:00:00+00:00")):
        one = copy.deepcopy(doc)
        one["created"], one["machine"]["machine_id"] = created, here
        history.record(None, one, tmp_path / f"r{n}.json")
    done = run_cli("history", "prune", "--keep", "1")
    assert done.returncode == 0, done.stderr
    assert "forgot 1 run(s)" in done.stdout and "\x1b" not in done.stdout and "\x07" not in done.stdout


def test_a_disk_too_full_to_keep_a_run_points_at_prune(monkeypatch):
    """Refused before anything is measured, in one line that says how to make room."""
    import shutil
    from collections import namedtuple

    import pytest

    from layertax.errors import UsageError

    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage(1 << 30, (1 << 30) - (1 << 20), 1 << 20))
    with pytest.raises(UsageError) as refused:
        runs.check_store()
    said = str(refused.value)
    assert "only 1 MiB free" in said and "layertax history prune --keep" in said and "\n" not in said
