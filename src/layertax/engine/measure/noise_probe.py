"""Before a run: how noisy this machine is now, in about two and a half seconds, and the precision a run's
budget can reach on it: told up front, so a user on a noisy VM is not surprised by "~" on every
ratio four minutes later.

The probe starts 2 x PAIRS short processes one after the other, a pause between them, each
timing the same busy loop SAMPLES times and printing its median; process i is paired with
process i + PAIRS, about a second later. A pair's log ratio is what a paired ratio of two
identical cases sees from one round to the next here: the differences between processes (where
their memory lands, what the caches hold) and the machine's own (other tenants, the clock) over
the time that separates a case from its baseline in a round. That time matters: on a shared VM
whose speed drifts over seconds, processes started one after the other agree where processes a
second apart do not (bench/noise_probe.py --gaps shows the spread by the time between them), and
a probe of adjacent processes once read 3.2% where the run's cases then spread 5-17%. The
pairs' robust spread s (1.4826 x the median absolute deviation) forecasts a ratio's 95%
half-width after n rounds at about z x 1.2533 x s / sqrt(n) (the standard error of a median),
times the dependence factor assumed below 9 rounds. It is a forecast, said as one; the run's own
intervals are what count, and each experiment's rounds are set beside it when it ends
(surprise()).
"""
from __future__ import annotations

import math
import os
import statistics
import subprocess
import sys
import time

from layertax.engine.analysis import analyze, dependence, stats, two_levels

PAIRS = 12
SAMPLES = 7
# The pause after each process: 24 processes of about 50 ms then span about 2.4 s, and a pair's
# two processes are about 1.2 s apart, as a case and its baseline are in a round of the
# experiments whose rounds are longest (callchain's and tls's take seconds).
PAUSE_S = 0.05
Z95 = 1.96
MEDIAN_SE = 1.2533     # a median's standard error over the mean's, for normal data: sqrt(pi/2)
# The forecast warns beyond this many times the target: the probe is as noisy as the noisiest
# kernels (on the 2-vCPU VM of docs/method/measurement.md it reads 3-5%, where callchain's
# per-round ratios spread 4% and tls's 1%), so a forecast just above the target is normal there.
WARN_AT = 2.0
# An experiment's rounds are said to be noisier than the probe beyond this many times its spread:
# the probe reads about as much as the noisiest kernels on a steady machine (see WARN_AT), so
# twice it is past what the forecast allowed for.
SURPRISE_AT = 2.0
# Fewer cases than this say little of an experiment's median case.
SURPRISE_CASES = 3
# The least gap between two levels of the probe's processes that counts as two speeds: at one
# level they spread a few percent; on the 2-vCPU VM their loop and Perl's switch together between
# two levels about 1.7x apart (bench/levels_in_time.py --beside-probe).
LEVEL_GAP = 0.25
# The probe's own process: a busy loop of about 2 ms, timed SAMPLES times; its median is printed.
WORKER = (
    "import time\n"
    "def work():\n"
    "    x = 0\n"
    "    for i in range(60000):\n"
    "        x ^= i\n"
    "    return x\n"
    f"samples = []\n"
    f"for _ in range({SAMPLES}):\n"
    "    t = time.perf_counter_ns(); work(); samples.append(time.perf_counter_ns() - t)\n"
    "samples.sort()\n"
    "print(samples[len(samples) // 2])\n"
)


def process_ns(cpu: int | None = None) -> int:
    """One probe process's median loop time, in ns (no shell; pinned where the run pins)."""
    def pin() -> None:
        if cpu is not None:
            os.sched_setaffinity(0, {cpu})
    # A fixed hash seed: randomised string hashing would add a spread of the probe's own.
    done = subprocess.run([sys.executable, "-I", "-S", "-c", WORKER], capture_output=True, text=True, timeout=20,
                          stdin=subprocess.DEVNULL, preexec_fn=pin if cpu is not None else None,
                          env={"PYTHONHASHSEED": "0", "PATH": os.environ.get("PATH", "")})
    if done.returncode != 0:
        raise RuntimeError(f"the noise probe's process failed: {done.stderr.strip()[-200:]}")
    return int(done.stdout.strip())


