"""Hostile input to every command: each case gets one line on stderr that says what is wrong,
the right exit code (2: the request cannot be done as asked; 1: something failed), no
traceback, nothing left behind (no run saved, the temporary directory empty, the working
directory untouched) and nothing outside the test's own directory touched. Every odd file
(a FIFO, a script, an object file, a library, a program whose library is missing, damaged
JSON and ELF, a damaged history) is made here, in the test's temporary directory."""
from __future__ import annotations

import copy
import json
import os
import random
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

RECORDED = Path(__file__).parent / "data" / "recorded" / "callchain.json"
C_SOURCE = "int f(void) { return 0; }\n"
C_MAIN = "int f(void);\nint main(void) { return f(); }\n"


@pytest.fixture(scope="module")
def odd(tmp_path_factory) -> dict[str, Path]:
    """The odd files, made once for the module (read only by the cases, never written)."""
    d = tmp_path_factory.mktemp("odd")
    files = {"dir": d / "a-directory", "fifo": d / "a-fifo", "script": d / "script.sh", "noexec": d / "noexec",
             "junk": d / "junk", "obj": d / "f.o", "lib": d / "libf.so", "missing": d / "needs-libgone",
             "cut_elf": d / "cut-elf", "corrupt_json": d / "corrupt.json", "not_result": d / "not-a-result.json",
             "hf_empty": d / "hyperfine-empty.json", "recorded": d / "recorded.json", "plain": d / "plain.txt"}
    files["dir"].mkdir()
    os.mkfifo(files["fifo"])
    files["script"].write_text("#!/bin/sh\necho hi\n")
    files["script"].chmod(0o755)
    shutil.copy("/bin/true", files["noexec"])
    files["noexec"].chmod(0o644)
    files["junk"].write_bytes(b"\x00junk, not a program" * 10)
    files["junk"].chmod(0o755)
    (d / "f.c").write_text(C_SOURCE)
    (d / "m.c").write_text(C_MAIN)
    subprocess.run(["cc", "-c", "-o", files["obj"], d / "f.c"], check=True)
    subprocess.run(["cc", "-shared", "-fPIC", "-o", d / "libgone.so", d / "f.c"], check=True)
    subprocess.run(["cc", "-o", files["missing"], d / "m.c", "-L", d, "-lgone"], check=True)
    (d / "libgone.so").unlink()                      # the program's library is now missing
    subprocess.run(["cc", "-shared", "-fPIC", "-o", files["lib"], d / "f.c"], check=True)
    files["cut_elf"].write_bytes(Path("/bin/true").read_bytes()[:300])
    files["cut_elf"].chmod(0o755)
    files["corrupt_json"].write_text('{"schema": "layertax/1", "machine": ')
    files["not_result"].write_text('{"benchmarks": []}')
    files["hf_empty"].write_text('{"results": []}')
    shutil.copy(RECORDED, files["recorded"])
    files["plain"].write_text("hello\n")
    files.update(_hostile_results(d))
    return files


