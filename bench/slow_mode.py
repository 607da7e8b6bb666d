"""Issue 23's "slow mode" on demand: a busy task on the launch timer's CPU, against hyperfine.

Builds `int main(void){return 0;}` (gcc -O2 -static) and, for each condition (the machine
idle; a CPU-bound task pinned to the timer's CPU; one pinned to another CPU), runs
`layertax launch --no-stamp` and `hyperfine -N` on it, one after the other, and prints each
one's median spawn->exit, IQR/median and share of launches over twice the median; for
layertax also the timer's moves and how long its slow launches waited for a CPU (run-queue
wait, /proc/PID/schedstat; "-" where the code run does not record it).

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

from layertax.engine.measure.settings import default_cpu

EMPTY_C = "int main(void) { return 0; }\n"
BUSY = "while True: pass\n"


def spread(values: list[float]) -> tuple[float, float, float]:
    """Median, IQR/median, and the share over twice the median."""
    q1, med, q3 = np.percentile(values, [25, 50, 75])
    return float(med), float((q3 - q1) / med), float(np.mean(np.asarray(values) > 2 * med))


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
    samples = exp["cases"][0]["samples"]
    times = [s["exit_ns"] / 1e3 for s in samples]
    med = float(np.median(times))
    waits = [s["runq_wait_ns"] / 1e3 for s, t in zip(samples, times) if t > 2 * med and s.get("runq_wait_ns") is not None]
    moves = exp.get("launch", {}).get("moves")
    return {"times": times, "slow_wait": float(np.median(waits)) if waits else None,
            "moves": "-" if moves is None else ", ".join(f"{m['from']}->{m['to']}" for m in moves) or "none"}


def hyperfine_run(program: Path, runs: int, work: Path) -> list[float]:
    out = work / "hyperfine.json"
    subprocess.run(["hyperfine", "-N", "--runs", str(runs), "--export-json", str(out), str(program)],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return [t * 1e6 for t in json.loads(out.read_text())["results"][0]["times"]]


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
        (work / "empty.c").write_text(EMPTY_C)
        program = work / "empty-static"
        subprocess.run(["cc", "-O2", "-static", "-o", str(program), str(work / "empty.c")], check=True)
        print(f"{args.runs} launches of an empty static program per run, spawn->exit in µs; layertax "
              f"{'from ' + args.src if args.src else 'as installed'}, its timer pinned to cpu {timer_cpu}")
        print(f"{'condition':24} {'tool':9} {'median':>6} {'IQR/med':>7} {'>2x med':>7}  {'slow ones waited':>16}  moves")
        for label, cpu in conditions:
            for _ in range(args.repeats):
                with busy_on(cpu):
                    lt = layertax_run(program, args.runs, work, args.src)
                    hf = hyperfine_run(program, args.runs, work)
                med, iqr, slow = spread(lt["times"])
                waited = "-" if lt["slow_wait"] is None else f"{lt['slow_wait']:.0f}"
                print(f"{label:24} {'layertax':9} {med:>6.0f} {iqr:>7.3f} {slow:>7.1%}  {waited:>16}  {lt['moves']}")
                med, iqr, slow = spread(hf)
                print(f"{label:24} {'hyperfine':9} {med:>6.0f} {iqr:>7.3f} {slow:>7.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
