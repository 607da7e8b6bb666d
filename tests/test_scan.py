"""scan: the input generator, the options' errors, the throughput shares, and real
runs in which every kernel must count exactly what numpy and `tr | wc` count."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from conftest import run_cli
from layertax.experiments.scan import inputfile, sizes, tables
from layertax.experiments.scan.sizes import ceiling_bytes
from layertax import units
from layertax.report import format as fmt


def tr_count(path: Path) -> int:
    """The count as the issue defines it: tr -cd cCgG < FILE | wc -c (no shell: a pipe of two processes)."""
    with open(path, "rb") as f:
        tr = subprocess.Popen(["tr", "-cd", "cCgG"], stdin=f, stdout=subprocess.PIPE)
        wc = subprocess.run(["wc", "-c"], stdin=tr.stdout, capture_output=True, text=True, check=True)
        tr.stdout.close()
        assert tr.wait() == 0
    return int(wc.stdout.split()[0])


# --- sizes ---

@pytest.mark.parametrize("text,expected", [("4096", 4096), ("64M", 64 << 20), ("64MiB", 64 << 20), ("500MB", 500 * 10**6),
                                           ("1.5GiB", 3 << 29), ("2k", 2048), ("0", 0), ("7B", 7), ("1ZB", 10**21)])
def test_sizes_parse(text, expected):
    assert sizes.parse_size(text) == expected


@pytest.mark.parametrize("text,why", [("-5", "negative"), ("-1M", "negative"), ("abc", "not a size"),
                                      ("5 apples", "not a size"), ("", "not a size"), ("1QB", "not a size")])
def test_sizes_reject(text, why):
    with pytest.raises(ValueError, match=why):
        sizes.parse_size(text)


def test_sizes_human():
    assert sizes.human(256 << 20) == "256 MiB"
    assert sizes.human(3 << 29) == "1.5 GiB"
    assert sizes.human(12) == "12 B"


# --- the generator ---

def test_generator_is_deterministic_fasta_like_and_counted_exactly(tmp_path):
    a, b = tmp_path / "a.fa", tmp_path / "b.fa"
    size = 3 * inputfile.CHUNK // 2 + 12345   # crosses a chunk boundary and ends mid-line
    count_a = inputfile.generate(a, size)
    count_b = inputfile.generate(b, size)
    assert a.stat().st_size == size
    assert a.read_bytes() == b.read_bytes() and count_a == count_b
    assert count_a == tr_count(a)
    data = a.read_bytes()
    assert data.startswith(b">")
    lines = data.split(b"\n")[1:-1]   # the header, and the last line cut by the size
    lengths = {len(line) for line in lines}
    assert min(lengths) >= inputfile.LINE_MIN and max(lengths) <= inputfile.LINE_MAX
    body = np.frombuffer(b"".join(lines), dtype=np.uint8)
    assert set(np.unique(body).tobytes()) == set(b"ACGTacgt")   # mixed case, bases only
    gc = inputfile.count_cg(body) / body.size
    assert 0.38 < gc < 0.44


def test_generator_small_sizes(tmp_path):
    for size in (0, 1, 10, 100):
        path = tmp_path / f"s{size}"
        assert inputfile.generate(path, size) == tr_count(path)
        assert path.stat().st_size == size


def test_count_file_matches_tr(tmp_path):
    path = tmp_path / "mixed.bin"
    path.write_bytes(bytes(range(256)) * 1000 + b"cCgG\r\nACGT" * 77)
    assert inputfile.count_file(path) == (tr_count(path), path.stat().st_size)


def test_ceiling_follows_the_file_within_bounds():
    assert ceiling_bytes(0) == 1 << 20
    assert ceiling_bytes(256 << 20) == 256 << 20
    assert ceiling_bytes(10 << 30) == 1 << 30


# --- bad input: one clear line each ---

def one_line_error(proc: subprocess.CompletedProcess, code: int, *needles: str) -> str:
    assert proc.returncode == code, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("layertax: error:")
    assert "Traceback" not in proc.stderr
    for needle in needles:
        assert needle in lines[0]
    return lines[0]


def test_missing_file(tmp_path):
    one_line_error(run_cli("run", "scan", "--file", str(tmp_path / "nope")), 2, "no such file")


def test_directory(tmp_path):
    one_line_error(run_cli("run", "scan", "--file", str(tmp_path)), 2, "is a directory")


def test_special_file():
    one_line_error(run_cli("run", "scan", "--file", "/dev/null"), 2, "not a regular file")


def test_unreadable_file_in_process(tmp_path, monkeypatch):
    """Root reads anything, so the check is also driven with open(2) refusing, as it does for a user."""
    path = tmp_path / "secret"
    path.write_bytes(b"cg")

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(os, "open", refuse)
    with pytest.raises(ValueError, match="permission denied"):
        inputfile.check_readable(path)


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read a file without read permission")
def test_unreadable_file(tmp_path):
    path = tmp_path / "secret"
    path.write_bytes(b"cg")
    path.chmod(0)
    one_line_error(run_cli("run", "scan", "--file", str(path)), 2, "permission denied")


@pytest.mark.parametrize("size,needle", [("-5", "negative"), ("1ZB", "free"), ("lots", "not a size")])
def test_bad_sizes(size, needle):
    one_line_error(run_cli("run", "scan", "--size", size), 2, needle)


def test_file_and_size_exclude_each_other(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"acgt")
    one_line_error(run_cli("run", "scan", "--file", str(path), "--size", "1M", "--no-save"), 2, "exclude")


def test_option_of_an_experiment_not_run(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"acgt")
    one_line_error(run_cli("run", "callchain", "--file", str(path)), 2, "scan")


def test_help_lists_the_scan_options():
    out = run_cli("run", "--help").stdout
    for flag in ("--file", "--size", "--cold", "[scan]"):
        assert flag in out


# --- an experiment's own defaults ---

def test_experiment_defaults_yield_to_given_settings_and_quick():
    from layertax.engine.measure.settings import Settings
    from layertax.experiments import get

    defaults = get("scan").defaults
    assert Settings().for_experiment(defaults).runs == defaults["runs"]
    assert Settings(runs=3, given=("runs",)).for_experiment(defaults).runs == 3
    assert Settings(runs=3, given=("runs",)).for_experiment(defaults).burst == defaults["burst"]
    assert Settings(runs=6, quick=True).for_experiment(defaults).runs == 6
    # --quick keeps its values but for an experiment's own burst or rounds where fewer: scan's one
    # pass a round (--quick's burst of two doubled a round of scan); a burst given still stands.
    quick = Settings.from_options(quick=True, pin=False)
    assert (quick.for_experiment(defaults).burst, quick.for_experiment(defaults).runs) == (1, defaults["runs"])
    assert quick.for_experiment(defaults).min_sample_ns == quick.min_sample_ns
    assert quick.for_experiment({"burst": 15, "min_sample_ns": 1_000_000}) == quick     # callchain's: more
    assert Settings.from_options(quick=True, burst=3, pin=False).for_experiment(defaults).burst == 3
    # scan pairs its cases with getc per round (a getc burst beside every two cases doubled a
    # round), under --quick too; a pairing given stands.
    assert Settings().pairing == "beside" and Settings().for_experiment(defaults).pairing == "round"
    assert quick.for_experiment(defaults).pairing == "round"
    assert Settings.from_options(pairing="beside", pin=False).for_experiment(defaults).pairing == "beside"
    assert Settings.from_options(quick=True, pairing="beside", pin=False).for_experiment(defaults).pairing == "beside"


def test_a_pairing_not_known_is_one_clear_line():
    from layertax.engine.measure.settings import Settings
    from layertax.errors import UsageError

    with pytest.raises(UsageError, match="--pairing must be one of beside, round"):
        Settings.from_options(pairing="apart", pin=False)


# --- shares on synthetic samples ---

def synthetic_case(name: str, ns_by_round: list[float]) -> dict:
    samples = [{"round": r, "iters": 1, "ops": 1, "ns": ns} for r, ns in enumerate(ns_by_round)]
    return {"name": name, "status": "ok", "samples": samples, "stats": {"median": float(np.median(ns_by_round))}}


def test_throughput_shares_are_paired_per_round():
    # The machine drifts by round; the kernel is always half the ceiling's rate on twice the bytes' worth of time.
    drift = [1.0, 1.3, 0.9, 1.1, 0.8, 1.0]   # median 1.0
    info = {"bytes": 1000, "ceiling_bytes": 2000, "count": 1, "summary": "test"}
    memory = synthetic_case("mem-read", [200 * d for d in drift])       # 2000 B / 200 ns = 10 GB/s
    kernel = synthetic_case("mmap-simd", [125 * d for d in drift])      # 1000 B / 125 ns = 8 GB/s
    cache = synthetic_case("pagecache-read", [250 * d for d in drift])  # 4 GB/s
    perl = synthetic_case("perl-tr", [1250 * d for d in drift])
    result = {"input": info, "cases": [memory, kernel, cache, perl]}
    table = tables.throughput(result, {"mmap-simd": "then"})
    rows = {r[0]: r for r in fmt.written(table)["rows"]}     # numbers with their units, written by report/
    assert rows["mmap-simd"][1] == "8.00"
    assert rows["mmap-simd"][2] == "80% [80%, 80%]"
    assert rows["mmap-simd"][3] == "200% [200%, 200%]"
    assert rows["mmap-simd"][4] == "0.10x [0.10, 0.10]"    # the whole table: the interval (--verbose)
    assert rows["mmap-simd"][5] == "then"
    assert rows["mem-read"][2] == "100% [100%, 100%]"
    numbers = {r[0]: r for r in table["rows"]}
    assert numbers["mmap-simd"][2]["median"] == pytest.approx(0.8) and numbers["mmap-simd"][4]["median"] == pytest.approx(0.1)
    assert table["best"]["case"] == "mmap-simd"
    assert table["best"]["share_of_memory"]["median"] == pytest.approx(0.8)
    assert [r[0] for r in table["rows"]][0] == "mem-read"   # fastest first


def test_the_short_throughput_table_gives_the_time_vs_perl_with_the_digits_its_interval_supports():
    drift = [1.0, 1.3, 0.9, 1.1, 0.8, 1.0, 1.2, 0.95]
    wobble = [1.0, 1.1, 0.9, 1.05, 0.95, 1.0, 1.08, 0.92]
    info = {"bytes": 1000, "ceiling_bytes": 2000, "count": 1, "summary": "test"}
    cases = [synthetic_case("mem-read", [200 * d for d in drift]), synthetic_case("pagecache-read", [250 * d for d in drift]),
             synthetic_case("getc", [1900 * d * w for d, w in zip(drift, wobble)]),
             synthetic_case("perl-tr", [1250 * d for d in drift])]
    short = next(t for t in tables.experiment_tables({"input": info, "cases": cases}) if t.get("brief"))
    getc = next(r for r in short["rows"] if r[0] == "getc")
    vs_perl = getc[short["columns"].index("time vs perl-tr")]
    written = next(r for r in fmt.written(short)["rows"] if r[0] == "getc")[short["columns"].index("time vs perl-tr")]
    assert written == units.ratio_point(vs_perl) and written == units.ratio_with_ci(vs_perl).split(" [")[0]
    assert "of page-cache read" not in short["columns"]


def test_throughput_of_an_empty_file_has_no_rates():
    info = {"bytes": 0, "ceiling_bytes": 1 << 20, "count": 0, "summary": "empty"}
    result = {"input": info, "cases": [synthetic_case("mem-read", [100.0] * 3), synthetic_case("getc", [5.0] * 3)]}
    table = tables.throughput(result, {})
    rows = {r[0]: r for r in fmt.written(table)["rows"]}
    assert rows["getc"][1] == "-" and rows["getc"][2] == "-"
    assert any("empty" in n for n in table["notes"])


# --- real runs: every kernel counts what tr counts ---

def run_scan(tmp_path: Path, *args: str, burst: tuple[str, ...] = ("--burst", "1")) -> dict:
    out = tmp_path / "scan.json"
    proc = run_cli("run", "scan", "--runs", "1", "--warmup", "0", *burst, "--min-time", "0.001",
                   "--no-syscalls", "--no-save", "--export-json", str(out), *args, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    doc = json.loads(out.read_text())
    [exp] = doc["experiments"]
    return exp


@pytest.mark.slow
def test_every_kernel_counts_a_hostile_file_exactly(tmp_path):
    """A user's file: binary bytes, CRLF, NULs, a very long line, no final newline."""
    path = tmp_path / "user.dat"
    rng = np.random.default_rng(7)
    path.write_bytes(rng.integers(0, 256, 300_000, dtype=np.uint8).tobytes() + b"gattaca\r\n" * 5000
                     + b"C" * 200_000 + b"\x00g")
    before = path.read_bytes()
    exp = run_scan(tmp_path, "--file", str(path))
    expected = tr_count(path)
    assert exp["input"]["count"] == expected and exp["input"]["bytes"] == path.stat().st_size
    statuses = {c["name"]: (c["status"], c["reason"]) for c in exp["cases"]}
    ok = [n for n, (s, _) in statuses.items() if s == "ok"]
    assert not [n for n, (s, _) in statuses.items() if s == "failed"], statuses
    for name, (status, reason) in statuses.items():   # skipped only for a missing toolchain, with its hint
        assert status == "ok" or "install" in (reason or ""), (name, reason)
    assert {"getc", "getc-unlocked", "getc-thread", "mmap-simd", "mmap-mask", "cpp-lines-view", "py-lines"} <= set(ok)
    assert path.read_bytes() == before   # read-only, never modified
    assert list((tmp_path / "tmp").iterdir()) == []   # the private work directory is gone
    table = exp["tables"][0]
    assert {r[0] for r in table["rows"]} == set(ok)


