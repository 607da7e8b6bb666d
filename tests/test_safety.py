"""Nothing clobbered, nothing lost: exports into devices, FIFOs and symlinks are written as
streams and never replaced; a directory is refused in one line; SIGTERM keeps the rounds that
finished and leaves nothing behind; two runs at once keep two results and two history rows.
Every special file here is made in the test's own temporary directory."""
from __future__ import annotations

import json
import os
import signal
import sqlite3
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import run_cli

RECORDED = Path(__file__).parent / "data" / "recorded" / "callchain.json"


def _drain(fifo: Path, got: list) -> threading.Thread:
    def read():
        with open(fifo, "rb") as f:
            got.append(f.read())
    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def _export_through_fifo(fifo: Path, flag: str, target: Path) -> bytes:
    """`report --export-X target` while a thread reads fifo (target is fifo or a link to it); what it read."""
    got: list = []
    reader = _drain(fifo, got)
    p = run_cli("report", str(RECORDED), flag, str(target), timeout=60)
    reader.join(10)
    assert p.returncode == 0, p.stderr
    assert got
    return got[0]


def test_an_export_into_a_fifo_is_a_stream_and_the_fifo_stays(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = _export_through_fifo(fifo, "--export-csv", fifo)
    assert stat.S_ISFIFO(fifo.lstat().st_mode)                 # not replaced by a regular file
    assert got.startswith(b"experiment,") and b"c-rename" in got


def test_a_symlink_to_a_fifo_stays_a_symlink(tmp_path):
    fifo, link = tmp_path / "pipe", tmp_path / "link"
    os.mkfifo(fifo)
    link.symlink_to(fifo)
    got = _export_through_fifo(fifo, "--export-markdown", link)
    assert link.is_symlink() and stat.S_ISFIFO(fifo.lstat().st_mode) and b"callchain" in got


def test_a_symlink_to_a_file_is_replaced_through_the_link(tmp_path):
    target, link = tmp_path / "real.json", tmp_path / "link.json"
    target.write_text("old")
    link.symlink_to(target)
    p = run_cli("report", str(RECORDED), "--export-json", str(link), timeout=60)
    assert p.returncode == 0, p.stderr
    assert link.is_symlink() and json.loads(target.read_text())["schema"] == "layertax/1"


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_an_export_into_a_character_device_is_never_replaced(tmp_path):
    null = tmp_path / "null"
    os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))    # our own /dev/null, in the temp dir
    p = run_cli("report", str(RECORDED), "--export-json", str(null), timeout=60)
    assert p.returncode == 0, p.stderr
    assert stat.S_ISCHR(null.lstat().st_mode)


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_a_full_device_fails_in_one_line_after_the_table(tmp_path):
    full = tmp_path / "full"
    os.mknod(full, 0o666 | stat.S_IFCHR, os.makedev(1, 7))    # our own /dev/full
    p = run_cli("report", str(RECORDED), "--export-csv", str(full), timeout=60)
    assert p.returncode == 1
    assert "c-rename" in p.stdout                                # the table is shown all the same
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "could not write --export-csv" in lines[0] and "No space left" in lines[0]
    assert stat.S_ISCHR(full.lstat().st_mode)


def test_dash_exports_to_standard_output():
    p = run_cli("report", str(RECORDED), "--export-json", "-", timeout=60)
    assert p.returncode == 0, p.stderr
    start = p.stdout.index('{\n "schema"')
    doc = json.JSONDecoder().raw_decode(p.stdout[start:])[0]
    assert doc["experiments"][0]["name"] == "callchain"


def test_a_directory_or_an_empty_path_is_refused_in_one_line(tmp_path):
    for target in (str(tmp_path), ""):
        p = run_cli("report", str(RECORDED), "--export-csv", target, timeout=60)
        assert p.returncode == 2, p.stderr
        assert len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr


def _history_rows(data: Path) -> list[tuple]:
    with sqlite3.connect(data / "layertax" / "history.sqlite") as db:
        return db.execute("SELECT path FROM runs").fetchall()


