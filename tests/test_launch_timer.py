"""The launch timer's own behaviour: lines written to a file in batches, a clean stop on
SIGTERM that keeps every finished launch, and the hyperfine-style summary of one command."""
from __future__ import annotations

import io
import json
import os
import signal
import statistics
import subprocess
import sys
import time

import pytest
from rich.console import Console

from layertax import units
from layertax.report import format as fmt
from layertax.engine.analysis import analyze
from layertax.launch import timer
from layertax.launch import settings as launch_settings
from layertax.report import markdown, terminal
from tests.conftest import CountingProgress, run_cli


def _spec(tmp_path, name: str, argv: list[str]):
    spec = tmp_path / "spec"
    timer.write_spec([launch_settings.Target(name, tuple(argv))], spec)
    return spec


def test_the_timer_writes_every_launch_to_its_file(tools, tmp_path):
    out = tmp_path / "lines.jsonl"
    spec = _spec(tmp_path, "true", ["/bin/true"])
    p = subprocess.run([str(tools.timer), "--spec", str(spec), "--runs", "7", "--warmup", "2", "--out", str(out)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stdout == "", p.stderr     # nothing on stdout: the file has it all
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines[0]["timer"] == "layertax-launch" and lines[0]["warmup"] == 2 and lines[0]["warmup_ms"] == 0
    # The warm-up's rounds (all -1), the line saying how many it took, then the measured ones.
    assert lines[3]["warmed"]["rounds"] == 2 and lines[3]["warmed"]["ns"] > 0
    del lines[3]
    # The last line: what the launches left running and the timer ended (a /bin/true leaves nothing).
    assert lines.pop() == {"descendants": {"ended": 0, "launches": 0}}
    assert [x["round"] for x in lines[1:]] == [-1, -1, 0, 1, 2, 3, 4, 5, 6]
    assert all(x["status"] == "ok" and 0 < x["exit_ns"] for x in lines[1:])
    # Each launch's wait for a CPU (the timer's and the child's), where the kernel keeps it.
    if os.path.exists("/proc/self/schedstat"):
        assert all(isinstance(x["runq_wait_ns"], int) and 0 <= x["runq_wait_ns"] for x in lines[1:])
    else:
        assert all(x["runq_wait_ns"] is None for x in lines[1:])


def test_the_warm_up_goes_on_for_its_time_after_its_rounds(tools, tmp_path):
    """--warmup-ms: warm-up rounds (round -1) go on until that long has passed; each launch
    here sleeps 50 ms, so 200 ms take at least four (with no primers, which count in the
    time too), and the measured rounds are as asked."""
    out = tmp_path / "lines.jsonl"
    spec = _spec(tmp_path, "nap", ["/bin/sleep", "0.05"])
    p = subprocess.run([str(tools.timer), "--spec", str(spec), "--runs", "2", "--warmup", "1", "--warmup-ms", "200",
                        "--primers", "0", "--out", str(out)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    warmed = next(x["warmed"] for x in lines if "warmed" in x)
    launches = [x for x in lines if "variant" in x]
    assert warmed["rounds"] >= 4 and warmed["ns"] >= 200_000_000
    assert [x["round"] for x in launches] == [-1] * warmed["rounds"] + [0, 1]


def test_a_negative_warm_up_time_is_refused(tools, tmp_path):
    spec = _spec(tmp_path, "true", ["/bin/true"])
    p = subprocess.run([str(tools.timer), "--spec", str(spec), "--warmup-ms", "-1"], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode != 0 and "usage" in p.stderr


def test_the_method_line_says_what_the_warm_up_was():
    method = lambda **warm: launch_settings.LaunchSettings(**warm).method("command")["method"]
    assert "after a warm-up of at least 1 round and 0.25 s," in method()
    assert launch_settings.LaunchSettings().method("command")["warmup_time"] == 0.25
    assert "after a warm-up of at least 5 rounds and 0.5 s," in method(warmup=5, warmup_time=0.5)
    assert "after a warm-up of 2 rounds," in method(warmup=2, warmup_time=0)
    assert "after no warm-up," in method(warmup=0, warmup_time=0)


def test_the_progress_total_is_unknown_until_a_timed_warm_up_ends(tools):
    """A warm-up that lasts a time takes as many launches as fit in it: the progress starts
    with no total ("n/?") and gets one at the first measured launch, the warm-up's launches
    plus the measured ones; at the end the steps taken are that total. Without a time, the
    total is known from the start."""
    from layertax.launch.timer import launch_cases

    nap = [launch_settings.Target("nap", ("/bin/sleep", "0.05"))]
    progress = CountingProgress()
    launched = launch_cases(nap, launch_settings.LaunchSettings(runs=2, warmup=1, warmup_time=0.2), tools, progress)
    warmed = launched.run.warmed["rounds"]   # 50 ms naps and the first round's two primers: at least two rounds
    assert warmed >= 2 and launched.run.warmed["ns"] >= 200_000_000
    assert progress.totals == [None, warmed + 2] and progress.steps == warmed + 2
    assert [s["round"] for s in launched.cases["nap"].samples] == [0, 1]
    progress = CountingProgress()
    launch_cases(nap, launch_settings.LaunchSettings(runs=2, warmup=1, warmup_time=0), tools, progress)
    assert progress.totals == [3] and progress.steps == 3


class _TwoStretches:
    """Rounds in two stretches, two and two more, as a checkpoint splits a precise run's."""

    def next_stop(self, done):
        return {0: 2, 2: 4}.get(done)

    def most(self):
        return 4

    def going(self, name):
        return True

    def seen(self, samples, failed=()):
        pass

    def finished(self, done, seconds):
        pass

    def record(self, interrupted):
        return None


def test_a_later_stretch_warming_up_for_its_time_never_runs_past_the_total(tools):
    """Each stretch after a checkpoint warms up for its time again, a number of launches not
    known ahead: the total grows with them, so the steps done never pass it, and at the end the
    steps taken are the total."""
    from layertax.launch.timer import launch_cases

    class Watching(CountingProgress):
        def __init__(self):
            super().__init__()
            self.past = []          # steps taken beyond the total at that moment
            self.given = []         # (steps taken, the total given) at each total given

        def retotal(self, total):
            super().retotal(total)
            self.given.append((self.steps, total))

        def step(self, description):
            super().step(description)
            total = next((t for t in reversed(self.totals) if t is not None), None)
            if total is not None and self.steps > total:
                self.past.append((self.steps, total))

    nap = [launch_settings.Target("nap", ("/bin/sleep", "0.05"))]
    progress = Watching()
    launched = launch_cases(nap, launch_settings.LaunchSettings(runs=4, warmup=1, warmup_time=0.2), tools,
                            progress, rounds=_TwoStretches())
    assert [s["round"] for s in launched.cases["nap"].samples] == [0, 1, 2, 3]
    assert progress.past == [] and progress.steps == progress.totals[-1]
    assert progress.steps >= 4 + 2 * 2     # two warm-ups of at least two launches each: both counted
    # From the first measured launch on, the total counts every round to come, not only the
    # stretch's: at the first total, four measured launches are ahead of what was done.
    done_then, first = progress.given[0]
    assert first - done_then == 4


def test_sigterm_ends_the_run_after_the_launch_under_way_and_keeps_the_rest(tools, tmp_path):
    """A stopped timer writes out whole lines only, every launch that finished, and exits 0."""
    out = tmp_path / "lines.jsonl"
    spec = _spec(tmp_path, "nap", ["/bin/sleep", "0.05"])
    proc = subprocess.Popen([str(tools.timer), "--spec", str(spec), "--runs", "1000", "--warmup", "0",
                             "--out", str(out)], stderr=subprocess.PIPE, text=True)
    time.sleep(0.6)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=10) == 0, proc.stderr.read()
    text = out.read_text()
    assert text.endswith("\n")
    launches = [x for x in map(json.loads, text.splitlines()[1:]) if "variant" in x]
    # 0.6 s of 50 ms naps: a few launches, far from the 1000 asked for, each complete.
    assert 3 <= len(launches) < 100
    assert [x["round"] for x in launches] == list(range(len(launches)))
    assert all(x["status"] == "ok" and x["exit_ns"] >= 50_000_000 for x in launches)


def test_the_driver_reads_the_lines_as_the_timer_writes_them(tools):
    """Progress comes from the file: every launch is reported once, in order."""
    seen = []
    run = timer.run([launch_settings.Target("true", ("/bin/true",))], launch_settings.LaunchSettings(runs=5, warmup=1, warmup_time=0),
                     tools, on_launch=lambda launch: seen.append(launch.round))
    assert seen == [-1, 0, 1, 2, 3, 4]
    assert run.warmed["rounds"] == 1 and run.record()["warmed"] == run.warmed
    assert [x.round for x in run.of("true")] == [0, 1, 2, 3, 4] and not run.interrupted
    assert run.record()["descriptor"]["timer"] == "layertax-launch" and isinstance(run.record()["moves"], list)
    # Whether each launch waited for its CPU is said by the run-queue wait, not by the child's
    # involuntary switches, of which nearly every launch has one (the timer's vfork wake-up).
    samples = run.samples("true")
    assert all("runq_wait_ns" in s and isinstance(s["preempted"], bool) for s in samples)
    floor = run.descriptor["placement"]["min_wait_ns"]
    assert all(s["preempted"] == (s["runq_wait_ns"] > max(floor, s["exit_ns"] / 10)) for s in samples)
    assert run.of("true")[0].sample(None)["preempted"] is None   # no rule given: unknown


def test_until_output_times_the_first_byte_on_stdout_or_stderr_and_never_blocks_the_writer(tools):
    """Each variant timed until its output gets output_ns (the first byte, on either stream, comes
    before the exit); one that writes nothing gets None (and no field in its samples); a program
    that writes far more than a pipe holds is drained and exits; the others keep /dev/null."""
    py = sys.executable
    targets = [launch_settings.Target("stdout", (py, "-c", "print('ready', flush=True)"), until_output=True),
               launch_settings.Target("stderr", (py, "-c", "import sys; sys.stderr.write('x')"), until_output=True),
               launch_settings.Target("silent", ("/bin/true",), until_output=True),
               launch_settings.Target("chatty", ("/usr/bin/seq", "1", "200000"), until_output=True),
               launch_settings.Target("plain", ("/usr/bin/seq", "1", "3"))]
    run = timer.run(targets, launch_settings.LaunchSettings(runs=2, warmup=0, warmup_time=0, timeout=20), tools)
    assert not run.failures
    for name in ("stdout", "stderr", "chatty"):
        assert all(x.output_ns is not None and 0 < x.output_ns <= x.exit_ns for x in run.of(name)), name
    assert all(x.output_ns is None for name in ("silent", "plain") for x in run.of(name))
    assert "output_ns" in run.samples("stdout")[0] and "output_ns" not in run.samples("plain")[0]


def test_ctrl_c_in_glibcs_views_stops_the_command_instead_of_returning_fewer_readings(tools):
    """launch.run takes Ctrl-C to stop the timer and keeps what finished; a view built on it
    (LD_DEBUG=statistics) must pass it on, or inspect carries on and calls its result complete."""
    from layertax.elf import loaderview

    pressed = []

    def ctrl_c(line):   # pressed once, as a user does
        if not pressed:
            pressed.append(line)
            raise KeyboardInterrupt

    # Slow enough (30 x 20 ms) that the driver reads lines while the timer still runs.
    target = launch_settings.Target("sleep", ("/bin/sleep", "0.02"))
    with pytest.raises(KeyboardInterrupt):
        loaderview.statistics([target], tools, launch_settings.LaunchSettings(runs=1), None, None, launches=30,
                              on_launch=ctrl_c)


def test_glibcs_debug_output_goes_to_a_memory_filesystem_unless_tmpdir_says_otherwise(tools, tmp_path, monkeypatch):
    """ld.so opens LD_DEBUG_OUTPUT inside the time it reports; a disk-backed /tmp made that
    cost grow run after run (docs/method/loader-views.md). The directory is private and removed after."""
    from layertax.engine import machine
    from layertax.elf import loaderview

    assert loaderview.output_root() is None            # TMPDIR is set (conftest): it is honoured
    memory = tmp_path / "memory"
    memory.mkdir()
    monkeypatch.delenv("TMPDIR")
    monkeypatch.setattr(loaderview, "MEMORY_DIRS", (str(tmp_path / "absent"), str(memory)))
    monkeypatch.setattr(machine, "filesystem_of", lambda path: "tmpfs" if str(path).startswith(str(memory)) else "ext4")
    assert loaderview.output_root() == str(memory)
    readings = loaderview.statistics([launch_settings.Target("true", ("/bin/true",))], tools, launch_settings.LaunchSettings(runs=1),
                                     None, None, launches=2)["true"]
    assert len(readings) == 2 and all(r["status"] == "ok" and r["output_fs"] == "tmpfs" for r in readings)
    assert list(memory.iterdir()) == []                # its private directory is gone
    monkeypatch.setattr(machine, "filesystem_of", lambda path: "ext4")
    assert loaderview.output_root() is None            # no tmpfs: the temp dir


def _one_command_result(samples_us: list[float]) -> dict:
    samples = [{"round": i, "main_ns": v * 1000, "exit_ns": v * 1000 + 50_000, "csw_invol": 0}
               for i, v in enumerate(samples_us)]
    result = {"name": "launch", "title": "process start-up", "question": "How long?", "unit": "spawn->main",
              "metric": "main_ns", "baseline": "prog", "classic": None, "summary": "hyperfine", "notes": [],
              "cases": [{"name": "prog", "kernel": "launch", "layer": "the command", "language": "-",
                         "status": "ok", "reason": None, "samples": samples}]}
    result = analyze.analyzed(result)
    return result


def test_one_command_shows_hyperfines_summary_and_no_empty_comparison():
    result = _one_command_result([100, 110, 120, 130, 140])
    st = result["cases"][0]["stats"]
    assert st["mean"] == pytest.approx(120_000) and st["stdev"] == pytest.approx(15_811.388, rel=1e-6)
    doc = {"machine": {}, "settings": {"method": "synthetic"}, "experiments": [result]}
    out = io.StringIO()
    terminal.render(doc, Console(file=out, width=200, no_color=True))
    text = out.getvalue()
    table = text[text.index("launch: process start-up"):]
    assert "mean ± σ" in table and "min … max" in table and "runs" in table
    assert "120 µs ± 15.8 µs" in table and "100 µs … 140 µs" in table
    header = table[:table.index("prog")]
    assert "ratio" not in header and "then" not in header and "(base)" not in table
    md = markdown.to_markdown(doc)
    assert "| mean ± σ | min … max | runs |" in md and "ratio" not in md[md.index("## launch"):]


@pytest.mark.parametrize("width", [60, 80])
def test_at_80_columns_the_summary_moves_under_the_table_whole(width):
    # A real spawn->exit row (median, interval, spread, mean ± σ, min … max, runs) needs ~85
    # columns: rather than cut "± 38.2 µs" to "± 38.2 …", the summary gets its own line.
    result = _one_command_result([1012.5, 1104.25, 1230.75, 1333.5, 1444.125])
    out = io.StringIO()
    terminal.render({"machine": {}, "settings": {"method": "synthetic"}, "experiments": [result]},
                    Console(file=out, width=width, no_color=True))
    lines = out.getvalue().splitlines()
    st = result["cases"][0]["stats"]
    whole = f"{units.duration(st['min'])} … {units.duration(st['max'])}"    # the range's own "…"
    assert max(map(len, lines)) <= width and not any("…" in line.replace(whole, "") for line in lines)
    flat = " ".join(" ".join(lines).split())   # a narrow terminal wraps the line: read it joined
    assert (f"prog: {units.duration(st['mean'])} ± {units.duration(st['stdev'])} ({whole}), 5 runs") in flat
    assert "mean ± σ" not in lines[lines.index(next(x for x in lines if "median" in x))]   # not a column


def test_a_failed_command_gets_no_summary_line_at_80_columns():
    result = _one_command_result([1012.5, 1104.25, 1230.75, 1333.5, 1444.125])
    result["cases"].append({"name": "broken", "kernel": "launch", "layer": "the command", "language": "-",
                            "status": "failed", "reason": "exit status 1", "samples": []})
    result = analyze.analyzed(result)
    out = io.StringIO()
    terminal.render({"machine": {}, "settings": {"method": "synthetic"}, "experiments": [result]},
                    Console(file=out, width=80, no_color=True))
    flat = " ".join(out.getvalue().split())
    assert "prog: 1.23 ms ± 173 µs" in flat and "broken: " not in flat.split("layers:")[0] and "broken" in flat


def test_two_commands_keep_the_ratio_column():
    result = _one_command_result([100, 110, 120])
    other = json.loads(json.dumps(result["cases"][0]))
    other["name"] = "other"
    result["cases"].append(other)
    result = analyze.analyzed(result)
    text = markdown.to_markdown({"machine": {}, "settings": {"method": "synthetic"}, "experiments": [result]})
    assert "prog (base)" in text and "ratio to prog [95% CI]" in text and "1.00x" in text


def test_launch_of_one_command_prints_the_summary(tmp_path):
    p = run_cli("launch", "--runs", "5", "--no-save", "--", "/bin/true")
    assert p.returncode == 0, p.stderr
    assert "mean ± σ" in p.stdout and "runs" in p.stdout and "(base)" not in p.stdout


def test_the_per_launch_table_gives_cpu_time_as_one_sum_of_the_samples_rusage(tmp_path):
    # The kernel splits a process's CPU time between user and system by timer ticks, and
    # puts a launch that met none all in user: the table gives only the sum, the samples both.
    out = tmp_path / "r.json"
    p = run_cli("launch", "--runs", "7", "--no-save", "--export-json", str(out), "--", "/bin/true")
    assert p.returncode == 0, p.stderr
    exp = json.loads(out.read_text())["experiments"][0]
    table = next(t for t in exp["tables"] if t["title"].startswith("per launch"))
    assert table["columns"][-1] == "CPU time" and "user" not in table["columns"] and "system" not in table["columns"]
    samples = exp["cases"][0]["samples"]
    assert all(s["utime_ns"] >= 0 and s["stime_ns"] >= 0 for s in samples)
    # The table carries the number and its unit; report/ writes it.
    expected = statistics.median(s["utime_ns"] + s["stime_ns"] for s in samples)
    assert table["rows"][0][0] == "true" and table["rows"][0][-1] == expected and table["units"][-1] == "ns"
    assert fmt.written(table)["rows"][0][-1] == units.duration(expected)
    assert "CPU time" in p.stdout
    # Faults are counts: the median of seven is one of them, written without a decimal point.
    faults = units.count(statistics.median(s["minflt"] for s in samples))
    assert fmt.written(table)["rows"][0][4] == faults and "." not in faults


def test_counts_are_written_whole_and_a_median_between_two_keeps_its_half():
    assert units.count(27.0) == "27" and units.count(1234) == "1,234"
    assert units.count(27.5) == "27.5" and units.count(None) == "-"


def test_a_launch_stopped_in_its_warm_up_says_nothing_about_figures_it_does_not_have(tmp_path):
    """Ctrl-C before the first measured launch: exit 130, no samples, and no note that qualifies
    figures ("not every command stamped ... figures are spawn->exit") when there are none."""
    out = tmp_path / "r.json"
    proc = subprocess.Popen([sys.executable, "-m", "layertax", "launch", "--no-stamp", "--runs", "5", "--warmup-time", "60",
                             "--no-save", "--export-json", str(out), "--", "/bin/true"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        time.sleep(3)                              # well inside the 60 s warm-up, however slow the start
        proc.send_signal(signal.SIGINT)
        stdout, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "not every command stamped" not in stdout
    result = json.loads(out.read_text())["experiments"][0]
    assert result["interrupted"] is True and not result["cases"][0]["samples"]
    assert not any("stamped" in n for n in result["notes"])
