"""Does the noise probe forecast what a run reaches? The probe (engine/measure/noise_probe.py)
beside the spread of the per-round paired log ratios each case of a saved run showed, by
experiment: the median case, the quartiles, and the probe's spread measured now.

--gaps: how the spread of a pair of probe processes grows with the time between them (started
one after the other, then 0.3 s and 1 s apart), on this machine now: what the probe's pairing,
each process with the one about a second later, is for.

--history: how well the run's forecast could know each experiment's spread before measuring it,
read from this machine's saved default runs (each keeps its probe and what each experiment's
median case then showed, settings.noise_probe): per experiment, the rank correlation of the
probe with what the experiment showed, and the median factor by which the probe, and by which
the experiment's own previous run, missed it (what the forecast starts from where it can).

    .venv/bin/python bench/noise_probe.py [--gaps] [RUN.json ...]
    .venv/bin/python bench/noise_probe.py --history [--last N]
"""
from __future__ import annotations

import argparse
import math
import time
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from layertax.engine.measure import noise_probe  # noqa: E402
from _common import finish, read_run  # noqa: E402  (this folder's)


GAPS_S = (0.0, 0.3, 1.0)


def gap_spread(gap_s: float, pairs: int) -> float:
    """The spread of pairs of probe processes started gap_s apart."""
    logs = []
    for _ in range(pairs):
        a = noise_probe.process_ns()
        time.sleep(gap_s)
        logs.append(math.log(noise_probe.process_ns() / a))
    return noise_probe.spread(logs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*", type=Path, help="saved run results (layertax run --export-json)")
    parser.add_argument("--gaps", action="store_true", help="the pairs' spread by the time between them")
    parser.add_argument("--pairs", type=int, default=noise_probe.PAIRS * 4, help="pairs for --gaps (more: steadier)")
    parser.add_argument("--probes", type=int, default=4, help="probes run as a run runs its own, one after the other")
    parser.add_argument("--history", action="store_true", help="the forecast's sources against the saved runs")
    parser.add_argument("--last", type=int, default=200, help="the newest N default runs for --history")
    args = parser.parse_args()
    if args.history:
        return history(args.last)
    if args.gaps:
        for gap in GAPS_S:
            print(f"pairs {gap:.1f} s apart: spread {gap_spread(gap, args.pairs):.1%} ({args.pairs} pairs)", flush=True)
    probes = [noise_probe.measure() for _ in range(args.probes)]
    print("probe now (as a run starts it, " + f"{args.probes} times): pairs of processes differ by "
          + ", ".join(f"{p['spread']:.1%}" for p in probes) + f" ({probes[0]['pairs']} pairs, {probes[0]['seconds']} s each)")
    print(f"{'run':24} {'experiment':12} {'cases':>5} {'q25':>7} {'median':>7} {'q75':>7}   (spread of per-round paired log ratios)")
    for path in args.runs:
        doc = read_run(path, "noise_probe")
        for exp in doc["experiments"]:
            spreads = noise_probe.case_spreads(exp)
            if len(spreads) < 4:
                continue
            q = statistics.quantiles(spreads, n=4)
            print(f"{path.name[:24]:24} {exp['name']:12} {len(spreads):5} {q[0]:7.1%} {q[1]:7.1%} {q[2]:7.1%}")
    return 0


def history(last: int) -> int:
    """--history: the probe and each experiment's previous run, as forecasts of what it showed."""
    from scipy.stats import spearmanr

    from _common import saved_default_runs   # this folder's

    docs = saved_default_runs(last) or []
    probes = [p for p in ((d.get("settings") or {}).get("noise_probe") for d in docs) if p and p.get("seen")]
    print(f"{len(probes)} saved default runs with a probe and what their experiments showed")
    print(f"{'experiment':12} {'runs':>5} {'rank corr.':>10} {'probe missed by':>16} {'previous run missed by':>23}")
    names = sorted({name for p in probes for name in p["seen"]})
    for name in names:
        pairs = [(p["spread"], p["seen"][name]) for p in probes if p["seen"].get(name)]
        if len(pairs) < 4:
            continue
        probe_miss = statistics.median(abs(math.log(seen / spread)) for spread, seen in pairs)
        previous_miss = statistics.median(abs(math.log(b / a)) for (_, a), (_, b) in zip(pairs, pairs[1:]))
        corr = spearmanr([s for s, _ in pairs], [v for _, v in pairs]).correlation
        print(f"{name:12} {len(pairs):5} {corr:10.2f} {math.exp(probe_miss):15.2f}x {math.exp(previous_miss):22.2f}x")
    return 0


if __name__ == "__main__":
    finish(main)
