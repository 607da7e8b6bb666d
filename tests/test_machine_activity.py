"""What the machine did while a run went on (machine.cpu_activity): shares computed from
synthetic /proc/stat readings, the warnings they raise, and the live reading's structure."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from layertax.engine import machine
from layertax.engine.analysis import stats

HZ = os.sysconf("SC_CLK_TCK")
CPUS = os.cpu_count() or 1


def reading(busy: int, idle: int, steal: int = 0, own_s: float | None = 0.0) -> dict:
    """A cpu_times() reading: busy jiffies as user time, and this run's own CPU seconds."""
    r = {"user": busy, "nice": 0, "system": 0, "idle": idle, "iowait": 0, "irq": 0, "softirq": 0, "steal": steal}
    if own_s is not None:
        r["own_ns"] = int(own_s * 1e9)
    return r


def window(seconds: float, busy_share: float, own_cpu_s: float, steal_share: float = 0.0) -> tuple[dict, dict]:
    """Two readings `seconds` apart on this machine's CPUs, the CPUs busy_share busy (steal
    included), of which own_cpu_s CPU seconds were this run's."""
    total = round(seconds * HZ * CPUS)
    steal = round(total * steal_share)
    busy = round(total * busy_share) - steal
    return reading(0, 0), reading(busy, total - busy - steal, steal, own_cpu_s)


def test_the_busy_time_this_run_did_not_use_is_outside():
    before, after = window(2.0, busy_share=0.5, own_cpu_s=0.5 * CPUS * 2.0 * 0.6)
    activity = machine.cpu_activity(before, after)
    assert activity["busy_share"] == 0.5
    assert activity["own_share"] == pytest.approx(0.3, abs=1e-3)
    assert activity["outside_share"] == pytest.approx(0.2, abs=1e-3)
    assert activity["window_s"] == pytest.approx(2.0, abs=0.01)


def test_stolen_time_is_not_counted_as_outside_tasks():
    before, after = window(2.0, busy_share=0.5, own_cpu_s=0.0, steal_share=0.1)
    activity = machine.cpu_activity(before, after)
    assert activity["steal_share"] == pytest.approx(0.1, abs=1e-3)
    assert activity["outside_share"] == pytest.approx(0.4, abs=1e-3)


def test_own_time_above_the_busy_time_leaves_no_negative_share():
    # Tasks' own times and /proc/stat's per-CPU jiffies are counted apart; over a second they
    # can disagree by a jiffy or two either way.
    before, after = window(1.5, busy_share=0.25, own_cpu_s=0.26 * CPUS * 1.5)
    activity = machine.cpu_activity(before, after)
    assert activity["outside_share"] == 0.0
    assert activity["own_share"] <= 1.0


def test_no_outside_share_over_a_window_too_short_to_count_in_jiffies():
    before, after = window(machine.OUTSIDE_MIN_WINDOW_S / 2, busy_share=0.9, own_cpu_s=0.0)
    activity = machine.cpu_activity(before, after)
    assert activity["busy_share"] == pytest.approx(0.9, abs=0.02)
    assert activity["outside_share"] is None


def test_readings_without_the_runs_own_time_give_no_outside_share():
    before, after = reading(0, 0, own_s=None), reading(100 * CPUS * 2, 100 * CPUS * 2, own_s=None)
    assert machine.cpu_activity(before, after)["outside_share"] is None
    assert machine.cpu_activity(None, after) is None


def test_an_outside_share_over_the_limit_is_an_experiment_warning():
    assert stats.experiment_warnings({"steal_share": 0.0, "outside_share": stats.NOISY_OUTSIDE / 2}) == []
    assert stats.experiment_warnings({"steal_share": 0.0, "outside_share": None}) == []
    assert stats.experiment_warnings(None) == []
    (warning,) = stats.experiment_warnings({"steal_share": 0.0, "outside_share": 0.26})
    assert "26%" in warning and "outside this run" in warning
    both = stats.experiment_warnings({"steal_share": 0.05, "outside_share": 0.26})
    assert len(both) == 2 and "hypervisor" in both[0]


def test_a_live_reading_counts_a_reaped_childs_cpu_time_as_this_runs():
    before = machine.cpu_times()
    assert set(machine.STAT_COLUMNS) | {"own_ns"} == set(before)
    # A child that computes, then is reaped: its CPU time joins RUSAGE_CHILDREN.
    subprocess.run([sys.executable, "-c", "sum(i * i for i in range(300_000))"], check=True)
    after = machine.cpu_times()
    assert after["own_ns"] > before["own_ns"]
    assert all(after[k] >= before[k] for k in machine.STAT_COLUMNS)


def test_busy_time_no_visible_process_used_is_unseen():
    before, after = window(1.0, busy_share=0.6, own_cpu_s=0.0, steal_share=0.1)
    activity = machine.cpu_activity(before, after)
    total_ticks = HZ * CPUS * activity["window_s"]
    # 0.6 busy, 0.1 of it stolen; processes visible here used 0.2 of all CPU time: 0.3 unseen.
    assert machine.unseen_share(activity, round(0.2 * total_ticks)) == pytest.approx(0.3, abs=0.01)
    assert machine.unseen_share(activity, round(0.9 * total_ticks)) == 0.0
    assert machine.unseen_share(None, 0) is None


def test_the_doctor_names_unseen_tasks_only_above_the_limit():
    fp = {"virtualized": True, "cores": CPUS}
    quiet = {"busy_share": 0.3, "steal_share": 0.0, "unseen_share": machine.UNSEEN_WARN / 2}
    assert not any("no process here can see" in m for _, m in machine.advice(fp, quiet))
    busy = dict(quiet, unseen_share=0.3)
    (level, message), = [(lv, m) for lv, m in machine.advice(fp, busy) if "no process here can see" in m]
    assert level == "warn" and message.startswith("30% of the CPUs' time")


def test_the_doctors_advice_wraps_under_its_words_with_its_level_coloured():
    """At 80 columns a long piece of advice continues under its first word, not at column 0 nor
    under its level; the levels are padded to one width and only the level is coloured."""
    from layertax.commands.doctor import advice_line

    message = ("ASLR is on (randomize_va_space=2): start-up timings vary with layout; it is the normal "
               "setting, so layertax measures with it")
    lines = advice_line("info", message, 80).plain.split("\n")
    assert len(lines) == 2 and all(len(line) <= 80 for line in lines)
    assert lines[0].startswith("  info ASLR is on") and lines[1].startswith(" " * 7) and lines[1][7] != " "
    assert " ".join(line.strip() for line in lines) == "info " + message
    short = advice_line("ok", "steal time 0.0% over the last second", 80)
    assert short.plain == "  ok   steal time 0.0% over the last second"
    assert [(span.start, span.end, str(span.style)) for span in short.spans] == [(2, 4, "green")]


def test_visible_processes_include_this_one():
    own = os.times()
    own_ticks = int((own.user + own.system) * HZ)
    assert machine.visible_ticks() >= own_ticks


def test_this_machines_id_is_the_fingerprints_without_starting_a_tool(monkeypatch):
    """A listing of this machine's runs asks only its id; the id is the full fingerprint's, and no
    tool's version is probed for it (that starts twenty processes)."""
    full = machine.fingerprint()["machine_id"]
    monkeypatch.setattr(machine.toolchain, "versions", lambda: pytest.fail("a tool was probed"))
    assert machine.this_machine_id() == full
