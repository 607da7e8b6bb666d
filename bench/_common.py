"""What the maintained benches share (bench/README.md lists them), so that no bench imports
another: the empty programs every launch bench times, the three ways of timing them (layertax's
`launch`, hyperfine, and the bare loop: the least a launch timer can be), turns run in
alternation and printed, and one experiment's case run through `layertax run`; and the
models of per-round ratios the coverage benches simulate (each with an exact truth), and the
block bootstrap they resample recorded rounds with.

The bare loop is a C loop, pinned to a CPU, glibc's posix_spawn with stdio on /dev/null,
waitpid, CLOCK_MONOTONIC around the two, the samples kept in memory and printed at the end:
no stamp pipes, no run-queue reads, no JSON lines, no primers or placement. The benches hold
layertax's timer (timer_vs_bare_loop.py) and hyperfine (launch_vs_hyperfine.py --contender
bare) against it.
"""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from layertax.engine.analysis import analyze, stats
from layertax.engine.store import results
from layertax.errors import UsageError


EMPTY_C = "int main(void) { return 0; }\n"


# Launches left out when asking whether a turn changed level later on: hyperfine's first few
# dozen run slower than the rest despite its warm-up (docs/method/launch-timer.md).
SETTLED = 30


def build_empty(work: Path, static: bool) -> Path:
    """EMPTY_C built with gcc -O2 (and -static if asked) in work: the program every launch bench times."""
    source = work / "empty.c"
    source.write_text(EMPTY_C)   # a bench's own scratch directory, not a user's file
    program = work / ("empty-static" if static else "empty-dynamic")
    subprocess.run(["cc", "-O2", *(["-static"] if static else []), "-o", str(program), str(source)], check=True)
    return program


def iqr_over_median(values: list[float]) -> float:
    q1, med, q3 = np.percentile(values, [25, 50, 75])
    return float((q3 - q1) / med)


def slow_share(values: list[float]) -> float:
    """The share of launches that took more than twice the median: the "slow mode"."""
    med = float(np.median(values))
    return float(np.mean(np.asarray(values) > 2 * med))


def shift_label(shift: dict | None) -> str:
    """How far a turn's times changed level (layertax's own test, in launch order), or "-"."""
    return f"{shift['effect']:.0%}" if shift else "-"


def layertax_times(program: Path, runs: int, warmup: int, work: Path,
                   warmup_time: float | None = None, dodge: bool = True) -> list[float]:
    """spawn->exit of every measured launch, in µs; warmup_time None: the command's default."""
    return layertax_turn(program, runs, warmup, work, warmup_time, dodge)[0]


