"""What each part of the launch timer's work costs an empty program's spawn->exit: the timer
from the working tree with one part taken out at a time, against the same timer whole and a
bare vfork + execve loop (bench/bare_loop.py's `vfork` way), in rotated turns.

The parts are those the timer does and the loop does not (native/launch.c, native/child.c):
- self-schedstat: reading its own /proc/thread-self/schedstat before and after each launch;
- child-schedstat: reading the exited child's /proc/PID/schedstat before reaping it;
- stamp-pipes: handing the stamp and phase pipes to the child (they are still made);
- sigtimedwait: waiting for SIGCHLD with the launch's timeout, where a blocking waitid
  (no timeout) is put instead;
- child-setup: the child's setpgid and its five dup2 calls;
- signal-resets: the child setting back to SIG_DFL the signals the timer catches;
- stamp-env: the two variables (LAYERTAX_STAMP_FD, LAYERTAX_PHASE_FD) added to the
  program's environment;
- all: every one of them out.
Each part is taken out by a source edit asserted to apply, so a timer that has changed
fails here loudly rather than measuring something else. Not a test: it measures, and these
machines are shared.

    .venv/bin/python bench/timer_parts.py [--runs 300] [--turns 48]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from bare_loop import bare_times, build_bare_loop   # this folder's
from command_vs_loop import paired, rotated_turns
from timer_versions import CFLAGS, TIMER_SOURCES, empty_specs, native_tree, times

# part -> (file, text in it, what it becomes)
PARTS = {
    "self-schedstat": [("launch.c", "lt_runq_wait(self_schedstat)", "-1")],
    "child-schedstat": [("launch.c", "child_runq_wait(pid)", "-1")],
    "stamp-pipes": [("launch.c", "{{pipefd[1], STAMP_FD}, {phasefd[1], PHASE_FD}, {dev_null, 0}",
                     "{{dev_null, 0}")],
    "sigtimedwait": [("launch.c", "int sig = sigtimedwait(&chld, NULL, &left);",
                      "int sig = 0; (void)left; siginfo_t blocked; "
                      "waitid(P_PID, (id_t)pid, &blocked, WEXITED | WNOWAIT);")],
    "child-setup": [("child.c", "if (setpgid(0, 0) != 0)", "if (0)"),
                    ("child.c", "for (int i = 0; i < a->ndups; i++)", "for (int i = 0; i < 0; i++)")],
    "signal-resets": [("child.c", "for (int i = 0; i < nreset; i++)", "for (int i = 0; i < 0; i++)")],
    "stamp-env": [("launch.c", "push(&v->envp, &v->envc, fd);", "(void)fd;")],
}
PARTS["all"] = [edit for edits in PARTS.values() for edit in edits]


def build_without(work: Path, label: str, edits: list[tuple[str, str, str]]) -> Path:
    """The working tree's timer with `edits` applied (none: the timer as it is)."""
    src = native_tree(None, work / f"native-{label}")
    for name, old, new in edits:
        text = (src / name).read_text()
        if old not in text:
            raise SystemExit(f"timer_parts: {name} no longer has {old!r}; update PARTS")
        (src / name).write_text(text.replace(old, new))
    timer = work / f"launch-{label}"
    # An edit can leave a helper unused: not worth a warning here.
    subprocess.run(["cc", *CFLAGS, "-Wno-unused-function", "-Wno-unused-variable", "-I", str(src),
                    "-o", str(timer), *(str(src / name) for name in TIMER_SOURCES)], check=True)
    return timer


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300, help="launches per turn of each way")
    parser.add_argument("--turns", type=int, default=48, help="turns per program (each runs every way)")
    args = parser.parse_args()
    cpu = sorted(os.sched_getaffinity(0))[-1]
    with tempfile.TemporaryDirectory(prefix="layertax-bench-") as tmp:
        work = Path(tmp)
        loop = build_bare_loop(work)
        timers = {"timer": build_without(work, "whole", [])}
        timers.update({f"-{part}": build_without(work, part, edits) for part, edits in PARTS.items()})
        print(f"spawn->exit, µs; {args.turns} turns of {args.runs} launches per way, orders rotated; cpu {cpu}")
        for name, program, spec in empty_specs(work):
            measure = {"vfork": lambda: bare_times(loop, program, args.runs, cpu, "vfork")}
            for way, timer in timers.items():
                measure[way] = lambda timer=timer: times(timer, spec, args.runs, cpu, work / "out.jsonl")
            turns = rotated_turns(name, measure, args.turns)
            medians = {way: [float(np.median(values)) for values in turns[way]] for way in measure}
            print(f"{name:<8} {'way':<16} {'median':>7} {'/vfork':>7} {'quicker':>8} {'/timer':>7} {'quicker':>8}")
            for way in measure:
                row = f"{name:<8} {way:<16} {np.median(medians[way]):7.1f}"
                for other in ("vfork", "timer"):
                    if way == other:
                        row += f" {'-':>7} {'-':>8}"
                        continue
                    log, quicker, _ = paired(medians[way], medians[other])
                    row += f" {np.exp(log):7.4f} {quicker:>3}/{args.turns:<4}"
                print(row)
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