def spread(log_ratios: list[float]) -> float:
    """The robust spread of the pairs' log ratios: 1.4826 x their median absolute deviation."""
    if len(log_ratios) < 2:
        return 0.0
    mid = statistics.median(log_ratios)
    return 1.4826 * statistics.median(abs(x - mid) for x in log_ratios)


def median_half_width(s: float, rounds: int, z: float = Z95, variance_factor: float = 1.0) -> float:
    """The half-width, in log units, of the median of `rounds` values whose robust spread is s: z
    standard errors of a median (MEDIAN_SE times the mean's), widened as the interval is widened for
    drift (dependence.py: a factor on the variance, so its square root on the width)."""
    return z * MEDIAN_SE * s * math.sqrt(variance_factor) / math.sqrt(max(rounds, 1))


def reachable(s: float, rounds: int) -> float:
    """The 95% half-width, relative, a ratio is forecast to reach after `rounds` rounds on a machine
    whose pair spread is s: widened, as the interval will be, by the drift a shared VM's rounds
    usually show (dependence.PRIOR_FACTOR, on the variance)."""
    return median_half_width(s, rounds, variance_factor=dependence.PRIOR_FACTOR)


def rounds_for(s: float, target: float) -> int:
    """The rounds a ratio is forecast to need for a 95% half-width of `target` on a machine whose
    pair spread is s: reachable() solved for the rounds."""
    return max(1, math.ceil((reachable(s, 1) / target) ** 2))


def starting_spread(spread: float, usual: dict[str, float] | None) -> float:
    """The spread a forecast starts from: the median of the experiments' spreads in their newest
    runs here (usual: budget.seen_spreads) where there are some, else the probe's."""
    return statistics.median(usual.values()) if usual else spread


def measure(cpu: int | None = None, pairs: int = PAIRS, pause_s: float = PAUSE_S) -> dict:
    """The probe: {"spread", "pairs", "seconds", "levels"}; each process's median loop time
    ("process_ns", in the order they ran) and the pairs' log ratios kept for the record, so that
    every figure it prints can be taken again from the result. Each process is paired with the
    one `pairs` processes later."""
    started = time.monotonic()
    times = []
    for i in range(2 * pairs):
        if i:
            time.sleep(pause_s)
        times.append(process_ns(cpu))
    logs = [math.log(times[i + pairs] / times[i]) for i in range(pairs)]
    levels = two_levels.two_levels(times, LEVEL_GAP)
    return {"spread": spread(logs), "pairs": pairs, "seconds": round(time.monotonic() - started, 2),
            "process_ns": [int(t) for t in times], "log_ratios": [round(x, 5) for x in logs],
            "levels": levels and {"lower_ms": round(levels["lower"] / 1e6, 4), "upper_ms": round(levels["upper"] / 1e6, 4),
                                  "upper_share": round(levels["upper_share"], 3), "p": round(levels["p"], 5)}}


def two_speeds(probe: dict) -> str | None:
    """The probe's processes at two levels (two_levels.two_levels over their times, a gap of
    LEVEL_GAP or more) in words; None where they sat at one. A pair of processes at different
    levels differs by the gap, so such a probe reads far above the moment's usual spread."""
    levels = probe.get("levels")
    if not levels:
        return None
    return (f"its processes ran at two speeds, {levels['lower_ms']:.3g} and {levels['upper_ms']:.3g} ms a loop "
            f"({levels['upper_share']:.0%} at the slower)")


