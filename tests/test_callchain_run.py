"""callchain end to end: real kernels, real renames, the JSON the issue asks for, and Ctrl-C."""
import json
import re
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import history_experiments, run_cli

from layertax.engine import measuring_code
from layertax.experiments import callchain

pytestmark = pytest.mark.slow

DATA = Path(__file__).parent / "data"


QUICK_CASES = ("c-raw-syscall", "c-rename", "py-os-rename-str", "py-shutil-move", "go-os-rename", "rust-fs-rename",
               "java-files-move", "node-renamesync-string")


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("quick")
    env = {"XDG_DATA_HOME": str(tmp / "data"), "TMPDIR": str(tmp)}
    out = tmp / "r.json"
    md, csv = tmp / "r.md", tmp / "r.csv"
    # --quick's protocol, its budget cut: the budget never cuts a case below the minimum of rounds
    # (6 x 2 samples), which is all these tests read; a noisy machine would spend all 60 s. A case
    # or two of each language (each runtime's kernel, each export's rows), not all 21: every
    # case's kernel is run and verified in test_difference_counts and make run.
    cases = [arg for name in QUICK_CASES for arg in ("--case", name)]
    p = run_cli("run", "callchain", "--quick", "--budget", "5s", *cases, "--export-json", str(out), "--export-markdown", str(md),
                "--export-csv", str(csv), "--export-pyperf", str(tmp / "r.pyperf.json"),
                "--export-html", str(tmp / "r.html"), "--export-bmf", str(tmp / "r.bmf.json"),
                "--export-gbench", str(tmp / "r.gbench.json"), env=env)
    return p, out, md, csv, tmp, env


def test_quick_run_prints_the_table_and_saves(quick_run):
    p, out, md, csv, tmp, env = quick_run
    assert p.returncode == 0, p.stderr
    assert "ratios to c-raw-syscall" in p.stdout and "MoveFileA" in p.stdout
    # The noise probe takes seconds: said as it starts (no terminal here), its forecast after.
    probe = p.stderr.index("layertax: measuring this machine's noise")
    assert probe < p.stderr.index("noise probe (") < p.stderr.index("layertax: callchain: ")
    # Notes wrap between words with a hanging indent, as the lines under a table do (no line left
    # with the trailing space of rich's own wrapping).
    assert not [line for line in p.stderr.splitlines() if line != line.rstrip()]
    assert "saved: " in p.stdout
    saved = p.stdout.split("saved: ")[1].split()[0]
    assert saved.startswith(str(tmp / "data" / "layertax" / "runs"))
    assert json.loads(open(saved).read())["experiments"][0]["name"] == "callchain"
    # The private work directories are gone.
    assert not [d for d in os.listdir(tmp) if d.startswith("layertax-")]


def test_json_has_the_schema_fields(quick_run):
    doc = json.loads(quick_run[1].read_text())
    assert doc["schema"] == "layertax/1" and doc["complete"] is True
    assert doc["machine"]["cpu_model"] and doc["machine"]["libc"]
    exp = doc["experiments"][0]
    assert exp["classic"]["figures"][0]["value"] == 2230
    assert exp["code"] == measuring_code.digest(callchain.EXPERIMENT.package_dir)   # which runs it is set beside
    assert {c["name"] for c in exp["cases"]} == set(QUICK_CASES)
    by_name = {c["name"]: c for c in exp["cases"]}
    if by_name["c-rename"].get("syscalls"):   # strace installed: the counting run's figures are in the JSON
        assert by_name["c-rename"]["syscalls"]["per_op"] == {"rename": 1.0}
    for case in exp["cases"]:
        if case["status"] == "skipped":
            assert case["reason"]
            continue
        assert case["status"] == "ok", case
        assert len(case["samples"]) >= 5
        st = case["stats"]
        assert st["min"] <= st["median"] and st["ci95"][0] <= st["median"] <= st["ci95"][1]
        assert st["ratio"]["median"] > 0
        for s in case["samples"]:
            assert s["ops"] == 2 * s["iters"] and s["ns"] > 0


def test_exports_and_report(quick_run):
    p, out, md, csv, tmp, env = quick_run
    assert "| c-rename |" in md.read_text() and "system calls / op" in md.read_text()
    assert csv.read_text().startswith("experiment,group,case,layer")
    assert len(csv.read_text().splitlines()) == 1 + len(QUICK_CASES)     # a row a case run
    again = run_cli("report", str(out), env=env)
    assert again.returncode == 0 and "c-raw-syscall (base)" in again.stdout