@pytest.mark.slow
def test_empty_file_counts_zero(tmp_path):
    path = tmp_path / "empty"
    path.write_bytes(b"")
    exp = run_scan(tmp_path, "--file", str(path), "--case", "mmap-*", "--case", "getc", "--case", "py-*",
                   "--case", "cpp-lines-view")
    assert exp["input"]["count"] == 0
    assert all(c["status"] == "ok" for c in exp["cases"]), [(c["name"], c["reason"]) for c in exp["cases"]]


@pytest.mark.slow
def test_generated_input_and_cold_runs(tmp_path):
    exp = run_scan(tmp_path, "--size", "3M", "--cold", "--case", "read-64k", "--case", "mmap-simd", burst=())
    info = exp["input"]
    assert info["source"] == "generated" and info["bytes"] == 3 << 20 and info["page_cache"] == "cold"
    assert info["cold"]["method"].startswith("posix_fadvise")
    assert len(info["cold"]["resident_after_evict"]) >= 3   # one eviction per invocation
    for case in exp["cases"]:
        assert case["status"] == "ok", case["reason"]
        assert all(s["iters"] == 1 for s in case["samples"])   # one pass per cold sample, no calibration
        # --cold: one sample per invocation (getc, the baseline of two cases here, runs once a round)
        assert len(case["samples"]) == 1
    assert exp["settings"]["burst"] == 1   # --cold overrides the burst
    assert list((tmp_path / "tmp").iterdir()) == []