def forecast(probe: dict, rounds: int, target: float, usual: dict[str, float] | None = None,
             budget_s: float | None = None) -> str:
    """The sentence: how noisy the machine is, what a case as noisy reaches in the rounds the budget
    (budget_s, said where given: what sets the run's length) allows, and a warning where even that
    is far from the target. usual: how far each experiment's
    median case spread in its newest run here (budget.seen_spreads); where there is one, the
    forecast starts from it (their median) and the probe is said beside it: the probe, a few
    seconds of a Python loop, forecast the experiments' spreads of 30 saved default runs on the
    2-vCPU VM within a median factor of 1.7-1.9, each experiment's previous run within 1.2-1.35
    (bench/noise_probe.py --history)."""
    reach = reachable(starting_spread(probe["spread"], usual), rounds)
    speeds = two_speeds(probe)
    budget = "the budget" if budget_s is None else f"a {budget_s / 60:.1f} min budget"
    if usual:
        low, high = min(usual.values()), max(usual.values())
        seen = f"{low:.1%}" if round(low, 3) == round(high, 3) else f"{low:.1%} to {high:.1%}"
        text = (f"noise: in their last runs here these experiments' ratios spread {seen} from round to round (the "
                f"median case of each); a case as noisy reaches about ±{reach:.1%} in the ~{rounds} rounds {budget} "
                f"allows (target ±{target:.0%}; a forecast); the noise probe reads {probe['spread']:.1%} now"
                + (f", {speeds}" if speeds else ""))
        warning = ": expect '~' on many ratios here (a longer --budget, or a looser --precision)"
    else:
        text = (f"noise probe ({probe['seconds']:.1f} s): pairs of processes differ by {probe['spread']:.1%} here"
                + (f" ({speeds})" if speeds else "") + f"; a case as noisy reaches about ±{reach:.1%} in the "
                f"~{rounds} rounds {budget} allows (target ±{target:.0%}; a forecast)")
        warning = ": noisy now, expect '~' on many ratios (a longer --budget, or a looser --precision)"
    return text + (warning if reach > WARN_AT * target else "")


def case_spreads(exp: dict) -> list[float]:
    """Each case's spread (spread()) of log(case / its baseline) over the rounds both ran, 6 rounds
    or more, for an experiment's result as saved (its kernels' samples; a case's baseline is its
    group's, analyze.baseline_of); sorted."""
    timed = {c["name"]: c for c in exp["cases"] if c.get("samples") and "ns" in c["samples"][0]}
    bases = analyze.paired_bases(timed, {name: analyze.baseline_of(exp, c) for name, c in timed.items()})
    out = []
    for name, case in timed.items():
        if not bases.get(name):
            continue
        logs = [math.log(r) for r in stats.paired_ratios(analyze.round_values(case), bases[name]) if r > 0]
        if len(logs) >= 6:
            out.append(spread(logs))
    return sorted(out)


def surprise(probe: dict | None, exp: dict, target: float) -> tuple[float, str | None] | None:
    """An experiment's rounds beside the probe, when it has been measured: (the spread of its
    median case, the sentence where that is more than SURPRISE_AT times the probe's, else None);
    None where there is no probe or too few cases to tell. The probe is a snapshot of a few
    seconds; a machine whose speed drifts over longer spells shows it in the rounds, and the run says
    so as soon as it knows, before the experiments still to come."""
    if not probe or not probe.get("spread"):
        return None
    spreads = case_spreads(exp)
    if len(spreads) < SURPRISE_CASES:
        return None
    seen = statistics.median(spreads)
    before = (probe.get("expected") or {}).get(exp["name"])
    expected = before or probe["spread"]
    if seen <= SURPRISE_AT * expected:
        return seen, None
    rounds = probe.get("rounds") or 1
    source = "its last run here" if before else "the noise probe"
    return seen, (f"{exp['name']}: its ratios spread {seen:.1%} from round to round (the median case), "
                  f"{seen / expected:.1f}x what {source} showed ({expected:.1%}): this machine is noisier now; a "
                  f"case as noisy reaches about ±{reachable(seen, rounds):.1%} in ~{rounds} rounds (target "
                  f"±{target:.0%}; a forecast)")
