"""The statistics layertax reports, and how they decide what is noise.

- The median and its 95% confidence interval come from order statistics, interpolated
  (Hettmansperger-Sheather: distribution-free, and 95% where it says 95%), because timing
  samples are skewed and a mean +- sd interval would misdescribe them.
- Values taken one after another (rounds, launches) are not independent on a shared
  machine that drifts: their intervals are widened by how much neighbours move together
  (dependence.py), and the factor is kept beside the interval.
- Ratios to the baseline are computed per round (the case and the baseline ran
  moments apart, so drift hits both) and summarised the same way.
- Two runs' series are compared with the Mann-Whitney U test together with the interval that
  test inverts (Moses', for the Hodges-Lehmann shift of their logarithms: shift.py) and a
  noise band: a difference must be both statistically clear and larger than the band to count.
"""
from __future__ import annotations

import functools
import math
import statistics

import numpy as np

from layertax.engine.analysis import dependence, distributions, rank_dependence, rank_tests, shift

CONFIDENCE = 0.95
# A case that stops adding rounds because its interval met the precision target is one whose
# interval happened to be narrow at a checkpoint: the stop selects lucky intervals. Its stop is
# decided, and its interval computed, at this level instead of 95%; after the stop it covers
# 93-97% under every model bench/interval_coverage.py simulates (docs/method/statistics.md), and
# it is labelled 95%. (At 97.5% the stopped intervals of its heavy-tailed model covered 97.2%.)
# That is the kernels' rule, from 8 to 56 rounds; a rule whose first look comes later selects
# less and has its own level (stopping.StoppingRule.confidence).
SEQUENTIAL_CONFIDENCE = 0.97
# Above this relative half-width of the median's CI, the reported median is uncertain: the main warning.
NOISY_CI_HALF_WIDTH = 0.03
# Above this spread (IQR / median) single samples scatter widely, even if the median is pinned down.
NOISY_SPREAD = 0.10
# Preemption matters only if it shows: warn when at least this share of samples was
# preempted and those samples' median is slower than the rest's by more than DISTURBED_SLOWDOWN.
DISTURBED_SHARE = 0.2
DISTURBED_SLOWDOWN = 0.02
# Above this share of CPU time taken by the hypervisor during an experiment, neighbours were busy.
NOISY_STEAL = 0.01
# Above this share of the CPUs' time used by tasks outside the run (machine.cpu_activity's
# outside_share), something else was running (another container's build, on a shared VM),
# and some launches waited for it.
NOISY_OUTSIDE = 0.05
DEFAULT_THRESHOLD = 0.02
# Above this variance factor (dependence.py) successive rounds moved together enough to widen an
# interval at least twofold: the machine drifted while the run went on, which the user should know.
DRIFT_FACTOR = 4.0


def _spread(iqr: float, median: float) -> float | None:
    """IQR / median; None when the median is zero and the IQR is not (times below a tool's
    resolution, e.g. hyperfine's 0.0): a relative spread is then undefined, not infinite."""
    if median:
        return iqr / median
    return 0.0 if iqr == 0 else None


def _at_rank(x: np.ndarray, rank: float) -> float:
    """The sorted values at a fractional rank (1-based), by linear interpolation between the two
    order statistics around it: rank 2.3 is 70% of X(2) and 30% of X(3). Kept between those two:
    X(2) + 0.9999... x (X(3) - X(2)) can round a unit past X(3), and an interval widened by a
    hair (rank 2.9999... against 3) then came out narrower than the plain one."""
    below = min(max(int(math.floor(rank)), 1), x.size)
    above = min(below + 1, x.size)
    low, high = x[below - 1], x[above - 1]
    return float(min(max(low + (rank - below) * (high - low), low), high))


def _rank_coverage(j: int, n: int) -> float:
    """The coverage of [X(j), X(n-j+1)] for the median of n independent values (binomial ranks)."""
    return 1.0 - 2.0 * distributions.binomial_half_cdf(j - 1, n)


