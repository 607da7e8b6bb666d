"""Before a run: how noisy this machine is now, in about a second, and the precision a run's
budget can reach on it: told up front, so a user on a noisy VM is not surprised by "~" on every
ratio four minutes later.

The probe starts PAIRS pairs of short processes, one after the other, each timing the same
busy loop SAMPLES times and printing its median. A pair's log ratio is what a paired ratio of two
identical cases sees from one round to the next here: the differences between processes (where
their memory lands, what the caches hold) and the machine's own (other tenants, the clock). Its
robust spread s (1.4826 x the median absolute deviation) forecasts a ratio's 95% half-width after
n rounds at about z x 1.2533 x s / sqrt(n) (the standard error of a median), times the dependence
factor assumed below 9 rounds. It is a forecast, said as one; the run's own intervals are what
count (bench/noise_probe.py compares the two).
"""
from __future__ import annotations

import math
import os
import statistics
import subprocess
import sys
import time

from layertax.engine.analysis import dependence

PAIRS = 12
SAMPLES = 7
Z95 = 1.96
MEDIAN_SE = 1.2533     # a median's standard error over the mean's, for normal data: sqrt(pi/2)
# The forecast warns beyond this many times the target: the probe is as noisy as the noisiest
# kernels (on the 2-vCPU VM of docs/method/measurement.md it reads 3-5%, where callchain's
# per-round ratios spread 4% and tls's 1%), so a forecast just above the target is normal there.
WARN_AT = 2.0
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


def _one(cpu: int | None) -> int:
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


def reachable(s: float, rounds: int) -> float:
    """The 95% half-width, relative, a ratio is forecast to reach after `rounds` rounds on a machine
    whose pair spread is s: widened, as the interval will be, by the drift a shared VM's rounds
    usually show (dependence.PRIOR_FACTOR, on the variance)."""
    return Z95 * MEDIAN_SE * s * math.sqrt(dependence.PRIOR_FACTOR) / math.sqrt(max(rounds, 1))


def measure(cpu: int | None = None, pairs: int = PAIRS) -> dict:
    """The probe: {"spread", "pairs", "seconds"}; the pairs' log ratios kept for the record."""
    started = time.monotonic()
    logs = []
    for _ in range(pairs):
        a, b = _one(cpu), _one(cpu)
        logs.append(math.log(b / a))
    return {"spread": spread(logs), "pairs": pairs, "seconds": round(time.monotonic() - started, 2),
            "log_ratios": [round(x, 5) for x in logs]}


def forecast(probe: dict, rounds: int, target: float) -> str:
    """The sentence: how noisy the machine is now, what a case as noisy as the probe reaches in the
    rounds the budget allows, and a warning where even that is far from the target."""
    reach = reachable(probe["spread"], rounds)
    text = (f"noise probe ({probe['seconds']:.1f} s): pairs of processes differ by {probe['spread']:.1%} here; "
            f"a case as noisy reaches about ±{reach:.1%} in the ~{rounds} rounds the budget allows (target "
            f"±{target:.0%}; quieter cases get there sooner; a forecast)")
    if reach > WARN_AT * target:
        text += (": this machine is noisy now; expect '~' on many ratios (a longer --budget, or a --precision "
                 "nearer the forecast)")
    return text