def test_reports_name_the_settings_an_experiment_ran_with():
    from layertax.report import format as fmt

    line = fmt.own_settings_line({"settings": {"runs": 10, "burst": 1}})
    assert line == "this experiment ran with rounds = 10, samples per round = 1"
    assert fmt.own_settings_line({}) is None


def test_the_throughput_table_is_brief_without_verbose_and_whole_in_the_result():
    """A bare run shows the ceilings, the best kernel and the article's rows; the whole table is
    detail (--verbose and every export)."""
    import json
    from pathlib import Path

    from layertax.experiments.scan import tables as scan_tables

    doc = json.loads((Path(__file__).parent / "data" / "recorded" / "scan.json").read_text())
    exp = next(e for e in doc["experiments"] if e["name"] == "scan")
    whole, short = scan_tables.experiment_tables(exp)
    assert whole["detail"] and short["brief"] and len(short["rows"]) < len(whole["rows"])
    names = {row[0] for row in short["rows"]}
    best = {whole["best"]["case"]} if whole.get("best") else set()    # a recording keeps no rounds to pair
    assert {"mem-read", "pagecache-read", *best} <= names
    assert names - {"mem-read", "pagecache-read", *best} <= set(scan_tables.FINDINGS)
    assert "of page-cache read" not in short["columns"] and len(short["align"]) == len(short["columns"])
    assert all(len(row) == len(short["columns"]) for row in short["rows"])