@functools.lru_cache(maxsize=1024)
def _interpolated_rank(n: int, confidence: float) -> tuple[float, float]:
    """(rank, coverage) of the median's interval of n independent values: the fractional lower
    rank whose symmetric pair covers the confidence, interpolated between the two pairs of ranks
    that bracket it (median_ci). Cached: it depends on n and the confidence only, and a report
    asks it for every case, each of a binomial cdf per rank tried."""
    widest = _rank_coverage(1, n)
    if widest < confidence:
        return 1.0, widest
    d = 1
    while d + 1 <= n // 2 and _rank_coverage(d + 1, n) >= confidence:
        d += 1
    above, below = _rank_coverage(d, n), _rank_coverage(d + 1, n)
    share = (above - confidence) / (above - below)
    lam = (n - d) * share / (d + (n - 2 * d) * share)
    return d + lam, confidence


def median_ci(values, confidence: float = CONFIDENCE, factor: float = 1.0) -> tuple[float, float, float]:
    """The median's interval at the given confidence: (low, high, coverage).

    Hettmansperger and Sheather's interpolated order statistics (1986): of the two symmetric
    pairs of ranks whose binomial coverage brackets the confidence, [X(d), X(n-d+1)] at or
    above it and [X(d+1), X(n-d)] below, the interval lies between them, at the point their
    interpolation gives the confidence itself. Distribution-free like the plain pair, and
    labelled truly: the plain pair at 8 values is [min, max], a 99.2% interval, about 1.6x
    wider than a 95% one (bench/interval_coverage.py measures both).

    With fewer than 6 values no pair reaches 95%: the interval is then [min, max] and the
    coverage returned is what it achieves, so the caller can say so.

    factor: how much more the count of values below the median varies than for independent
    values (dependence.variance_factor of values taken in order). Above 1 the half-width in
    ranks grows by sqrt(factor), continuously (fractional ranks, interpolated); when even
    [min, max] falls short, the coverage returned is the normal approximation's with that
    variance.
    """
    x = np.sort(np.asarray(values, dtype=float))
    n = len(x)
    if n == 0:
        raise ValueError("no samples")
    if n == 1:
        return float(x[0]), float(x[0]), 0.0
    rank, coverage = _interpolated_rank(n, float(confidence))
    if factor > 1.0:
        centre = (n + 1) / 2
        # never inward of the plain rank: centre - (centre - rank) can round a unit above rank
        # where the factor is 1 but for its last bit
        rank = min(rank, centre - (centre - rank) * math.sqrt(factor))
        if rank < 1.0:        # even [min, max] is short of it: say how short (normal approximation)
            rank = 1.0
            coverage = min(coverage, 2.0 * distributions.normal_cdf((n / 2 - 0.5) / (math.sqrt(n * factor) / 2)) - 1.0)
    return _at_rank(x, rank), _at_rank(x, n + 1 - rank), float(coverage)


