"""Whether a case's ratio differs between this machine's recent runs by more than their
intervals allow.

A run's interval describes its own rounds. Some ratios move on a time scale longer than a
run: tls's rand-r-threads (rand_r on both vCPUs at once) sat at 3.37x in one run and 3.62x in
the next on the 2-vCPU VM, each run steady within itself (its first and second halves agree)
and its interval about ±1%. No figure of one run can show such a move; the runs before it on
the same machine can. So each case's ratio is set beside the same case's in up to WINDOW - 1
earlier runs that measured it the same way (engine/store/recent.py chooses them), and marked
when they disagree beyond what their intervals allow.

The test is Cochran's Q over the runs' log ratios, each weighted by the inverse square of the
standard error its interval implies (the interval's half-width in logs over the normal
quantile of what it covers), none taken below the median of the runs': an interval of 20
rounds is itself a noisy estimate of its width, and one narrow by chance would carry the whole
test (bench/between_runs_marks.py: with each run's own error, runs of one true ratio are
marked several times as often as ALPHA; with the floor, no more often). If every run measured
one true ratio, Q follows a chi-squared law with runs - 1 degrees of freedom; a case is marked
when its p-value is below ALPHA. A mark says the ratio has moved between runs here, not which
run is right: the range of the runs' ratios is kept beside it.
"""
from __future__ import annotations

import math
import statistics

from layertax.engine.analysis import distributions

# The test's level: a run has up to ~100 ratios, and a mark should be about a move, not the
# one-in-twenty chance of an honest 95% interval; at 0.001 a run of 100 steady ratios has a
# false mark less than once in ten runs (bench/between_runs_marks.py).
ALPHA = 0.001
# This run and at least two before it: with one other run a disagreement cannot say which moved
# nor whether it happens again.
MIN_RUNS = 3
# This run and up to five before it: recent enough to describe the machine as it is now.
WINDOW = 6


def point(ratio: dict | None) -> tuple[float, float, float] | None:
    """(log ratio, its standard error, the ratio) from a ratio's summary; None where it has no
    interval to weigh it by (a baseline's 1.00x [1.00, 1.00], fewer than two rounds)."""
    if not ratio or not ratio.get("ci95") or not ratio.get("median"):
        return None
    lo, hi = ratio["ci95"]
    coverage = ratio.get("ci_coverage") or 0.95
    if lo <= 0 or hi <= lo or not 0 < coverage < 1:
        return None
    z = statistics.NormalDist().inv_cdf(1 - (1 - coverage) / 2)
    return math.log(ratio["median"]), (math.log(hi) - math.log(lo)) / (2 * z), float(ratio["median"])


def _cochran_q(points: list[tuple[float, float]], floor: bool = True) -> tuple[float, list[float]]:
    """Cochran's Q for (log value, standard error) pairs and the weights it was taken with: no
    standard error is taken below their median unless floor is False."""
    least = statistics.median(se for _, se in points) if floor else 0.0
    weights = [1 / max(se, least) ** 2 for _, se in points]
    mean = sum(w * x for w, (x, _) in zip(weights, points)) / sum(weights)
    return sum(w * (x - mean) ** 2 for w, (x, _) in zip(weights, points)), weights


def heterogeneity(points: list[tuple[float, float]], floor: bool = True) -> float:
    """The p-value of Cochran's Q for (log value, standard error) pairs: how likely values this
    far apart are if all measured one quantity; no standard error is taken below their median
    unless floor is False (bench/between_runs_marks.py sets the two side by side)."""
    q, _ = _cochran_q(points, floor)
    return distributions.chi2_sf(q, len(points) - 1)


def spread_between(points: list[tuple[float, float]]) -> float:
    """How far a ratio moves from one run to the next beyond what each run's interval allows: the
    standard deviation, in logs, of a run's own offset (DerSimonian and Laird's moment estimate
    of tau, from Q as heterogeneity() takes it); 0 where the runs agree within their intervals.
    From a window of a few runs it is a rough estimate (an honest tau is often read as 0): what
    `compare` widens a ratio's interval by, as a floor, not a measurement of its own."""
    q, weights = _cochran_q(points)
    total = sum(weights)
    scale = total - sum(w * w for w in weights) / total
    return math.sqrt(max(0.0, (q - (len(points) - 1)) / scale)) if scale > 0 else 0.0