def layertax_turn(program: Path, runs: int, warmup: int, work: Path,
                  warmup_time: float | None = None, dodge: bool = True) -> tuple[list[float], int]:
    """layertax_times, and how many of the launches waited for their CPU."""
    out = work / "layertax.json"
    timed = [] if warmup_time is None else ["--warmup-time", str(warmup_time)]
    timed += [] if dodge else ["--no-dodge"]
    subprocess.run([sys.executable, "-m", "layertax", "launch", "--runs", str(runs), "--warmup", str(warmup), *timed,
                    "--no-stamp", "--no-save", "--export-json", str(out), "--", str(program)],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    case = json.loads(out.read_text())["experiments"][0]["cases"][0]
    return [s["exit_ns"] / 1e3 for s in case["samples"]], sum(1 for s in case["samples"] if s["preempted"])


def hyperfine_times(program: Path, runs: int, warmup: int, work: Path) -> list[float]:
    """spawn->exit of hyperfine's runs, in µs."""
    out = work / "hyperfine.json"
    subprocess.run(["hyperfine", "-N", "--runs", str(runs), "--warmup", str(warmup), "--export-json", str(out),
                    str(program)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return [t * 1e6 for t in json.loads(out.read_text())["results"][0]["times"]]


def hyperfine_turn(program: Path, runs: int, warmup: int, work: Path) -> tuple[list[float], None]:
    """hyperfine_times, and None: whether its runs waited for a CPU is not known."""
    return hyperfine_times(program, runs, warmup, work), None


BARE_LOOP_C = r"""
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
extern char **environ;
static long long now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000LL + t.tv_nsec; }
/* bare-loop RUNS CPU WAY PAUSE_NS PROGRAM [ARG...]: prints each launch's ns. WAY: spawn
   (stdio opened on /dev/null by the child), spawn-inherit (no file actions: the child keeps
   the loop's stdio), vfork (vfork + execve, the child does nothing else). PAUSE_NS: a spin on
   the clock before each launch (0: none), outside the timed interval. */
int main(int argc, char **argv) {
    if (argc < 6) return 2;
    int runs = atoi(argv[1]);
    const char *way = argv[3];
    long long pause = atoll(argv[4]);
    char **args = argv + 5;
    int inherit = strcmp(way, "spawn-inherit") == 0, use_vfork = strcmp(way, "vfork") == 0;
    if (!inherit && !use_vfork && strcmp(way, "spawn") != 0) return 2;
    cpu_set_t set; CPU_ZERO(&set); CPU_SET(atoi(argv[2]), &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) return 2;
    long long *ns = malloc(sizeof *ns * runs);
    posix_spawn_file_actions_t fa; posix_spawn_file_actions_init(&fa);
    for (int fd = 0; fd < 3; fd++) posix_spawn_file_actions_addopen(&fa, fd, "/dev/null", O_RDWR, 0);
    for (int i = -5; i < runs; i++) {
        pid_t pid; int status;
        for (long long until = now() + pause; now() < until;)
            ;
        long long t0 = now();
        if (use_vfork) {
            pid = vfork();
            if (pid == 0) { execve(args[0], args, environ); _exit(127); }
            if (pid < 0) return 2;
        } else if (posix_spawn(&pid, args[0], inherit ? NULL : &fa, NULL, args, environ) != 0) return 2;
        if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return 2;
        long long t1 = now();
        if (i >= 0) ns[i] = t1 - t0;
    }
    for (int i = 0; i < runs; i++) printf("%lld\n", ns[i]);
    return 0;
}
"""


def build_bare_loop(work: Path) -> Path:
    source, loop = work / "bare_loop.c", work / "bare-loop"
    source.write_text(BARE_LOOP_C)
    subprocess.run(["cc", "-O2", "-o", str(loop), str(source)], check=True)
    return loop


SPAWN_WAYS = ("spawn", "spawn-inherit", "vfork")   # the loop's ways of starting the child (its C's comment)


def bare_times(loop: Path, program: Path, runs: int, cpu: int, way: str = "spawn", pause_ns: int = 0,
               args: tuple[str, ...] = ()) -> list[float]:
    """spawn->exit of the loop's measured launches of program with args, µs; pause_ns: a spin
    before each launch."""
    out = subprocess.run([str(loop), str(runs), str(cpu), way, str(pause_ns), str(program), *args], check=True,
                         capture_output=True, text=True)
    return [int(line) / 1e3 for line in out.stdout.split()]


def timer_times(timer: Path, spec: Path, runs: int, cpu: int, out: Path) -> list[float]:
    """spawn->exit of the measured launches, µs."""
    subprocess.run([str(timer), "--spec", str(spec), "--runs", str(runs), "--warmup", "5", "--cpu", str(cpu),
                    "--out", str(out)], check=True, stdout=subprocess.DEVNULL)
    lines = [json.loads(line) for line in out.read_text().splitlines()[1:]]
    return [x["exit_ns"] / 1e3 for x in lines if x.get("round", -1) >= 0 and x.get("status") == "ok"]


def empty_specs(work: Path):
    """The static and the dynamic empty program, each with the one-variant spec the timer reads:
    (name, program, spec path)."""
    for static in (True, False):
        program = build_empty(work, static=static)
        name = "static" if static else "dynamic"
        spec = work / f"spec-{name}"
        spec.write_text(f"variant e\narg {program}\n")
        yield name, program, spec


def print_turns(name: str, repeats, ratio, widths: tuple[int, int, int, int]) -> tuple[list, tuple[list, list]]:
    """Each alternating turn as a row under the caller's header (both medians, ratio(first,
    second), both IQR/median, in columns of `widths`); returns the ratios and the two sides'
    IQR/median."""
    ratios, spreads = [], ([], [])
    for rep, (med, iqr) in enumerate(repeats):
        ratios.append(ratio(*med))
        spreads[0].append(iqr[0])
        spreads[1].append(iqr[1])
        print(f"{name:<8} {rep + 1:>3} {med[0]:>{widths[0]}.1f} {med[1]:>{widths[1]}.1f} {ratios[-1]:>6.3f} "
              f"{iqr[0]:>{widths[2]}.3f} {iqr[1]:>{widths[3]}.3f}")
    return ratios, spreads


def alternating(measure_a, measure_b, repeat: int):
    """Runs two measurements alternately `repeat` times (which goes first alternates too), and
    yields each repeat's medians and IQR/medians: ([a, b], [a, b])."""
    measures = (measure_a, measure_b)
    for rep in range(repeat):
        got = {}
        for which in ((0, 1) if rep % 2 == 0 else (1, 0)):
            got[which] = measures[which]()
        yield [float(np.median(got[w])) for w in (0, 1)], [iqr_over_median(got[w]) for w in (0, 1)]


def layertax_export(args: list[str], out: Path, save: bool = False) -> dict:
    """`layertax run ARGS` quietly, exported to out and, only where save is set, saved in the
    runs and the history as a default run is; the result it exported."""
    subprocess.run([sys.executable, "-m", "layertax", "run", *args, *([] if save else ["--no-save"]),
                    "--export-json", str(out)],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return json.loads(out.read_text())


def intervals_apart(a: dict, b: dict) -> bool:
    """Whether two figures' 95% intervals ({"ci95": [low, high]}) do not overlap."""
    return a["ci95"][1] < b["ci95"][0] or b["ci95"][1] < a["ci95"][0]


def ratios_to_baseline(exp: dict, case: dict) -> list[float]:
    """A case's per-round ratios to its baseline, in round order, from a saved experiment (its
    figure: ns/op, or its metric); [] for a baseline itself, or where either kept no samples."""
    base = next((c for c in exp["cases"] if c["name"] == analyze.baseline_of(exp, case)), None)
    if base is None or base is case or not case.get("samples") or not base.get("samples"):
        return []
    metric = analyze.sample_metric(exp)
    return stats.paired_ratios(analyze.round_values(case, metric), analyze.beside_values(case, base, metric))


def layertax_experiment(experiment: str, case: str, cpu: int, out: Path, options: list[str]) -> dict:
    """`layertax run EXPERIMENT --case CASE` with options; its result (the case and its
    baselines), as layertax saved it. Exits if the case was not measured."""
    exp = layertax_export([experiment, "--case", case, "--cpu", str(cpu), "--no-syscalls", *options],
                          out)["experiments"][0]
    found = [c for c in exp["cases"] if c["name"] == case]
    if not found or found[0]["status"] != "ok":
        raise SystemExit(f"layertax did not measure {case}: {found[0]['reason'] if found else 'no such case'}")
    return exp


def finish(main) -> None:
    """Runs a bench's main() and exits with its status. A reader that went away (`| head`) ends
    the bench quietly, as it ends a filter, not with a traceback: stdout then points at /dev/null,
    since Python flushes it once more on the way out."""
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 1
    sys.exit(code)


def read_run(path: str | Path, prog: str) -> dict:
    """A saved result, read as layertax reads one (within the input limit, parsed strictly,
    validated); anything else ends the bench with one line naming the file, and status 2."""
    try:
        return results.load(path)
    except UsageError as error:
        print(f"{prog}: {error}", file=sys.stderr)
        raise SystemExit(2) from None


def recorded_ratios(paths: list[str], at_least: int = 30,
                    every_cpu_as: type | None = None) -> list[tuple[str, list[tuple[str, np.ndarray]]]]:
    """The recorded paired ratios (in round order) of every case of saved runs with at least
    `at_least` rounds: (experiment, [(case, ratios)]) per experiment that has such a case. Where
    every_cpu_as (an ndarray subclass) is given, a case that runs on every CPU at once
    (experiment.Case.every_cpu: the ^ mark) has its ratios viewed as it."""
    found = []
    for path in paths:
        doc = read_run(path, Path(sys.argv[0]).name)
        for exp in doc["experiments"]:
            cases = [(case["name"], _tagged(np.array(ratios_to_baseline(exp, case)),
                                            every_cpu_as if case.get("every_cpu") else None))
                     for case in exp.get("cases", [])]
            cases = [(name, ratios) for name, ratios in cases if ratios.size >= at_least]
            if cases:
                found.append((exp["name"], cases))
    return found


def _tagged(ratios: np.ndarray, as_type: type | None) -> np.ndarray:
    return ratios if as_type is None else ratios.view(as_type)


# ---- simulated rounds: models of per-round ratios with an exact truth ----------------------

def iid(rng, n):
    return np.exp(rng.normal(0, 0.05, n)), 1.0


def _mixture_values(rng, n):
    slow = rng.random(n) < 0.15
    return np.exp(rng.normal(0, 0.03, n) + np.where(slow, rng.uniform(math.log(1.2), math.log(1.6), n), 0.0))


def mixture(rng, n):
    return _mixture_values(rng, n), MIXTURE_TRUTH


def drift(rng, n, phi=0.6, shared=0.7):
    d = np.empty(n)
    d[0] = rng.normal(0, 0.05)
    for i in range(1, n):
        d[i] = phi * d[i - 1] + rng.normal(0, 0.05 * math.sqrt(1 - phi * phi))
    case = d + rng.normal(0, 0.02, n)
    base = shared * d + rng.normal(0, 0.02, n)
    return np.exp(case - base), 1.0       # symmetric about 0 on the log scale: the median ratio is 1


def steps(rng, n, stay=0.9, gap=0.10, shared=0.9):
    """The machine's speed steps by 10% and stays for ten rounds on average; the baseline feels
    90% of a step, so the ratio steps by 1% (a shared VM's slow stretches)."""
    state = rng.random() < 0.5
    levels = np.empty(n)
    for i in range(n):
        levels[i] = gap if state else 0.0
        if rng.random() > stay:
            state = not state
    case = levels + rng.normal(0, 0.015, n)
    base = shared * levels + rng.normal(0, 0.015, n)
    return np.exp(case - base), math.exp((1 - shared) * gap / 2)   # a symmetric mixture: its median


# The mixture's median, from four million draws (its error is far below a simulation's).
MIXTURE_TRUTH = float(np.median(_mixture_values(np.random.default_rng(12345), 4_000_000)))
MODELS = {"iid": iid, "mixture": mixture, "drift": drift, "steps": steps}


def block_rounds(rng, length: int, n: int, block: float) -> np.ndarray:
    """n round indices drawn in blocks of consecutive rounds (circularly), each block ending
    with probability 1/block after every round: a stationary bootstrap."""
    picked = [int(rng.integers(0, length))]
    while len(picked) < n:
        picked.append(int(rng.integers(0, length)) if rng.random() < 1 / block else (picked[-1] + 1) % length)
    return np.array(picked)


def default_run(doc: dict) -> bool:
    """Whether a saved run was measured the way a bare `layertax run` measures: the default budget
    and precision, not --quick, --runs, --thorough or --case, complete, not beside another layertax."""
    from layertax.engine.measure.settings import DEFAULT_BUDGET_S

    s = doc.get("settings") or {}
    command = doc.get("command") or ""
    return (s.get("budget_s") == DEFAULT_BUDGET_S and s.get("precision") == 0.02 and not s.get("quick")
            and not s.get("runs_given") and not s.get("thorough") and s.get("metric", "time") == "time"
            and "--case" not in command and doc.get("complete", True)
            and not (doc.get("concurrent") or {}).get("others"))


def saved_default_runs(last: int) -> list[dict] | None:
    """The newest `last` default runs (default_run) of the machine of the newest saved run, oldest
    first; None where the history holds no run. A file that cannot be read is said and passed."""
    from layertax.engine.store import history

    rows = history.runs()
    if not rows:
        return None
    machine = rows[0]["machine_id"]
    docs = []
    for row in rows:
        if row["machine_id"] != machine or len(docs) >= last:
            continue
        try:
            doc = history.load(row)
        except Exception as e:   # noqa: BLE001 - a moved or damaged file: said, and the others read
            print(f"run #{row['id']}: not readable ({e})")
            continue
        if default_run(doc):
            docs.append(doc)
    docs.reverse()
    return docs