def _describe(values) -> dict:
    """What all samples look like: count, extremes, mean, and the spread (IQR / median)."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        raise ValueError("no samples")
    med = float(np.median(x))
    q1, q3 = np.percentile(x, [25, 75])
    return {"n": int(x.size), "min": float(x.min()), "max": float(x.max()), "mean": float(x.mean()),
            "stdev": float(x.std(ddof=1)) if x.size > 1 else 0.0,
            "iqr": float(q3 - q1), "spread": _spread(float(q3 - q1), float(med))}


def _interval(values, in_order: bool, confidence: float = CONFIDENCE, factor: float | None = None) -> dict:
    """The median, its interval (95% unless told) and the interval's coverage. in_order: the
    values are a series in the order they were taken (rounds, launches), so the interval is
    widened for how much neighbours move together (dependence.py), and the factor is kept:
    the one given (estimated with the experiment's other series), else the series' own."""
    if not in_order:
        factor = 1.0
    elif factor is None:
        factor = dependence.variance_factor(values)
    lo, hi, coverage = median_ci(values, confidence, factor=factor)
    out = {"median": float(np.median(values)), "ci95": [lo, hi], "ci_coverage": round(coverage, 4)}
    if in_order:
        out["ci_dependence"] = round(factor, 3)
    return out


def summarize(values) -> dict:
    """Summary of independent samples: the median and its interval come from the samples themselves."""
    return {**_describe(values), **_interval(np.asarray(values, dtype=float), in_order=False)}


def summarize_rounds(rounds: list[list[float]]) -> dict:
    """Summary where each round (one kernel process) is one replicate; rounds in the order they ran.

    Samples inside one process are correlated (the same memory layout, the same
    files, the same moment on the host), so pooling them as if independent would
    make the interval too narrow. The median and its interval therefore come from
    the per-round medians; min, spread and mean describe all samples. Successive
    rounds are not independent either (the machine drifts for seconds), so the
    interval is widened by how much they move together (dependence.py).
    """
    rounds = [r for r in rounds if len(r)]
    if not rounds:
        raise ValueError("no samples")
    medians = [float(statistics.median(r)) for r in rounds]
    summary = {**_describe([v for r in rounds for v in r]), **_interval(medians, True)}
    summary["rounds"] = len(rounds)
    return summary


def paired_ratio_rounds(case_rounds: dict[int, float], base_rounds: dict[int, float]) -> dict[int, float]:
    """case/baseline for every round in which both ran, by round id in round order."""
    return {r: case_rounds[r] / base_rounds[r] for r in sorted(case_rounds) if base_rounds.get(r, 0) > 0}


def paired_ratios(case_rounds: dict[int, float], base_rounds: dict[int, float]) -> list[float]:
    """case/baseline for every round in which both ran, in round order."""
    return list(paired_ratio_rounds(case_rounds, base_rounds).values())


def bases_for(case_rounds: dict[str, dict[int, float]], baselines: dict[str, str | None],
              base_rounds: dict[str, dict[int, float] | None] | None = None) -> dict[str, dict[int, float] | None]:
    """Each case's baseline values, round by round: base_rounds' (analyze.paired_bases) where
    given, else its baseline's round medians in case_rounds; None for a baseline itself."""
    def of(name: str) -> dict[int, float] | None:
        base = baselines.get(name)
        if not base or base == name:
            return None
        return base_rounds.get(name) if base_rounds is not None else case_rounds.get(base)
    return {name: of(name) for name in case_rounds}


def ratio_factors(case_rounds: dict[str, dict[int, float]], baselines: dict[str, str | None],
                  base_rounds: dict[str, dict[int, float] | None] | None = None) -> dict[str, float]:
    """Each case's drift factor for its per-round ratios (dependence.factors), estimated with every
    other case of the experiment: case_rounds holds each case's round medians, baselines each
    case's baseline (None for a baseline), base_rounds (where given) the baseline's values each
    case pairs with (bases_for). Cases without a baseline's rounds are left out."""
    bases = bases_for(case_rounds, baselines, base_rounds)
    series = {name: paired_ratios(rounds, bases[name]) for name, rounds in case_rounds.items() if bases[name]}
    series = {name: ratios for name, ratios in series.items() if ratios}
    return dict(zip(series, dependence.factors(list(series.values()))))


def ratio_summary(ratios: list[float], confidence: float = CONFIDENCE, factor: float | None = None) -> dict | None:
    """The median of per-round ratios (in round order) with its interval, widened for drift: by
    `factor` where given (dependence.factors over the experiment's ratios), else by the series'
    own. Above CONFIDENCE (a case stopped by its precision, at its stopping rule's level) the
    interval is computed at that level and labelled with the 95% it covers after the stop;
    ci_level keeps the level used."""
    if not ratios:
        return None
    summary = {**_interval(ratios, True, confidence, factor), "rounds": len(ratios)}
    if confidence > CONFIDENCE:
        summary["ci_level"] = confidence
        summary["ci_coverage"] = min(summary["ci_coverage"], CONFIDENCE)
    return summary


def median_summary(values, confidence: float = CONFIDENCE) -> dict | None:
    """The median of values taken one after another (rounds, launches; in that order) with its
    order-statistic interval (95% unless told), widened for drift (None if there are none)."""
    values = [float(v) for v in values if v is not None]
    if not values:
        return None
    return {**_interval(values, True, confidence), "n": len(values)}


def paired_difference(a: dict, b: dict) -> dict | None:
    """a[k] - b[k] for every key both have (a round, a launch; in key order), summarized: the
    median difference with its 95% interval. Pairing removes what both share (a slow moment
    of the machine)."""
    return median_summary([a[k] - b[k] for k in sorted(a) if k in b and a[k] is not None and b[k] is not None])


def as_time(summary: dict | None) -> dict | None:
    """A measured difference of times (a median with its 95% interval, e.g. paired_difference's)
    as a result keeps it, never a negative time: its median and interval when the interval is
    above zero; 0 and the noise's half-width when the interval contains zero; 0 and how far
    below when the interval is wholly below zero (units.part prints each form in words)."""
    if summary is None:
        return None
    median, (lo, hi) = summary["median"], summary["ci95"]
    if lo > 0:
        return {"ns": median, "ci95": [lo, hi], "n": summary["n"]}
    if hi >= 0:
        return {"ns": 0.0, "within_noise_ns": max(abs(lo), abs(hi)), "n": summary["n"]}
    return {"ns": 0.0, "below_control_ns": -median, "below_control_ci95": [-hi, -lo], "n": summary["n"]}


def difference_of_medians(a, b, resamples: int = 2000, seed: int = 0) -> dict | None:
    """median(a) - median(b) for samples that cannot be paired, with a bootstrap 95% interval."""
    a = np.asarray([v for v in a if v is not None], dtype=float)
    b = np.asarray([v for v in b if v is not None], dtype=float)
    if a.size < 2 or b.size < 2:
        return None
    rng = np.random.default_rng(seed)
    draws = resampled_medians(a, rng, resamples) - resampled_medians(b, rng, resamples)
    lo, hi = interval(draws)
    return {"median": float(np.median(a) - np.median(b)), "ci95": [lo, hi], "n": int(min(a.size, b.size))}


def disturbance(values, preempted) -> tuple[float | None, float | None]:
    """(share of samples preempted, their median / the others' median - 1), None where unknown."""
    values = np.asarray(values, dtype=float)
    flags = np.asarray(preempted, dtype=bool)
    if values.size == 0 or flags.size != values.size:
        return None, None
    share = float(flags.mean())
    if flags.all() or not flags.any():
        return share, None
    return share, float(np.median(values[flags]) / np.median(values[~flags]) - 1)


def noise_warnings(summary: dict, disturbed_share: float | None = None,
                   disturbed_slowdown: float | None = None) -> list[str]:
    """Plain-language reasons not to trust this case's figure to a few percent."""
    warnings = []
    lo, hi = summary["ci95"]
    med = summary["median"]
    if med and (hi - lo) / 2 / med > NOISY_CI_HALF_WIDTH:
        warnings.append(f"median uncertain by +-{(hi - lo) / 2 / med:.0%} (95% CI)")
    if summary["spread"] is not None and summary["spread"] > NOISY_SPREAD:
        warnings.append(f"samples spread {summary['spread']:.0%} (IQR/median)")
    if summary["ci_coverage"] < CONFIDENCE:
        count = f"{summary['rounds']} rounds" if "rounds" in summary else f"{summary['n']} samples"
        warnings.append(f"only {count}: the interval covers {summary['ci_coverage']:.0%}, not 95%")
    factor = max(summary.get("ci_dependence") or 1.0, (summary.get("ratio") or {}).get("ci_dependence") or 1.0)
    if factor > DRIFT_FACTOR:
        warnings.append(f"successive rounds moved together (the machine drifted while it ran): "
                        f"the interval is {math.sqrt(factor):.1f}x as wide as for independent rounds")
    if (disturbed_share is not None and disturbed_slowdown is not None
            and disturbed_share > DISTURBED_SHARE and disturbed_slowdown > DISTURBED_SLOWDOWN):
        warnings.append(f"{disturbed_share:.0%} of samples preempted, and those ran {disturbed_slowdown:.0%} slower")
    return warnings


def experiment_warnings(cpu_activity: dict | None) -> list[str]:
    """Warnings about the whole experiment rather than one case (the machine while it ran)."""
    warnings = []
    steal = (cpu_activity or {}).get("steal_share", 0)
    if steal > NOISY_STEAL:
        warnings.append(f"the hypervisor stole {steal:.1%} of CPU time during this experiment "
                        "(other virtual machines were busy)")
    outside = (cpu_activity or {}).get("outside_share")
    if outside is not None and outside > NOISY_OUTSIDE:
        warnings.append(f"tasks outside this run used {outside:.0%} of the CPUs' time while it ran "
                        "(in a container they need not show in ps: /proc/stat counts them)")
    return warnings


def bootstrap_median_ratios(a, b, resamples: int = 4000, seed: int = 0) -> np.ndarray:
    """median(b*) / median(a*) for resamples of each side: the ratio's bootstrap distribution."""
    rng = np.random.default_rng(seed)
    ma = resampled_medians(np.asarray(a, dtype=float), rng, resamples)
    mb = resampled_medians(np.asarray(b, dtype=float), rng, resamples)
    return mb / ma


# Values one step of a bootstrap holds at once: its memory stays near 16 MB however many
# values are resampled (drawing all resamples at once held resamples x values: gigabytes for
# a result with many thousands of rounds).
_RESAMPLE_CHUNK_VALUES = 1 << 20


def resampled_medians(values: np.ndarray, rng, resamples: int) -> np.ndarray:
    """The medians of `resamples` resamples (with replacement) of values, drawn a block of rows
    at a time; the same draws, in the same order, as one call for all of them."""
    rows = max(1, _RESAMPLE_CHUNK_VALUES // max(1, values.size))
    out = np.empty(resamples)
    for start in range(0, resamples, rows):
        stop = min(resamples, start + rows)
        out[start:stop] = np.median(rng.choice(values, size=(stop - start, values.size), replace=True), axis=1)
    return out


def interval(draws: np.ndarray, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The central interval of bootstrap draws."""
    alpha = 1 - confidence
    return float(np.quantile(draws, alpha / 2)), float(np.quantile(draws, 1 - alpha / 2))


def series_ratio_test(a, b, factor: float | None = None
                      ) -> tuple[float, tuple[float, float], float, float, float]:
    """B/A for two series each taken in order (two runs' per-round ratios to a baseline, or their
    round medians): exp of the Hodges-Lehmann shift of log(b) from log(a), Moses' 95% interval
    for it (shift.py: the interval the Mann-Whitney test inverts), and the Mann-Whitney p.

    Both take the values as independent; a run's rounds are not (the machine drifts for
    seconds), and between two runs that made `compare` call unchanged code slower or faster.
    So both are widened by the variance factor of the Mann-Whitney count (rank_dependence.py):
    `factor`, estimated over the experiment's cases in both runs, else over these two series.
    The interval is widened in ranks, as a run's own median interval is (median_ci): it is
    Moses' interval at the confidence whose normal quantile is sqrt(factor) times 95%'s, so it
    excludes 1 where the widened test rejects, whatever the values' distribution.
    bench/compare_coverage.py measures what it covers.
    Returns (ratio, interval, p, factor, coverage): the coverage 95%, or less where even the
    widest interval of these few rounds falls short of it."""
    if factor is None:
        factor = rank_dependence.factors([a], [b])[0]
    z = distributions.normal_isf((1 - CONFIDENCE) / 2)
    widened = 2 * distributions.normal_cdf(z * math.sqrt(max(1.0, factor))) - 1
    logs_a, logs_b = np.log(np.asarray(a, dtype=float)), np.log(np.asarray(b, dtype=float))
    estimate, (low, high), reached = shift.shift_interval(logs_a, logs_b, widened)
    coverage = CONFIDENCE
    if reached < widened:          # the widest there is: what it covers with the rounds' drift
        coverage = 1.0 - dependence.widen_p(1.0 - reached, factor)
    ratio = math.exp(estimate)
    p = dependence.widen_p(rank_tests.mann_whitney_p(a, b), factor)
    return ratio, (math.exp(low), math.exp(high)), p, factor, coverage


def verdict(ratio: float, ci95: tuple[float, float], significant: bool, threshold: float) -> str:
    """ "slower"/"faster" only when the test is significant, the interval excludes 1, and the
    ratio lies outside the noise band 1 +- threshold; "inconclusive" when the interval and the
    band say it moved but the (corrected) test does not; otherwise "no difference"."""
    lo, hi = ci95
    moved = (lo > 1 or hi < 1) and (ratio > 1 + threshold or ratio < 1 - threshold)
    if not moved:
        return "no difference"
    if not significant:
        return "inconclusive"
    return "slower" if ratio > 1 else "faster"


def holm(p_values: list[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values (same order as given): controls the chance of any
    false "slower"/"faster" over all the cases compared, without assuming independence."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))   # step-down, kept monotone
        adjusted[i] = running
    return adjusted


def common_rounds(cases: list[dict[int, float]]) -> list[int]:
    """The round ids every case ran in, in order."""
    return sorted(set.intersection(*(set(c) for c in cases)))


def _round_clustered_medians(cases: list[dict[int, float]], rounds: list[int], rng,
                             resamples: int) -> np.ndarray:
    """Each case's median over one shared draw of round ids per resample: shape (cases, resamples).

    The rounds of one run are shared by all its cases (each round runs every case once,
    in a shuffled order), so a slow round slows them all; drawing the same rounds for
    every case keeps that correlation, which resampling each case on its own would hide.
    One case at a time: all at once would hold cases x resamples x rounds values (120 MB
    for encoding's 248 cases)."""
    if resamples * len(rounds) > _RESAMPLE_CHUNK_VALUES:   # as resampled_medians: bounded memory
        rows = max(1, _RESAMPLE_CHUNK_VALUES // len(rounds))
        blocks = [_round_clustered_medians(cases, rounds, rng, min(rows, resamples - start))
                  for start in range(0, resamples, rows)]
        return np.concatenate(blocks, axis=1)
    picks = rng.integers(0, len(rounds), size=(resamples, len(rounds)))
    return np.array([np.median(np.array([c[r] for r in rounds], dtype=float)[picks], axis=1) for c in cases])


def geomean_ratio(pairs: list[tuple[dict[int, float], dict[int, float]]], confidence: float = CONFIDENCE,
                  resamples: int = 2000, seed: int = 0) -> tuple[float, tuple[float, float], str]:
    """The geometric mean of median(b)/median(a) over several cases, with a bootstrap interval.

    pairs: each case's round medians in run A and run B, by round id. One draw resamples
    run A's rounds and run B's rounds (independently: they are separate runs) and takes
    the geometric mean over cases of median(b*)/median(a*), every case drawing the same
    round ids. Returns (point, interval, method). When the cases of a run do not share
    at least 2 rounds (a case failed part-way), each case is resampled on its own, which
    treats them as independent and gives a narrower interval than the truth; the method
    says which was done.
    """
    point = float(np.exp(np.mean([np.log(np.median(list(b.values())) / np.median(list(a.values())))
                                  for a, b in pairs])))
    side_a, side_b = [a for a, _ in pairs], [b for _, b in pairs]
    rounds_a, rounds_b = common_rounds(side_a), common_rounds(side_b)
    if len(rounds_a) >= 2 and len(rounds_b) >= 2:
        rng = np.random.default_rng(seed)
        ma = _round_clustered_medians(side_a, rounds_a, rng, resamples)
        mb = _round_clustered_medians(side_b, rounds_b, rng, resamples)
        draws = np.exp(np.mean(np.log(mb / ma), axis=0))
        return point, interval(draws, confidence), "bootstrap over shared rounds"
    logs = [np.log(bootstrap_median_ratios(list(a.values()), list(b.values()), resamples, seed + i))
            for i, (a, b) in enumerate(pairs)]
    draws = np.exp(np.mean(logs, axis=0))
    return point, interval(draws, confidence), "bootstrap per case (rounds not shared: interval too narrow)"


def wider_than(summary: dict | None, target: float) -> bool:
    """Whether a figure's interval (a ratio's, or a median's) is wider than ±target of it: the one
    thing "~" marks in every table."""
    if not summary or not summary.get("median") or not summary.get("ci95"):
        return False
    lo, hi = summary["ci95"]
    return (hi - lo) / 2 / abs(summary["median"]) > target


def precision_target(result: dict) -> float:
    """The run's precision target for a result (its stopping rule's), else DEFAULT_THRESHOLD."""
    rule = (result.get("stopping") or {}).get("rule") or {}
    return rule.get("precision") or DEFAULT_THRESHOLD