def test_history_lists_the_run(quick_run):
    p, out, md, csv, tmp, env = quick_run
    h = run_cli("history", env=env)
    assert h.returncode == 0 and "callchain" in h.stdout


def test_ctrl_c_keeps_finished_rounds_and_removes_temp_dirs(tmp_path):
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "TMPDIR": str(tmp_path)}
    # Only the C cases, so that rounds are short and several finish before the interrupt;
    # far more rounds than can finish in the wait, however fast the machine.
    proc = subprocess.Popen([sys.executable, "-m", "layertax", "run", "callchain", "--case", "c-*", "--runs", "100000",
                             "--burst", "1", "--min-time", "0.002", "--no-syscalls"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            env=env, stdin=subprocess.DEVNULL,
                            # As at a terminal: a shell's background job inherits SIGINT ignored,
                            # and Python then rightly never raises KeyboardInterrupt.
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    runs = tmp_path / "data" / "layertax" / "runs"
    # Wait until measuring has clearly begun (the work directory exists), then a few rounds more.
    deadline = time.monotonic() + 120
    while not [d for d in os.listdir(tmp_path) if d.startswith("layertax-callchain")]:
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.1)
    time.sleep(2)          # C rounds of one short sample each: dozens finish in this
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()   # never leave a run behind if the interrupt was not taken
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    files = list(runs.glob("*.json"))
    assert len(files) == 1
    doc = json.loads(files[0].read_text())
    assert doc["complete"] is False and doc["experiments"][0]["interrupted"] is True
    ok = [c for c in doc["experiments"][0]["cases"] if c["status"] == "ok"]
    assert ok and all(c["samples"] for c in ok)
    assert not [d for d in os.listdir(tmp_path) if d.startswith("layertax-")]


def test_compare_of_a_run_with_its_copy_says_no_difference_everywhere(quick_run, tmp_path):
    p, out, md, csv, tmp, env = quick_run
    copy = tmp_path / "copy.json"
    copy.write_bytes(out.read_bytes())      # the same file twice is refused (test_hostile_input)
    c = run_cli("compare", str(out), str(copy), env=env)
    assert c.returncode == 0, c.stderr
    doc = json.loads(out.read_text())
    timed = [x["name"] for x in doc["experiments"][0]["cases"] if x["status"] == "ok"]
    rows = [line for line in c.stdout.splitlines() if line.startswith("│")]
    verdicts = {line.split("│")[1].strip(): line.split("│")[-2].strip() for line in rows}
    assert set(timed) <= set(verdicts) and "geometric mean (interval ≥95%)" in verdicts
    assert set(verdicts.values()) == {"no difference"}
    assert "machines differ" not in c.stdout


def test_compare_vs_history_finds_the_previous_run(quick_run, tmp_path):
    p, out, md, csv, tmp, env = quick_run
    env = {**env, "XDG_DATA_HOME": str(tmp_path / "data")}
    none = run_cli("compare", "--vs-history", "1", env=env)
    assert none.returncode == 2 and "no saved runs" in none.stderr
    for _ in range(2):
        r = run_cli("run", "callchain", "--quick", "--case", "c-rename", "--runs", "3", "--no-syscalls", env=env)
        assert r.returncode == 0, r.stderr
    c = run_cli("compare", "--vs-history", "1", env=env)
    assert c.returncode == 0, c.stderr
    history = run_cli("history", env=env).stdout
    assert history_experiments(history) == ["callchain"] * 2
    # c-rename is judged on its ratio to the baseline (A and B in x), the baseline on its times.
    rows = {line.split("│")[1].strip(): line.split("│")[2].strip() for line in c.stdout.splitlines()
            if line.startswith("│")}
    assert rows["c-rename"].endswith("x") and rows["c-raw-syscall"].endswith("s")
    too_far = run_cli("compare", "--vs-history", "2", env=env)
    assert too_far.returncode == 2 and "no 2nd earlier run of callchain" in too_far.stderr


def test_pyperf_reads_the_export(quick_run):
    p, out, md, csv, tmp, env = quick_run
    exported = tmp / "r.pyperf.json"
    data = json.loads(exported.read_text())
    doc = json.loads(out.read_text())
    ok = [c for c in doc["experiments"][0]["cases"] if c["status"] == "ok"]
    assert [b["metadata"]["name"] for b in data["benchmarks"]] == [f"callchain/{c['name']}" for c in ok]
    first = data["benchmarks"][0]
    assert len(first["runs"]) == len({s["round"] for s in ok[0]["samples"]})
    assert first["runs"][0]["values"][0] == pytest.approx(ok[0]["samples"][0]["ns"] / ok[0]["samples"][0]["ops"] / 1e9)
    shown = subprocess.run([sys.executable, "-m", "pyperf", "compare_to", str(exported), str(exported)],
                           capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr
    assert "callchain/c-rename" in shown.stdout or "Benchmark hidden because not significant" in shown.stdout
    stats = subprocess.run([sys.executable, "-m", "pyperf", "stats", str(exported)], capture_output=True, text=True,
                           timeout=120)
    assert stats.returncode == 0 and "callchain/c-rename" in stats.stdout, stats.stderr


def test_bmf_export_follows_the_published_schema(quick_run):
    import jsonschema
    p, out, md, csv, tmp, env = quick_run
    data = json.loads((tmp / "r.bmf.json").read_text())
    # The schema bencher.dev publishes for BMF (https://bencher.dev/bmf.json), kept in tests/data.
    schema = json.loads((DATA / "bmf.schema.json").read_text())
    jsonschema.validate(data, schema)
    doc = json.loads(out.read_text())
    exp = doc["experiments"][0]
    ok = {c["name"]: c for c in exp["cases"] if c["status"] == "ok" and c["stats"]}
    assert set(data) == {f"callchain/{name}" for name in ok}
    for name, case in ok.items():
        latency = data[f"callchain/{name}"]["latency"]
        assert latency["value"] == pytest.approx(case["stats"]["median"])
        assert [latency["lower_value"], latency["upper_value"]] == pytest.approx(case["stats"]["ci95"])
        assert latency["lower_value"] <= latency["value"] <= latency["upper_value"]
    baseline = data[f"callchain/{exp['baseline']}"]["ratio-to-baseline"]
    assert baseline["value"] == 1.0


def test_gbench_export_is_read_by_google_benchmarks_compare(quick_run):
    p, out, md, csv, tmp, env = quick_run
    exported = tmp / "r.gbench.json"
    data = json.loads(exported.read_text())
    doc = json.loads(out.read_text())
    assert data["context"]["num_cpus"] == doc["machine"]["cores"]
    assert data["context"]["layertax_machine_id"] == doc["machine"]["machine_id"]
    rename = next(c for c in doc["experiments"][0]["cases"] if c["name"] == "c-rename")
    rounds = [b for b in data["benchmarks"] if b["name"] == "callchain/c-rename" and b["run_type"] == "iteration"]
    assert len(rounds) == len({s["round"] for s in rename["samples"]}) == rounds[0]["repetitions"]
    assert all(b["real_time"] == b["cpu_time"] > 0 and b["time_unit"] == "ns" for b in rounds)
    median = next(b for b in data["benchmarks"] if b["name"] == "callchain/c-rename_median")
    assert median["run_type"] == "aggregate" and median["aggregate_name"] == "median"
    compare_py = "/usr/share/benchmark/compare.py"     # Debian's libbenchmark-tools, installed by the set-up
    if not os.path.exists(compare_py):
        pytest.skip("Google Benchmark's compare.py is missing: apt-get install libbenchmark-tools")
    shown = subprocess.run([sys.executable, compare_py, "--no-color", "benchmarks", str(exported), str(exported)],
                           capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr
    assert "callchain/c-rename_median" in shown.stdout and "callchain/c-rename_pvalue" in shown.stdout


def test_html_report_renders_in_chromium_with_its_charts(quick_run):
    from browser import colour_share, dom, load_failures, screenshot

    from layertax.report.plots import BAR
    p, out, md, csv, tmp, env = quick_run
    page = tmp / "r.html"
    assert f"wrote: {page}" in p.stdout
    html = page.read_text()
    # Self-contained: no fetch of anything (the SVG namespace is a name, not a fetch).
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", html) and "<script" not in html.lower()
    shot = tmp / "shot.png"
    s = screenshot(page, shot, tmp)
    assert shot.exists() and shot.stat().st_size > 10_000, s.stderr[-2000:]
    assert not load_failures(s.stderr)
    # The bar chart is drawn: its bars' colour covers a visible part of the first screen.
    rgb = tuple(int(BAR[i:i + 2], 16) for i in (1, 3, 5))
    assert colour_share(shot, rgb) > 0.005
    d = dom(page, tmp)
    assert d.returncode == 0 and not load_failures(d.stderr)
    doc = json.loads(out.read_text())
    timed = [c for c in doc["experiments"][0]["cases"] if c["status"] == "ok"]
    assert d.stdout.count("<svg") == 2            # the bar chart and the distribution of samples
    for case in timed:
        assert f">{case['name']}<" in d.stdout    # each case in the table (and as chart text)
