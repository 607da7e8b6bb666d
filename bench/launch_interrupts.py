"""What the kernel did on the timer's CPU during each launch: the interrupts and softirqs
that landed inside it, for the slowest quarter of launches against the others.

Runs `layertax launch` on a static empty program under the kernel's tracepoints (tracefs:
process fork and exit, irq and softirq entry and exit, the local timer, sched_switch),
limited to the timer's CPU, then places every interrupt inside the launch (fork to exit)
it fell in. Needs root and tracefs (mounted at /sys/kernel/tracing); restores the tracing
state it changed. Not a test: it measures, and these machines are shared.

    sudo .venv/bin/python bench/launch_interrupts.py [--runs 300]
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import numpy as np

from launch_vs_hyperfine import build_empty   # this folder's

TRACING = Path("/sys/kernel/tracing")
EVENTS = ["sched/sched_process_fork", "sched/sched_process_exit", "irq/softirq_entry", "irq/softirq_exit",
          "irq/irq_handler_entry", "irq/irq_handler_exit", "irq_vectors/local_timer_entry",
          "irq_vectors/local_timer_exit", "irq_vectors/call_function_single_entry",
          "irq_vectors/call_function_single_exit", "irq_vectors/reschedule_entry", "irq_vectors/reschedule_exit",
          "irq_vectors/irq_work_entry", "irq_vectors/irq_work_exit"]
LINE = re.compile(r"\s(\d+\.\d+): (\w+): (.*)")


def write(name: str, value: str) -> None:
    (TRACING / name).write_text(value)


def trace(command: list[str], cpu: int) -> str:
    """The trace of command, recorded on one CPU only."""
    # buffer_size_kb reads as "7 (expanded: 1408)" before first use: its first number is the setting.
    saved = {name: (TRACING / name).read_text().split()[0] for name in ("tracing_cpumask", "buffer_size_kb")}
    write("tracing_on", "0")
    write("trace", "")
    write("tracing_cpumask", format(1 << cpu, "x"))
    write("buffer_size_kb", "65536")
    try:
        for event in EVENTS:
            write(f"events/{event}/enable", "1")
        write("tracing_on", "1")
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        write("tracing_on", "0")
        return (TRACING / "trace").read_text()
    finally:
        write("tracing_on", "0")
        for event in EVENTS:
            write(f"events/{event}/enable", "0")
        for name, value in saved.items():
            write(name, value)
        write("trace", "")


def parse(text: str) -> tuple[list[tuple[float, float]], list[tuple[float, float, str]]]:
    """(each launch's fork and exit time, each interrupt's start, end and kind)."""
    launches: dict[int, list] = {}
    interrupts, open_ = [], {}
    for line in text.splitlines():
        m = LINE.search(line)
        if not m:
            continue
        t, event, rest = float(m[1]), m[2], m[3]
        if event == "sched_process_fork" and "comm=launch" in rest:
            launches[int(re.search(r"child_pid=(\d+)", rest)[1])] = [t, None]
        elif event == "sched_process_exit":
            pid = int(re.search(r"pid=(\d+)", rest)[1])
            if pid in launches:
                launches[pid][1] = t
        elif event.endswith("_entry"):
            kind = event[:-6]
            if kind == "softirq":
                kind += ":" + re.search(r"action=(\w+)", rest)[1]
            elif kind == "irq_handler":
                kind += ":" + re.search(r"name=(\S+)", rest)[1]
            open_[event[:-6]] = (t, kind)
        elif event.endswith("_exit") and event[:-5] in open_:
            start, kind = open_.pop(event[:-5])
            interrupts.append((start, t, kind))
    return sorted((a, b) for a, b in launches.values() if b), interrupts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300)
    args = parser.parse_args()
    if os.geteuid() != 0 or not (TRACING / "trace").exists():
        print("needs root and tracefs at /sys/kernel/tracing (mount -t tracefs nodev /sys/kernel/tracing)",
              file=sys.stderr)
        return 2
    cpu = sorted(os.sched_getaffinity(0))[-1]       # where the timer pins itself and its children
    with tempfile.TemporaryDirectory(prefix="layertax-bench-") as tmp:
        program = build_empty(Path(tmp), static=True)
        text = trace([sys.executable, "-m", "layertax", "launch", "--runs", str(args.runs), "--no-stamp",
                      "--no-save", "--", str(program)], cpu)
    launches, interrupts = parse(text)
    took = np.array([(b - a) * 1e6 for a, b in launches])
    inside = []
    for a, b in launches:
        per_kind: dict[str, float] = defaultdict(float)
        for start, end, kind in interrupts:
            if a <= start <= b:
                per_kind[kind] += (end - start) * 1e6
        inside.append(per_kind)
    slow = took > np.percentile(took, 75)
    print(f"{len(launches)} launches on cpu {cpu} (warm-ups included), fork->exit from the trace: median "
          f"{np.median(took):.0f} µs, slowest quarter above {np.percentile(took, 75):.0f} µs, "
          f"{took[slow].mean() - took[~slow].mean():.0f} µs slower on average than the others")
    print(f"{'inside a launch':34} {'slowest quarter':>22} {'the others':>22}")
    print(f"{'':34} {'share hit':>11} {'mean µs':>10} {'share hit':>11} {'mean µs':>10}")
    for kind in sorted({k for p in inside for k in p}):
        v = np.array([p.get(kind, 0.0) for p in inside])
        print(f"{kind:34} {np.mean(v[slow] > 0):>11.0%} {v[slow].mean():>10.1f} "
              f"{np.mean(v[~slow] > 0):>11.0%} {v[~slow].mean():>10.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