def test_sigterm_keeps_the_rounds_that_finished_and_leaves_nothing_behind(tmp_path):
    data, tmp = tmp_path / "data", tmp_path / "tmp"
    tmp.mkdir(exist_ok=True)
    env = {**os.environ, "XDG_DATA_HOME": str(data), "TMPDIR": str(tmp)}
    proc = subprocess.Popen([sys.executable, "-m", "layertax", "run", "callchain", "--case", "c-rename",
                             "--runs", "400", "--no-syscalls"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    # Past the build (cold in a fresh cache) and into the rounds: the experiment's private
    # directory appears when its measuring starts; then a few rounds.
    deadline = time.monotonic() + 240
    while not any(p.name.startswith("layertax-callchain-") for p in tmp.iterdir()):
        assert time.monotonic() < deadline and proc.poll() is None, "the run never started measuring"
        time.sleep(0.2)
    time.sleep(3)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert "interrupted" in err and "Traceback" not in err
    saved = list((data / "layertax" / "runs").glob("*.json"))
    assert len(saved) == 1 and len(_history_rows(data)) == 1
    exp = json.loads(saved[0].read_text())["experiments"][0]
    rounds = [{s["round"] for s in c["samples"]} for c in exp["cases"] if c["samples"]]
    assert rounds and all(r == rounds[0] for r in rounds)          # the same complete rounds for every case
    assert rounds[0] == set(range(len(rounds[0])))
    assert exp["interrupted"] and not json.loads(saved[0].read_text())["complete"]
    assert list(tmp.iterdir()) == []                                # no private directory left


def test_two_runs_at_once_keep_two_results_and_two_history_rows(tmp_path):
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")}
    argv = [sys.executable, "-m", "layertax", "run", "callchain", "--case", "c-rename", "--runs", "2", "--warmup",
            "0", "--no-syscalls", "--allow-concurrent"]
    procs = [subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              stdin=subprocess.DEVNULL) for _ in range(2)]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    saved = sorted((tmp_path / "data" / "layertax" / "runs").glob("*.json"))
    rows = _history_rows(tmp_path / "data")
    assert len(saved) == 2 and len(rows) == 2 and len({r[0] for r in rows}) == 2
    docs = [json.loads(p.read_text()) for p in saved]
    assert all(d["complete"] and d["concurrent"]["allowed"] for d in docs)


def test_a_second_measuring_layertax_is_refused_unless_allowed(tmp_path):
    from layertax.engine.measure.lock import Measuring, lock_dir

    with Measuring() as claim:                      # this test process measuring, as far as layertax can tell
        refused = run_cli("launch", "--runs", "2", "--", "/bin/true")
        assert refused.returncode == 2 and refused.stdout == ""
        assert refused.stderr.count("\n") == 1 and f"pid {os.getpid()}" in refused.stderr
        assert "--allow-concurrent" in refused.stderr and "Traceback" not in refused.stderr
        allowed = run_cli("launch", "--runs", "2", "--allow-concurrent", "--export-json", str(tmp_path / "r.json"),
                          "--", "/bin/true")
        assert allowed.returncode == 0, allowed.stderr
        assert "measured while another layertax was measuring" in allowed.stdout
        assert claim.look() == {}                   # each child gave its claim back
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["concurrent"] == {"allowed": True, "others": [{"pid": os.getpid(), "command": doc["concurrent"]
                                                               ["others"][0]["command"]}]}
    assert list(lock_dir().iterdir()) == []         # each gave its file back (the directory is the user's own)


def _hostile_doc() -> dict:
    from layertax.engine.analysis import analyze

    name = '<img src=x onerror=alert(1)>|x'
    layer = '=HYPERLINK("http://example.invalid","click")'
    samples = [{"round": r, "iters": 1, "ops": 1, "ns": 100.0 + r} for r in range(6)]
    exp = {"name": "hostile", "title": "<script>t</script>", "question": "a | b", "unit": "ns/op",
           "baseline": name, "classic": None, "notes": [],
           "cases": [{"name": name, "kernel": "k", "layer": layer, "language": "-", "status": "ok",
                      "reason": None, "samples": samples},
                     {"name": "@SUM(1+1)", "kernel": "k", "layer": "-2+3", "language": "-", "status": "failed",
                      "reason": "+cmd|' /C calc'!A0", "samples": []}]}
    exp = analyze.analyzed(exp)
    return {"schema": "layertax/1", "machine": {}, "settings": {"method": "synthetic"}, "command": ["layertax", "<b>"],
            "experiments": [exp]}


def test_markdown_shows_hostile_names_as_text():
    from layertax.report.markdown import to_markdown

    text = to_markdown(_hostile_doc())
    assert "<img" not in text and "<script>" not in text and "<b>" not in text
    assert "&lt;img src=x onerror=alert(1)>\\|x" in text
    # Every row of a table keeps its header's number of cells: no unescaped pipe got in.
    import re

    groups, current = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            current.append(len(re.findall(r"(?<!\\)\|", line)))
        elif current:
            groups.append(current)
            current = []
    assert groups and all(len(set(g)) == 1 for g in groups), groups


def test_csv_neutralises_cells_a_spreadsheet_would_run():
    import csv
    import io

    from layertax.report.csv import to_csv

    rows = list(csv.DictReader(io.StringIO(to_csv(_hostile_doc()))))
    assert rows[0]["layer"].startswith("'=HYPERLINK")
    assert rows[1]["case"] == "'@SUM(1+1)" and rows[1]["layer"] == "'-2+3" and rows[1]["reason"].startswith("'+cmd")
    assert float(rows[0]["median_ns"]) > 0          # numbers stay numbers


def test_non_finite_numbers_are_refused_at_parse_time():
    for bad in (["run", "callchain", "--min-time", "nan"], ["run", "callchain", "--min-time", "1e308"],
                ["run", "callchain", "--precision", "nan"], ["launch", "--timeout", "inf", "--", "/bin/true"],
                ["compare", "a.json", "b.json", "--threshold", "nan"]):
        p = run_cli(*bad, timeout=60)
        assert p.returncode == 2, (bad, p.stderr)
        assert len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr


# ---- a finished measurement is never lost ----------------------------------------------------------------

SABOTAGE = """#!/bin/sh
# Launched by the test's `layertax launch`: the first launch replaces the runs directory with a
# file, as a disk that fills or a directory gone read-only would stop the save.
runs="$1"
if [ -d "$runs" ]; then rm -rf "$runs" && echo "not a directory" > "$runs"; fi
exit 0
"""


def _sabotaged_launch(tmp_path: Path, *extra: str) -> tuple[subprocess.CompletedProcess, Path, Path]:
    data, cwd = tmp_path / "data", tmp_path / "cwd"
    cwd.mkdir()
    script = tmp_path / "sabotage.sh"
    script.write_text(SABOTAGE)
    script.chmod(0o755)
    runs = data / "layertax" / "runs"
    done = subprocess.run([sys.executable, "-m", "layertax", "launch", "--runs", "3", *extra, "--",
                           str(script), str(runs)], capture_output=True, text=True, timeout=300, cwd=cwd,
                          stdin=subprocess.DEVNULL, env={**os.environ, "XDG_DATA_HOME": str(data), "COLUMNS": "100"})
    return done, cwd, runs


def test_a_save_that_fails_after_measuring_shows_the_tables_and_keeps_the_run_elsewhere(tmp_path):
    done, cwd, runs = _sabotaged_launch(tmp_path)
    assert done.returncode == 1, done.stderr
    assert "sabotage.sh" in done.stdout and "spawn->exit" in done.stdout     # the tables came first
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("layertax: error: could not save the run in the runs directory") and "kept it in" in last
    kept = list(cwd.glob("layertax-unsaved-*.json"))
    assert len(kept) == 1 and str(kept[0].name) in last
    doc = json.loads(kept[0].read_text())
    assert doc["experiments"][0]["cases"][0]["samples"]                      # the launches themselves
    assert runs.is_file() and not list(tmp_path.rglob("*.json.tmp")) and "Traceback" not in done.stderr
    assert not [p for p in tmp_path.rglob("*.json") if p.stat().st_size == 0]


def test_a_save_that_fails_names_the_json_export_as_the_kept_copy(tmp_path):
    out = tmp_path / "r.json"
    done, cwd, _ = _sabotaged_launch(tmp_path, "--export-json", str(out))
    assert done.returncode == 1
    assert f"it is kept in --export-json {out}" in done.stderr
    assert json.loads(out.read_text())["experiments"][0]["cases"] and list(cwd.iterdir()) == []


# ---- nothing launched is left running ------------------------------------------------------------------------

def _survivors(marker: str) -> list[str]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
            cwd = os.readlink(f"/proc/{entry}/cwd")
        except OSError:
            continue
        if (marker.encode() in cmdline or marker in cwd) and state != "Z":
            found.append(entry)
    return found


@pytest.mark.parametrize("command", [["launch", "--runs", "3", "--verbose", "--"],
                                     ["inspect", "--runs", "2", "--no-predict", "--verbose"]],
                         ids=["launch", "inspect"])
def test_a_program_that_leaves_daemons_leaves_nothing_running(command, tmp_path, cache_root):
    from conftest import TESTS, build_test_program

    program = build_test_program(cache_root, "daemonize", (TESTS / "kernels" / "daemonize.c",))
    marker = f"layertax-test-daemon-{os.getpid()}-{command[0]}"
    try:
        done = run_cli(*command, str(program), marker, "--no-save", timeout=300) if command[0] == "launch" else \
            run_cli(*command, "--no-save", str(program), marker, timeout=300)
        assert done.returncode == 0, done.stderr
        time.sleep(0.3)
        assert _survivors(marker) == []
        assert "process(es) that" in done.stdout and "were ended after each launch" in done.stdout
    finally:
        for pid in _survivors(marker):
            os.kill(int(pid), signal.SIGKILL)


# ---- an interrupted build cleans up -------------------------------------------------------------------------

def test_sigterm_during_a_first_build_ends_every_compiler_and_removes_the_staging(tmp_path):
    cache, tmp = tmp_path / "cache", tmp_path / "tmp"
    tmp.mkdir(exist_ok=True)
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "TMPDIR": str(tmp)}
    proc = subprocess.Popen([sys.executable, "-m", "layertax", "run", "callchain", "--no-save", "--runs", "1"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    kernels = cache / "layertax" / "kernels"
    deadline = time.monotonic() + 120
    while not (kernels.is_dir() and any(p.name.startswith("layertax-staging-") for p in kernels.iterdir())):
        assert time.monotonic() < deadline and proc.poll() is None, "the build never started"
        time.sleep(0.05)
    time.sleep(1.5)                                   # compilers running
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert err.strip().splitlines()[-1] == "layertax: error: interrupted" and "Traceback" not in err
    time.sleep(0.3)
    assert _survivors(str(cache)) == []               # no ninja, compiler or go build still at work
    assert not [p for p in kernels.rglob("layertax-staging-*")]
    assert not [p for p in tmp.iterdir() if p.name.startswith("layertax-build-")]


def test_a_lock_file_is_never_followed_written_or_taken_for_a_special_file(tmp_path):
    """files.lock_file (the Wine prefix's lock): a file of the user's own, made 0600 where
    missing; a link planted at its name is not followed, nor is a FIFO or a device taken for it."""
    from layertax import files
    from layertax.errors import UsageError

    lock = tmp_path / "made.lock"
    fd = files.lock_file(lock)
    os.close(fd)
    assert stat.S_IMODE(lock.stat().st_mode) == 0o600 and lock.read_bytes() == b""
    target = tmp_path / "target"
    target.write_text("kept")
    (tmp_path / "link.lock").symlink_to(target)
    with pytest.raises(OSError):
        files.lock_file(tmp_path / "link.lock")
    assert target.read_text() == "kept"
    os.mkfifo(tmp_path / "fifo.lock")
    with pytest.raises(UsageError, match="not a regular file"):
        files.lock_file(tmp_path / "fifo.lock")
    if os.geteuid() == 0:                          # a device node of its own needs root
        os.mknod(tmp_path / "null.lock", 0o600 | stat.S_IFCHR, os.makedev(1, 3))
        with pytest.raises(UsageError, match="not a regular file"):
            files.lock_file(tmp_path / "null.lock")