def compared(current: dict | None, earlier: list[dict | None], window: int = WINDOW) -> dict | None:
    """A ratio beside the same case's in up to window - 1 earlier runs (ratio summaries, newest
    first): {"runs": how many had an interval, "low", "high": the least and greatest of their
    ratios, "p": the test's p-value, "moved": p < ALPHA, "tau": spread_between(), in logs}; None
    where this run's ratio has no interval or fewer than MIN_RUNS runs do."""
    now = point(current)
    if now is None:
        return None
    points = [now] + [p for p in map(point, earlier[:window - 1]) if p is not None]
    if len(points) < MIN_RUNS:
        return None
    found = _beside(points)
    return {**found, "moved": found["p"] < ALPHA}


def _beside(points: list[tuple[float, float, float]]) -> dict:
    """Runs' (log value, standard error, value) set beside each other: {"runs", "low", "high",
    "p": heterogeneity(), "tau": spread_between()}."""
    pairs = [(x, se) for x, se, _ in points]
    values = [v for _, _, v in points]
    return {"runs": len(points), "low": min(values), "high": max(values), "p": heterogeneity(pairs),
            "tau": round(spread_between(pairs), 5)}


def mean_compared(exp: dict, earlier: list[dict], window: int = WINDOW) -> dict | None:
    """The geometric mean of an experiment's ratios set beside the same mean in earlier runs of it
    (experiments as saved, newest first), over the cases every one of them has a ratio interval
    for: {"cases": how many, "runs", "low", "high", "p", "tau"}; None where fewer than MIN_RUNS
    runs or two cases are there.

    compare widens its geometric-mean row by this tau. A case's own tau is taken only where its
    runs disagree (compare.TAU_P), and one case's runs rarely do; but the cases of an experiment
    can move together from run to run by less than each one's interval and more than their mean's
    (scan's memory-bound kernels against getc), which only the mean's own runs show. A run's mean
    is taken with the standard error of a mean of independent cases: the cases share a baseline
    and rounds, so it is smaller than the mean's true error and the tau is, if anything, larger
    than the true one: compare then calls a change of the mean less readily, not more."""
    runs = [exp, *earlier[:window - 1]]
    if len(runs) < MIN_RUNS:
        return None
    per_run = [{c["name"]: point((c.get("stats") or {}).get("ratio")) for c in e.get("cases", [])} for e in runs]
    names = sorted(set.intersection(*({n for n, p in found.items() if p is not None} for found in per_run)))
    if len(names) < 2:
        return None
    points = []
    for found in per_run:
        x = sum(found[n][0] for n in names) / len(names)
        se = math.sqrt(sum(found[n][1] ** 2 for n in names)) / len(names)
        points.append((x, se, math.exp(x)))
    return {"cases": len(names), **_beside(points)}


def warning(case: str, found: dict) -> str:
    return (f"{case}: its ratio differs between this machine's recent runs by more than their intervals "
            f"allow ({found['low']:.3g}x to {found['high']:.3g}x over {found['runs']} runs, p = {found['p']:.1g}); "
            "this run's interval describes this run only")


def found(exp: dict, name: str) -> dict:
    """A case's ratio beside this machine's recent runs, as `marked` saved it with the experiment
    ({"runs", "low", "high", "p", "moved", and "tau" in results saved since it was kept}); {}
    where the run did not set it beside any."""
    return ((exp.get("between_runs") or {}).get("cases") or {}).get(name) or {}


def marked(exp: dict, earlier: list[dict]) -> dict:
    """The experiment with each case's ratio set beside the same case's in earlier runs of it
    (experiments as saved, newest first): "between_runs" {"runs": how many earlier runs were
    there to compare with, "cases": {name: compared(...)}, "mean": mean_compared(...) where there
    is one}, and a warning on each case that moved. A new result; the one given is left as it was."""
    def ratio_of(e: dict, name: str) -> dict | None:
        case = next((c for c in e.get("cases", []) if c["name"] == name), None)
        return ((case or {}).get("stats") or {}).get("ratio")

    found, cases = {}, []
    for case in exp["cases"]:
        stats = case.get("stats")
        result = compared((stats or {}).get("ratio"), [ratio_of(e, case["name"]) for e in earlier])
        if result is not None:
            found[case["name"]] = result
        if result and result["moved"]:
            stats = {**stats, "warnings": [*stats.get("warnings", []), warning(case["name"], result)]}
        cases.append({**case, "stats": stats} if stats is not case.get("stats") else case)
    record = {"runs": len(earlier), "cases": found}
    mean = mean_compared(exp, earlier)
    if mean is not None:
        record["mean"] = mean
    return {**exp, "cases": cases, "between_runs": record}