def _device_or_link(path: Path, major: int, minor: int, real: str) -> Path:
    """A character device node made here (root), else a link to the system's own."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(major, minor))
    except PermissionError:
        path.symlink_to(real)
    return path


def _hostile_results(d: Path) -> dict[str, Path]:
    """Files that pass for results or imports at a glance and are not: each breaks one rule of
    the schema (src/layertax/result/schema.py), or of what a reader may take in."""
    base = json.loads(RECORDED.read_text())
    files = {"zero": _device_or_link(d / "zero", 1, 5, "/dev/zero"), "empty": d / "empty.sqlite"}
    files["empty"].write_bytes(b"")

    def mutated(name: str, change) -> None:
        doc = copy.deepcopy(base)
        change(doc)
        files[name] = d / f"{name}.json"
        files[name].write_text(json.dumps(doc))

    case0 = lambda doc: doc["experiments"][0]["cases"][0]    # noqa: E731
    mutated("notitle", lambda doc: doc["experiments"][0].pop("title"))
    mutated("stats_oops", lambda doc: case0(doc).__setitem__("stats", "oops"))
    mutated("machine_null", lambda doc: doc.__setitem__("machine", None))
    mutated("samples_junk", lambda doc: case0(doc).__setitem__("samples", ["x", 3]))
    mutated("negative_ns", lambda doc: case0(doc).__setitem__("samples", [{"round": 0, "iters": 1, "ops": 1,
                                                                            "ns": -5}]))
    mutated("zero_ops", lambda doc: case0(doc).__setitem__("samples", [{"round": 0, "iters": 1, "ops": 0, "ns": 5}]))
    mutated("twin_cases", lambda doc: doc["experiments"][0]["cases"].append(copy.deepcopy(case0(doc))))
    mutated("win_name", lambda doc: doc.update(producer="layertax windows runner",
                                               experiments=[{**doc["experiments"][0], "name": "a/b"}]))
    mutated("win_shape", lambda doc: doc.update(producer="layertax windows runner",
                                                experiments=[{**doc["experiments"][0], "shape": {"libs": "x"}}]))
    files["huge_number"] = d / "huge-number.json"
    files["huge_number"].write_text(RECORDED.read_text().replace('"median":', '"median": 1e400, "x":', 1))
    files["nan_literal"] = d / "nan.json"
    files["nan_literal"].write_text(RECORDED.read_text().replace('"median":', '"median": NaN, "x":', 1))
    files["deep"] = d / "deep.json"
    files["deep"].write_text("[" * 100_000 + "]" * 100_000)
    hyperfine = {"results": [{"command": "true", "times": [0.001, 0.002, 0.003], "exit_codes": [0, 0, 0]}]}
    for name, change in (("hf_codes", {"exit_codes": [0]}), ("hf_huge", {"times": [1e300, 1e300]}),
                         ("hf_negative", {"times": [-1.0, 0.5]})):
        files[name] = d / f"{name}.json"
        files[name].write_text(json.dumps({"results": [{**hyperfine["results"][0], **change}]}))
    files["hf_inf"] = d / "hf-inf.json"
    files["hf_inf"].write_text('{"results": [{"command": "true", "times": [Infinity]}]}')
    files["bad_hosts"] = d / "bad-hosts.ini"
    files["bad_hosts"].write_text("[lab]\n../../../tmp/victim ansible_connection=local\n")
    files["random_bytes"] = d / "random.ini"
    files["random_bytes"].write_bytes(random.Random(7).randbytes(4096))
    return files


def _fill(arg: str, odd: dict[str, Path], tmp: Path) -> str:
    return arg.format(tmp=tmp, **{k: str(v) for k, v in odd.items()})


CASES = [
    # run: names, numbers, paths
    ("run-unknown", ["run", "nosuchexperiment"], 2, "unknown experiment"),
    ("run-zero-runs", ["run", "callchain", "--runs", "0"], 2, "--runs"),
    ("run-nan-min-time", ["run", "callchain", "--min-time", "nan"], 2, "--min-time"),
    ("run-huge-min-time", ["run", "callchain", "--min-time", "1e308"], 2, "--min-time"),
    ("run-inf-precision", ["run", "callchain", "--precision", "inf"], 2, "--precision"),
    ("run-negative-budget", ["run", "callchain", "--budget", "-5m"], 2, "--budget"),
    ("run-negative-timeout", ["run", "callchain", "--timeout", "-1"], 2, "--timeout"),
    ("run-bracket-glob", ["run", "callchain", "--case", "["], 2, "no case matches"),
    ("run-empty-export", ["run", "callchain", "--export-json", ""], 2, "empty path"),
    ("run-export-into-dir", ["run", "callchain", "--export-json", "{dir}"], 2, "directory"),
    ("run-export-nowhere", ["run", "callchain", "--export-csv", "{tmp}/no/such/r.csv"], 2, "does not exist"),
    ("run-foreign-option", ["run", "callchain", "--file", "{plain}"], 2, "scan"),
    # scan: sizes and files
    ("scan-size-zero", ["run", "scan", "--size", "0"], 2, "at least 1 MiB"),
    ("scan-size-huge", ["run", "scan", "--size", "100T"], 2, "free"),
    ("scan-size-negative", ["run", "scan", "--size", "-1"], 2, "negative"),
    ("scan-size-words", ["run", "scan", "--size", "lots"], 2, "not a size"),
    ("scan-file-missing", ["run", "scan", "--file", "{tmp}/nope"], 2, "no such file"),
    ("scan-file-fifo", ["run", "scan", "--file", "{fifo}"], 2, "not a regular file"),
    ("scan-file-dir", ["run", "scan", "--file", "{dir}"], 2, "directory"),
    # launch
    ("launch-nothing", ["launch"], 2, "Missing argument"),
    ("launch-missing", ["launch", "--", "{tmp}/nope"], 2, "command not found"),
    ("launch-noexec", ["launch", "--", "{noexec}"], 2, "not executable"),
    ("launch-missing-library", ["launch", "--", "{missing}"], 1, "libgone.so => not found"),
    ("launch-zero-runs", ["launch", "--runs", "0", "--", "/bin/true"], 2, "--runs"),
    ("launch-nan-timeout", ["launch", "--timeout", "nan", "--", "/bin/true"], 2, "--timeout"),
    ("launch-empty-vs", ["launch", "--", "/bin/true", "--vs"], 2, "--vs: no command"),
    ("launch-three-vs", ["launch", "--", "/bin/true", "--vs", "/bin/true", "--vs", "/bin/true"], 2, "once"),
    # inspect: what is not a program, and what cannot start
    ("inspect-missing", ["inspect", "{tmp}/nope"], 2, "no such file"),
    ("inspect-dir", ["inspect", "{dir}"], 2, "directory"),
    ("inspect-fifo", ["inspect", "{fifo}"], 2, "not a regular file"),
    ("inspect-script", ["inspect", "{script}"], 2, "a script (#!/bin/sh)"),
    ("inspect-object", ["inspect", "{obj}"], 2, "an object file"),
    ("inspect-library", ["inspect", "{lib}"], 2, "a shared library without an entry point"),
    ("inspect-junk", ["inspect", "{junk}"], 2, "not an ELF program"),
    ("inspect-cut-elf", ["inspect", "{cut_elf}"], 2, "malformed ELF file"),
    ("inspect-noexec", ["inspect", "{noexec}"], 2, "not executable"),
    ("inspect-missing-library", ["inspect", "{missing}"], 1, "libgone.so => not found"),
    ("inspect-nan-timeout", ["inspect", "--timeout", "nan", "/bin/true"], 2, "--timeout"),
    # report, compare, import
    ("report-missing", ["report", "{tmp}/nope.json"], 2, "no such file"),
    ("report-corrupt", ["report", "{corrupt_json}"], 2, "not valid JSON"),
    ("report-foreign", ["report", "{not_result}"], 2, "not a layertax result"),
    ("report-empty-html", ["report", "{recorded}", "--html", ""], 2, "empty path"),
    ("report-export-into-dir", ["report", "{recorded}", "--export-markdown", "{dir}"], 2, "directory"),
    ("compare-itself", ["compare", "{recorded}", "{recorded}"], 2, "same file"),
    ("compare-one", ["compare", "{recorded}"], 2, "needs two"),
    ("compare-no-history", ["compare", "--vs-history", "1"], 2, "no saved runs"),
    ("compare-nan-threshold", ["compare", "{recorded}", "{recorded}", "--threshold", "nan"], 2, "--threshold"),
    ("import-not-json", ["import-hyperfine", "{plain}"], 2, "not valid JSON"),
    ("import-no-results", ["import-hyperfine", "{hf_empty}"], 2, "not a hyperfine export"),
    # loadtime
    ("gen-empty-out", ["loadtime", "gen", "--out", ""], 2, "empty path"),
    ("gen-existing-out", ["loadtime", "gen", "--out", "{dir}"], 2, "already exists"),
    ("gen-negative", ["loadtime", "gen", "--libs", "-1"], 2, "negative"),
    ("gen-too-big", ["loadtime", "gen", "--libs", "10", "--exports", "1000000", "--relocs", "10000", "--no-build",
                     "--out", "{tmp}/g"], 2, "TB of C"),
    ("sweep-no-vary", ["loadtime", "sweep"], 2, "--vary"),
    ("sweep-words", ["loadtime", "sweep", "--vary", "libs=x"], 2, "integers"),
    ("sweep-too-big", ["loadtime", "sweep", "--vary", "exports=100000", "--vary", "libs=100"], 2, "needs about"),
    ("list-unknown", ["list", "nosuchexperiment"], 2, "unknown experiment"),
    ("doctor-bogus", ["doctor", "--bogus"], 2, "No such option"),
    # input that is not a file to read, or never ends: refused, never read (bounded input)
    ("report-dev-zero", ["report", "{zero}"], 2, "not a regular file"),
    ("report-fifo", ["report", "{fifo}"], 2, "not a regular file"),
    ("report-deep", ["report", "{deep}"], 2, "nests deeper than 64 levels"),
    ("compare-deep", ["compare", "{deep}", "{recorded}"], 2, "nests deeper than 64 levels"),
    ("compare-dev-zero", ["compare", "{recorded}", "{zero}"], 2, "not a regular file"),
    ("history-push-zero", ["history", "push", "{zero}"], 2, "not a regular file"),
    ("import-hf-zero", ["import-hyperfine", "{zero}"], 2, "not a regular file"),
    ("import-windows-zero", ["import-windows", "{zero}"], 2, "not a regular file"),
    # results that look like results and are not: refused where they enter (the schema)
    ("report-no-title", ["report", "{notitle}"], 2, "'title' is a required property"),
    ("report-stats-oops", ["report", "{stats_oops}"], 2, "at experiments[0].cases[0].stats"),
    ("report-machine-null", ["report", "{machine_null}"], 2, "at machine: None is not of type"),
    ("report-samples-junk", ["report", "{samples_junk}"], 2, "samples[0]"),
    ("report-huge-number", ["report", "{huge_number}"], 2, "1e400 is too large"),
    ("report-nan", ["report", "{nan_literal}"], 2, "NaN is not a number"),
    ("report-negative-time", ["report", "{negative_ns}"], 2, "ns is negative"),
    ("report-zero-ops", ["report", "{zero_ops}"], 2, "without a positive ops"),
    ("report-twin-cases", ["report", "{twin_cases}"], 2, "two cases named"),
    ("compare-negative-time", ["compare", "{recorded}", "{negative_ns}"], 2, "ns is negative"),
    ("history-push-invalid", ["history", "push", "{recorded}", "{notitle}"], 2, "'title' is a required"),
    ("import-hf-codes", ["import-hyperfine", "{hf_codes}"], 2, "1 exit codes for 3 times"),
    ("import-hf-infinity", ["import-hyperfine", "{hf_inf}"], 2, "Infinity is not a number"),
    ("import-hf-huge", ["import-hyperfine", "{hf_huge}"], 2, "seconds from 0 to a day"),
    ("import-hf-negative", ["import-hyperfine", "{hf_negative}"], 2, "seconds from 0 to a day"),
    ("import-windows-name", ["import-windows", "{win_name}"], 2, "'a/b' does not match"),
    ("import-windows-shape", ["import-windows", "{win_shape}"], 2, "its shape is not the bundle's"),
    # references to runs of the history
    ("report-at-huge", ["report", "@99999999999999999999"], 2, "ids are whole numbers from 1"),
    ("report-at-words", ["report", "@abc"], 2, "@ and its number"),
    # a run's number as `layertax history` lists it, with no file of that name: the reference it meant
    ("compare-listed-numbers", ["compare", "46", "#47"], 2, "the history's run #46 is @46"),
    ("report-listed-hash", ["report", "#12"], 2, "the history's run #12 is @12"),
    # programs layertax cannot time as they are, and requests too large: said before anything runs
    ("inspect-proc-self", ["inspect", "/proc/self/exe"], 2, "a link under /proc"),
    ("launch-proc-self", ["launch", "--", "/proc/self/exe"], 2, "a link under /proc"),
    ("inspect-model-not-sweep", ["inspect", "--model", "{recorded}", "/bin/true"], 2,
     "not a `layertax loadtime sweep` result"),
    ("launch-too-many-runs", ["launch", "--runs", "1000000000", "--", "/bin/true"], 2, "at most 10,000"),
    ("inspect-too-many-runs", ["inspect", "--runs", "1000000000", "/bin/true"], 2, "at most 10,000"),
    # a history named by the user: its password never printed, a file that is not one never made one
    ("history-url-password", ["--history", "postgresql://me:s3cret@127.0.0.1:9/db", "history"], 1, "me:***@"),
    ("history-query-password", ["--history", "postgresql://me@127.0.0.1:9/db?password=s3cret", "history"], 1,
     "password=***"),
    ("history-keyword-password", ["--history", "host=x password=s3cret", "history"], 2, "password=***"),
    ("history-empty-sqlite", ["--history", "sqlite:///{empty}", "history"], 1, "an empty file, not a history"),
    ("history-sqlite-fifo", ["--history", "sqlite:///{fifo}", "history"], 1, "not a regular file"),
    # the fleet: options and inventories judged before anything is built or deployed
    ("fleet-export-json", ["fleet", "run", "--inventory", "{tmp}/nope.ini", "callchain", "--export-json", "x.json"],
     2, "not a run option here"),
    ("fleet-case-typo", ["fleet", "run", "--inventory", "{tmp}/nope.ini", "callchain", "--case", "nosuch"], 2,
     "no case matches nosuch"),
    ("fleet-path-host", ["fleet", "run", "--inventory", "{bad_hosts}", "callchain", "--runs", "1"], 2,
     "not a host name"),
    ("fleet-random-bytes", ["fleet", "run", "--inventory", "{random_bytes}", "callchain", "--runs", "1"], 2,
     "not UTF-8 text"),
]


@pytest.mark.parametrize("args, code, needle", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_hostile_input(args, code, needle, odd, tmp_path):
    work, cwd = tmp_path / "tmp", tmp_path / "cwd"
    cwd.mkdir()
    argv = [_fill(a, odd, tmp_path) for a in args]
    done = subprocess.run([sys.executable, "-m", "layertax", *argv], capture_output=True, text=True, timeout=120,
                          cwd=cwd, env={**os.environ, "COLUMNS": "100"}, stdin=subprocess.DEVNULL)
    _one_clear_line(done, code, needle)
    assert "s3cret" not in done.stderr + done.stdout                    # no password, ever
    assert "\x1b" not in done.stderr                                   # no raw escape sequence
    _nothing_left_behind(tmp_path, work, cwd)
    if "{empty}" in args:
        assert odd["empty"].read_bytes() == b""                      # refused, never turned into a database


def _one_clear_line(done: subprocess.CompletedProcess, code: int, needle: str) -> None:
    assert done.returncode == code, (done.returncode, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("layertax: error: ") and needle in lines[0], lines[0]
    assert "Traceback" not in done.stderr + done.stdout and "internal error" not in done.stderr
    assert done.stdout == ""


def _nothing_left_behind(root: Path, work: Path, cwd: Path) -> None:
    assert list(work.iterdir()) == []                        # no temporary directory left
    assert list(cwd.iterdir()) == []                         # nothing written where it ran
    data = root / "data"
    assert not data.exists() or not list(data.rglob("*.json"))   # no run saved
    left = {p.name for p in root.iterdir()} - {"tmp", "cwd", "data"}
    assert left == set(), left                               # nothing else made beside them


def test_a_data_directory_that_is_a_file(tmp_path, odd):
    done = subprocess.run([sys.executable, "-m", "layertax", "launch", "--runs", "2", "--", "/bin/true"],
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                          env={**os.environ, "XDG_DATA_HOME": str(odd["plain"])})
    _one_clear_line(done, 2, "cannot keep runs")
    assert odd["plain"].read_text() == "hello\n"


@pytest.mark.parametrize("command", [["history"], ["launch", "--runs", "2", "--", "/bin/true"],
                                     ["run", "callchain", "--quick"]], ids=["history", "launch", "run"])
def test_a_damaged_history_is_reported_before_measuring(command, tmp_path):
    db = tmp_path / "data" / "layertax" / "history.sqlite"
    db.parent.mkdir(parents=True)
    db.write_bytes(b"not a database, whatever sqlite thinks" * 100)
    before = db.read_bytes()
    done = subprocess.run([sys.executable, "-m", "layertax", *command], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    _one_clear_line(done, 1, "cannot be used (file is not a database): rename it")
    assert db.read_bytes() == before                           # reported, never "repaired"
    assert not list(db.parent.rglob("*.json"))
    # --no-save needs no history: the run goes on and is not lost.
    if command[0] == "launch":
        kept = subprocess.run([sys.executable, "-m", "layertax", *command[:3], "--no-save", "--export-json",
                               str(tmp_path / "r.json"), *command[3:]], capture_output=True, text=True, timeout=120,
                              stdin=subprocess.DEVNULL)
        assert kept.returncode == 0, kept.stderr
        assert (tmp_path / "r.json").stat().st_size > 0
