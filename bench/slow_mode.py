"""Issue 23's "slow mode" on demand: a busy task on the launch timer's CPU, against hyperfine.

Builds `int main(void){return 0;}` (gcc -O2 -static) and, for each condition (the machine
idle; a CPU-bound task pinned to the timer's CPU; one pinned to another CPU), runs
`layertax launch --no-stamp` and `hyperfine -N` on it, one after the other, and prints each
one's median spawn->exit, IQR/median and share of launches over twice the median; for
layertax also the timer's moves and how long its slow launches waited for a CPU (run-queue
wait, /proc/PID/schedstat; "-" where the code run does not record it) and what they took
less that wait. A third row runs the timer itself told to stay on its CPU (`--stay`): the
slow mode as it was, now with each launch's wait recorded; a fourth does the same in the busy
task's session rather than one of its own (see timer_staying).

--src DIR runs the layertax of another checkout (its src/ directory, e.g. an old commit
unpacked with `git archive`), for a before-and-after in one script. The busy task is killed
at the end of each condition, and on any error. Not a test: it measures.

    .venv/bin/python bench/slow_mode.py [--runs 300] [--repeats 3] [--src DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from launch_vs_hyperfine import build_empty, hyperfine_times, iqr_over_median, slow_share   # this folder's
from layertax import paths
from layertax.engine.measure.settings import default_cpu
from layertax.launch import timer
from layertax.launch import settings as launch_settings
from layertax.launch import tools as launch_tools

BUSY = "while True: pass\n"
HYPERFINE_WARMUP = 0   # as hyperfine runs by default: no warm-up


def spread(values: list[float]) -> tuple[float, float, float]:
    """Median, IQR/median, and the share over twice the median."""
    return float(np.median(values)), iqr_over_median(values), slow_share(values)


@contextmanager
def busy_on(cpu: int | None):
    """A CPU-bound Python loop pinned to cpu for the duration (none if cpu is None)."""
    if cpu is None:
        yield
        return
    proc = subprocess.Popen([sys.executable, "-c", BUSY])
    try:
        os.sched_setaffinity(proc.pid, {cpu})
        yield
    finally:
        proc.kill()
        proc.wait()


def layertax_run(program: Path, runs: int, work: Path, src: str | None) -> dict:
    out = work / "layertax.json"
    env = {**os.environ, **({"PYTHONPATH": src} if src else {})}
    subprocess.run([sys.executable, "-m", "layertax", "launch", "--runs", str(runs), "--no-stamp", "--no-save",
                    "--export-json", str(out), "--", str(program)],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    exp = json.loads(out.read_text())["experiments"][0]
    moves = exp.get("launch", {}).get("moves")
    return {**_with_waits(exp["cases"][0]["samples"]),
            "moves": "-" if moves is None else ", ".join(f"{m['from']}->{m['to']}" for m in moves) or "none"}


def _with_waits(samples: list[dict]) -> dict:
    """spawn->exit in µs, and for the launches over twice the median: their wait for a CPU, and
    what they took less that wait (both medians, µs; None where waits are not recorded)."""
    times = [s["exit_ns"] / 1e3 for s in samples]
    med = float(np.median(times))
    slow = [(t, s["runq_wait_ns"] / 1e3) for s, t in zip(samples, times)
            if t > 2 * med and s.get("runq_wait_ns") is not None]
    return {"times": times, "slow_wait": float(np.median([w for _, w in slow])) if slow else None,
            "slow_less_wait": float(np.median([t - w for t, w in slow])) if slow else None}


def timer_staying(program: Path, runs: int, work: Path, cpu: int, own_session: bool = True) -> dict:
    """The current timer run directly, pinned to cpu and told never to move (--stay).

    In a session of its own, as loader/launch.py starts it. Where the kernel groups tasks by
    session for scheduling (CONFIG_SCHED_AUTOGROUP), that decides who it shares a CPU with:
    in the busy task's session its nice -10 (as root) would put it ahead of that task; in
    its own, the two sessions share the CPU half and half, whatever the nice. own_session=False
    runs it in this script's session, the busy task's, to show that difference."""
    tools = launch_tools.tools(paths.cache_dir())
    spec, out = work / "spec", work / "launches.jsonl"
    timer.write_spec([launch_settings.Target("empty", (str(program),))], spec)
    subprocess.run([str(tools.timer), "--spec", str(spec), "--runs", str(runs), "--warmup", "1", "--cpu", str(cpu),
                    "--stay", "--raise-priority", "--out", str(out)], check=True, stdout=subprocess.DEVNULL,
                   start_new_session=own_session)   # as layertax starts it: its own session, so its own autogroup
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    return {**_with_waits([x for x in lines if x.get("round", -1) >= 0]), "moves": "stays"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300, help="launches per tool per run")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each tool per condition")
    parser.add_argument("--src", help="the src/ directory of another layertax checkout to run instead")
    args = parser.parse_args()
    if not shutil.which("hyperfine"):
        print("hyperfine is not installed (Debian: apt-get install hyperfine)", file=sys.stderr)
        return 2
    timer_cpu = default_cpu()
    if timer_cpu is None:
        print("one CPU only: the timer is not pinned, so there is no slow mode to show", file=sys.stderr)
        return 2
    other = min(os.sched_getaffinity(0) - {timer_cpu})
    conditions = [("idle", None), (f"busy cpu {timer_cpu} (timer's)", timer_cpu), (f"busy cpu {other}", other)]
    with tempfile.TemporaryDirectory(prefix="layertax-bench-") as tmp:
        work = Path(tmp)
        program = build_empty(work, static=True)
        print(f"{args.runs} launches of an empty static program per run, spawn->exit in µs; layertax "
              f"{'from ' + args.src if args.src else 'as installed'}, its timer pinned to cpu {timer_cpu}")
        print("slow: launches over twice the median; waited: their median run-queue wait; less: their median "
              "spawn->exit less that wait")
        print(f"{'condition':20} {'tool':18} {'median':>6} {'IQR/med':>7} {'slow':>5} {'waited':>6} {'less':>5}  moves")
        for label, cpu in conditions:
            for _ in range(args.repeats):
                with busy_on(cpu):
                    rows = [("layertax", layertax_run(program, args.runs, work, args.src)),
                            ("hyperfine", {"times": hyperfine_times(program, args.runs, HYPERFINE_WARMUP, work)}),
                            ("timer stay", timer_staying(program, args.runs, work, timer_cpu)),
                            ("stay, same session", timer_staying(program, args.runs, work, timer_cpu, False))]
                for tool, got in rows:
                    med, iqr, slow = spread(got["times"])
                    waited, less = (("-" if got.get(k) is None else f"{got[k]:.0f}") for k in ("slow_wait", "slow_less_wait"))
                    print(f"{label:20} {tool:18} {med:>6.0f} {iqr:>7.3f} {slow:>5.1%} {waited:>6} {less:>5}  "
                          f"{got.get('moves', '')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
