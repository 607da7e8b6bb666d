"""Does stopping when the interval is narrow enough keep the interval honest? A simulation.

For every timed case of the given runs (saved layertax results, with their raw samples) the
recorded rounds are the population: a simulated run draws rounds from it (with replacement,
the case and its baseline from the same round, so the pairing stays), applies the stopping
rule (checks at the fixed checkpoints, stop when the ratio's 95% interval is within
+-precision, at most max rounds), and records whether its final interval covers the
population's ratio (the median of all recorded paired ratios). The same is done for the
fixed protocol (always max rounds) and for a synthetic lognormal case whose truth is exact.

    .venv/bin/python bench/stopping_coverage.py RUN.json [RUN.json ...] [--sims 400]
"""
from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from layertax.engine.analysis import analyze, stats
from layertax.engine.measure.stopping import CHECKPOINTS, StoppingRule, relative_half_width


def simulate(case_rounds: np.ndarray, base_rounds: np.ndarray, rule: StoppingRule | None, max_rounds: int,
             rng) -> tuple[bool, int, float]:
    """One simulated run: (covers the truth, rounds used, final relative half-width)."""
    truth = float(np.median(case_rounds / base_rounds))
    picks = rng.integers(0, len(case_rounds), max_rounds)
    ratios = case_rounds[picks] / base_rounds[picks]
    used = max_rounds
    if rule is not None:
        for n in sorted({rule.min_rounds, *CHECKPOINTS}):
            if n < rule.min_rounds or n > max_rounds:
                continue
            summary = stats.ratio_summary(list(ratios[:n]))
            if relative_half_width(summary) <= rule.precision:
                used = n
                break
    summary = stats.ratio_summary(list(ratios[:used]))
    lo, hi = summary["ci95"]
    return lo <= truth <= hi, used, relative_half_width(summary)


def coverage(case_rounds, base_rounds, rule, max_rounds, sims, seed) -> tuple[float, float, float]:
    rng = np.random.default_rng(seed)
    got = [simulate(case_rounds, base_rounds, rule, max_rounds, rng) for _ in range(sims)]
    return (float(np.mean([g[0] for g in got])), float(np.mean([g[1] for g in got])),
            float(np.median([g[2] for g in got])))


def recorded_cases(paths: list[str]):
    for path in paths:
        doc = json.load(open(path))
        for exp in doc["experiments"]:
            by_name = {c["name"]: c for c in exp.get("cases", [])}
            for case in exp.get("cases", []):
                base = by_name.get(analyze.baseline_of(exp, case))
                if base is None or base is case or not case.get("samples") or not base.get("samples"):
                    continue
                metric = analyze.sample_metric(exp)         # a launch's main_ns, else ns/op
                a, b = analyze.round_values(case, metric), analyze.round_values(base, metric)
                common = sorted(set(a) & set(b))
                if len(common) >= 20:
                    yield f"{exp['name']}/{case['name']}", np.array([a[r] for r in common]), \
                        np.array([b[r] for r in common])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*")
    parser.add_argument("--sims", type=int, default=400)
    parser.add_argument("--precision", type=float, default=0.02)
    parser.add_argument("--max-rounds", type=int, default=40)
    args = parser.parse_args()
    rule = StoppingRule(args.precision, 8, args.max_rounds)
    rows = []
    rng = np.random.default_rng(7)
    drift = np.exp(rng.normal(0, 0.05, 400))
    rows.append(("synthetic lognormal, 2% effect", 1.02 * drift * np.exp(rng.normal(0, 0.03, 400)), drift))
    rows += list(recorded_cases(args.runs))
    print(f"{args.sims} simulated runs per case; precision ±{args.precision:.0%}, checks at "
          f"{rule.to_dict()['checkpoints']}, at most {args.max_rounds} rounds")
    print(f"{'case':42} {'coverage: rule':>14} {'fixed':>6} {'mean rounds':>11} {'half-width':>10}")
    covers = []
    for name, a, b in rows:
        cov, mean_rounds, width = coverage(a, b, rule, args.max_rounds, args.sims, 1)
        fixed, _, _ = coverage(a, b, None, args.max_rounds, args.sims, 1)
        covers.append((cov, fixed))
        print(f"{name[:42]:42} {cov:>14.1%} {fixed:>6.1%} {mean_rounds:>11.1f} {width:>10.2%}")
    rule_cov, fixed_cov = np.mean([c for c, _ in covers]), np.mean([f for _, f in covers])
    print(f"mean coverage over {len(covers)} cases: rule {rule_cov:.1%}, fixed {fixed_cov:.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
