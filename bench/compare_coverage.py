"""How often does `layertax compare`'s "B/A [95% CI]" hold the true B/A? Simulation and
recorded rounds.

compare sets two runs' per-round ratios of a case side by side: B/A is the Hodges-Lehmann shift
of their logarithms, its interval Moses' 95% interval for it (the one the Mann-Whitney test
inverts), widened in ranks by the variance factor of the Mann-Whitney count, estimated over the
experiment's cases in both runs (rank_dependence.py; compare.judge_rows, which this bench calls
as compare does). Here A and B are two runs of one experiment of 10 cases drawn from one model of
per-round ratios (_common.py: iid, mixture, drift, steps; each with an exact truth), so B/A's
truth is known; and, with RUN.json files that keep their samples, two runs of each recorded
experiment cut from one recorded run: two disjoint stretches of n consecutive rounds, the same
rounds for all its cases, so the machine's own drift is kept and no round is in both. Their
truth is 1; at n rounds a run, the cases that ran at least 2n take part.

    .venv/bin/python bench/compare_coverage.py [--sims 1000] [--sizes N,...] [--factors] [--mover]
                                               [--shortfall X] [--short-factor F] [--every-cpu-tau T]
                                               [--apart WHERE] [--by-gap]
                                               [--history] [--experiments 1000] [RUN.json ...]

--by-gap adds the recorded cases judged over every pair of whole stretches once, by how many
rounds apart the two start (how far a ratio moves between runs minutes apart). --mover adds, for
the same pairs, a design compare does not use: B/A's interval put together from each run's own
interval of its median (the one a run prints, widened by that run's factor) by MOVER (Zou and
Donner: the two half-widths added in quadrature on the log scale), to set beside compare's.
--apart adjacent (or ends) places the two recorded stretches one right after the other (or at the
run's two ends) instead of anywhere apart. A recorded case that runs on every CPU at once (the ^
mark) is judged as compare judges it where no run has history: widened by compare's prior spread
between runs (EVERY_CPU_TAU; --every-cpu-tau sets another). --history adds recorded runs as a
machine with history has them: each a stretch set beside the stretches before it as its earlier
runs (history_pair), so compare widens a case, and its geometric mean, by the spread between runs
its runs found there, beside the same pairs judged without (recordings of at least four
stretches); then the cases on every CPU alone (on their rounds only, with the prior, with
history), and the root mean square of their spread between a recording's stretches, which the
prior stands for. --shortfall and --short-factor run it all with another value of compare's two
small-sample constants (rank_dependence.py), to see what each does. --factors adds the drift
factor compare widened by under each model (its mean and spread: what two runs' rounds tell of
their own drift); --experiments adds the geometric-mean row compare prints for each experiment,
its truth the geometric mean of its cases' truths (simulated experiments, and every pair of whole
stretches of each recorded experiment of two cases or more, with the Wilson interval of that
share). Takes about two minutes at 4,000 cases a cell on one core, as much again for --mover,
about eight more at 1,000 experiments, and five for --by-gap on three recordings of 160 rounds;
--sizes splits it over cores. 93-97% is the goal, as for the runs' own intervals
(bench/interval_coverage.py).
"""
from __future__ import annotations

import argparse
import copy
import itertools
import math

import numpy as np
from scipy import stats as scipy_stats

from layertax.engine.analysis import between_runs, compare, dependence, rank_dependence, stats

from _common import MODELS, finish, recorded_ratios   # this folder's

SIZES = (6, 8, 12, 16, 24, 40)
CASES = 10          # the cases of one simulated experiment


class EveryCpu(np.ndarray):
    """A recorded case's ratios where the case runs on every CPU at once (experiment.Case.every_cpu),
    so that compare gives it EVERY_CPU_TAU where no run here found its spread. A view: its slices
    are EveryCpu too."""


def rows(runs_a: list[np.ndarray], runs_b: list[np.ndarray]) -> list[compare.Row]:
    """An experiment's cases as compare sets them side by side, A's and B's rounds of each (their
    ratios to a baseline; round ids shared by the cases, as in a run), not yet judged."""
    return [compare.Row("bench", str(i), float(np.median(a)), float(np.median(b)), float("nan"),
                        (float("nan"), float("nan")), "time", a_rounds=dict(enumerate(map(float, a))),
                        b_rounds=dict(enumerate(map(float, b))), to_baseline="base",
                        every_cpu=isinstance(a, EveryCpu))
            for i, (a, b) in enumerate(zip(runs_a, runs_b))]


def rounds_only(runs_a: list[np.ndarray], runs_b: list[np.ndarray]) -> list[compare.Row]:
    """An experiment's cases judged on the two runs' rounds alone, as compare judges them before
    it widens for the spread between runs."""
    out = rows(runs_a, runs_b)
    compare.judge_rows(out)
    return out


def judged(runs_a: list[np.ndarray], runs_b: list[np.ndarray]) -> list[compare.Row]:
    """An experiment's cases judged as compare judges them where neither run has earlier runs here:
    on their rounds, and a case on every CPU widened by EVERY_CPU_TAU."""
    return _fresh(rounds_only(runs_a, runs_b))


def _fresh(out: list[compare.Row]) -> list[compare.Row]:
    """Rows judged on their rounds, widened as compare widens them on a machine with no history."""
    for row in out:
        compare.widen_for_runs_here(row, ({}, {}))
    return out


def held(runs_a: list[np.ndarray], runs_b: list[np.ndarray], truths: list[float]) -> int:
    """How many of an experiment's cases have B/A's interval holding their truth."""
    return sum(_holds(judged(runs_a, runs_b), truths))


def _holds(judged_rows: list[compare.Row], truths: list[float]) -> list[bool]:
    """Whether each row's B/A interval holds its truth."""
    return [row.ci95[0] <= truth <= row.ci95[1] for row, truth in zip(judged_rows, truths)]


def mover_held(runs_a: list[np.ndarray], runs_b: list[np.ndarray], truths: list[float]) -> int:
    """How many cases the MOVER interval holds: each run's interval of its median on the log scale,
    widened by that run's factor for the case (dependence.factors over its experiment, as a run
    prints it), the two half-widths on each side added in quadrature."""
    hits = 0
    factors_a = dependence.factors([list(a) for a in runs_a])
    factors_b = dependence.factors([list(b) for b in runs_b])
    for a, b, fa, fb, truth in zip(runs_a, runs_b, factors_a, factors_b, truths):
        la, lb = np.log(a), np.log(b)
        a_low, a_high, _ = stats.median_ci(la, factor=fa)
        b_low, b_high, _ = stats.median_ci(lb, factor=fb)
        ma, mb = float(np.median(la)), float(np.median(lb))
        low = mb - ma - math.hypot(mb - b_low, a_high - ma)
        high = mb - ma + math.hypot(b_high - mb, ma - a_low)
        hits += low <= math.log(truth) <= high
    return hits


def mean_held(runs_a: list[np.ndarray], runs_b: list[np.ndarray], truths: list[float]) -> bool:
    """Whether the geometric-mean row compare prints for an experiment of these cases holds the
    geometric mean of their truths."""
    every_cpu = any(isinstance(a, EveryCpu) for a in runs_a)      # whose tau the mean takes in
    return _mean_holds(judged(runs_a, runs_b) if every_cpu else rows(runs_a, runs_b), None,
                       float(np.exp(np.mean(np.log(truths)))))


def simulated_pair(draw, rng, n: int) -> tuple[list[np.ndarray], list[np.ndarray], list[float]]:
    """Two runs of a simulated experiment of CASES cases, n rounds each, and each case's true B/A."""
    drawn = [(draw(rng, n), draw(rng, n)) for _ in range(CASES)]
    return [a for (a, _), _ in drawn], [b for _, (b, _) in drawn], [tb / ta for (_, ta), (_, tb) in drawn]


def recorded_pair(rng, ratios: list[np.ndarray], n: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Two runs of a recorded experiment: two disjoint stretches of n consecutive rounds of one
    recorded run, the same rounds for every case (of the rounds all its cases ran: the shortest
    case's, at least 2n), placed as APART says."""
    shortest = min(r.size for r in ratios)
    if APART == "adjacent":                                     # the second right after the first
        first = int(rng.integers(0, shortest - 2 * n + 1))
        second = first + n
    elif APART == "ends":                                       # the run's first and last rounds
        first, second = 0, shortest - n
    else:                                                       # anywhere, not overlapping
        first = int(rng.integers(0, shortest - 2 * n + 1))
        second = int(rng.integers(first + n, shortest - n + 1))
    a, b = (first, second) if rng.random() < 0.5 else (second, first)
    return [r[a:a + n] for r in ratios], [r[b:b + n] for r in ratios]


# Where recorded_pair places its two stretches (--apart).
APART = "any"


def history_pair(rng, ratios: list[np.ndarray], n: int) -> tuple[int, list[list[np.ndarray]], int, int]:
    """Two runs of a recorded experiment, each with the earlier runs a run sets it beside: the
    recording cut into consecutive stretches of n rounds from a random start round (the same
    rounds for every case), run A a stretch with at least between_runs.MIN_RUNS - 1 stretches
    before it, run B a later one. Returns (start, stretches, A's index, B's index); each run's
    earlier runs are the stretches _earlier() names."""
    shortest = min(r.size for r in ratios)
    count = shortest // n
    start = int(rng.integers(0, shortest - count * n + 1))
    stretches = _stretches(ratios, n, start)
    first = int(rng.integers(between_runs.MIN_RUNS - 1, count - 1))
    second = int(rng.integers(first + 1, count))
    return start, stretches, first, second


def _stretches(ratios: list[np.ndarray], n: int, start: int = 0) -> list[list[np.ndarray]]:
    """A recorded experiment cut into consecutive stretches of n rounds from round `start`, the
    same rounds for every case (as many as its shortest case holds)."""
    count = (min(r.size for r in ratios) - start) // n
    return [[r[start + k * n:start + (k + 1) * n] for r in ratios] for k in range(count)]


def _earlier(k: int) -> range:
    """The stretches a run at stretch k is set beside: the up to WINDOW - 1 right before it, newest
    first (B's can hold A, as a machine's history does)."""
    return range(k - 1, max(0, k - (between_runs.WINDOW - 1)) - 1, -1)


def history_held(stretches: list[list[np.ndarray]], first: int, second: int, as_run,
                 truths: list[float]) -> dict[str, int]:
    """What B/A's intervals hold as compare judges two runs (stretches first and second): with no
    earlier runs here (a case on every CPU widened by EVERY_CPU_TAU), and where each run was set
    beside its earlier ones (as_run(k): stretch k as a run saves it), widened by the spread
    between runs (tau) either found where its runs disagreed (compare.widen_for_runs_here). Counts
    of cases held ("plain", "widened"), of the cases on every CPU among them ("every", "every
    plain", "every widened", and "every rounds", on their rounds alone), and whether the
    geometric-mean row held the mean truth ("mean plain", "mean widened": by the spread between
    runs of the mean itself, between_runs.mean_compared, as a run keeps it)."""
    out = rounds_only(stretches[first], stretches[second])
    fresh = _fresh([copy.copy(row) for row in out])
    truth_mean = float(np.exp(np.mean(np.log(truths))))
    now = [as_run(first), as_run(second)]
    before = [[as_run(k) for k in _earlier(first)], [as_run(k) for k in _earlier(second)]]
    every = [row.every_cpu for row in out]
    rounds = _holds(out, truths)
    for k, row in enumerate(out):
        found = tuple(between_runs.compared(now[side]["cases"][k]["stats"]["ratio"],
                                            [run["cases"][k]["stats"]["ratio"] for run in before[side]]) or {}
                      for side in (0, 1))
        compare.widen_for_runs_here(row, found)
    means = [between_runs.mean_compared(now[side], before[side]) for side in (0, 1)]
    mean_tau = max((compare._tau(m) for m in means if m), default=None)
    plain, widened = _holds(fresh, truths), _holds(out, truths)

    def on_every_cpu(holds: list[bool]) -> int:
        return sum(h and e for h, e in zip(holds, every))
    return {"plain": sum(plain), "widened": sum(widened), "every": sum(every),
            "every rounds": on_every_cpu(rounds), "every plain": on_every_cpu(plain),
            "every widened": on_every_cpu(widened),
            "mean plain": _mean_holds(fresh, None, truth_mean), "mean widened": _mean_holds(out, mean_tau, truth_mean)}


def _as_run(stretch: list[np.ndarray]) -> dict:
    """A stretch as a run saves its experiment: each case's ratio summary, the median of its rounds
    and its interval, widened by the factor estimated over the experiment's cases."""
    factors = dependence.factors([list(s) for s in stretch])
    return {"cases": [{"name": str(k), "stats": {"ratio": stats.ratio_summary(list(s), factor=f)}}
                      for k, (s, f) in enumerate(zip(stretch, factors))]}


def _mean_holds(rows: list[compare.Row], mean_tau: float | None, truth: float) -> bool:
    """Whether the geometric-mean row of judged rows holds truth (False where there is no row)."""
    row, _ = compare.geomean_row(compare.ExperimentComparison("bench", "", "time", rows, None, [],
                                                              mean_tau=mean_tau), 0.02)
    return row is not None and row.ci95[0] <= truth <= row.ci95[1]


# with_history's shares: each a count of history_held's over a count of what it is out of.
HISTORY_SHARES = {"cases, no history": ("plain", "cases"), "cases, with history": ("widened", "cases"),
                  "every CPU, rounds only": ("every rounds", "every"), "every CPU, no history": ("every plain", "every"),
                  "every CPU, with history": ("every widened", "every"),
                  "mean, no history": ("mean plain", "means"), "mean, with history": ("mean widened", "means")}


def with_history(experiments: list[list[np.ndarray]], n: int, sims: int, seed: int) -> tuple[dict[str, float], dict[str, int]]:
    """Over pairs of runs with their histories (history_pair) of experiments whose every case ran
    at least four stretches of n rounds: the shares of cases, of cases on every CPU, and of
    experiments of two cases or more whose intervals held 1 (HISTORY_SHARES; nan where there
    were none), and how many of each a draw holds."""
    experiments = [e for e in ([r for r in e if r.size >= 4 * n] for e in experiments) if e]
    counts = {"cases": sum(map(len, experiments)), "means": sum(len(e) >= 2 for e in experiments),
              "every": sum(isinstance(r, EveryCpu) for e in experiments for r in e)}
    sums = dict.fromkeys(("plain", "widened", "every rounds", "every plain", "every widened",
                          "mean plain", "mean widened"), 0)
    draws = max(20, sims // counts["cases"]) if experiments else 0
    rng = np.random.default_rng(seed)
    # A stretch recurs in many draws (the same start, the same index): summed up once.
    saved: dict[tuple[int, int, int], dict] = {}
    for _ in range(draws):
        for e, ratios in enumerate(experiments):
            start, stretches, first, second = history_pair(rng, ratios, n)

            def as_run(k: int) -> dict:
                if (e, start, k) not in saved:
                    saved[e, start, k] = _as_run(stretches[k])
                return saved[e, start, k]
            held_now = history_held(stretches, first, second, as_run, [1.0] * len(ratios))
            for key in sums:
                sums[key] += held_now[key] if len(ratios) >= 2 or not key.startswith("mean") else 0
    shares = {label: sums[held_key] / (draws * counts[of]) if draws and counts[of] else float("nan")
              for label, (held_key, of) in HISTORY_SHARES.items()}
    return shares, counts


def every_cpu_spread(experiments: list[list[np.ndarray]], n: int) -> float:
    """The root mean square, over the recorded cases on every CPU, of the spread between a
    recording's consecutive stretches of n rounds (between_runs.spread_between, each stretch
    summed up as a run saves itself): the spread compare's EVERY_CPU_TAU stands for (nan where no
    such case has two stretches)."""
    spreads = []
    for ratios in experiments:
        stretches = _stretches(ratios, n)
        if len(stretches) < 2:
            continue
        runs = [_as_run(stretch) for stretch in stretches]
        for c, r in enumerate(ratios):
            if isinstance(r, EveryCpu):
                points = [between_runs.point(run["cases"][c]["stats"]["ratio"]) for run in runs]
                spreads.append(between_runs.spread_between([(x, se) for x, se, _ in filter(None, points)]))
    return float(np.sqrt(np.mean(np.square(spreads)))) if spreads else float("nan")


def long_enough(experiments: list[list[np.ndarray]], n: int) -> list[list[np.ndarray]]:
    """Each recorded experiment's cases that ran at least 2n rounds (the experiments that have any)."""
    kept = [[r for r in e if r.size >= 2 * n] for e in experiments]
    return [e for e in kept if e]


def simulated(draw, n: int, sims: int, seed: int, judge=held) -> float:
    rng = np.random.default_rng(seed)
    experiments = max(1, sims // CASES)
    return sum(judge(*simulated_pair(draw, rng, n)) for _ in range(experiments)) / (experiments * CASES)


def resampled(experiments: list[list[np.ndarray]], n: int, sims: int, seed: int, judge=held) -> float:
    """The share of recorded cases whose B/A interval held 1, over pairs of runs of each experiment
    long enough for n rounds a run (nan where none is)."""
    experiments = long_enough(experiments, n)
    if not experiments:
        return float("nan")
    rng = np.random.default_rng(seed)
    hits = total = 0
    for _ in range(max(20, sims // sum(len(e) for e in experiments))):
        for ratios in experiments:
            hits += judge(*recorded_pair(rng, ratios, n), [1.0] * len(ratios))
            total += len(ratios)
    return hits / total


def factors(draw, n: int, sims: int, seed: int) -> np.ndarray:
    """The drift factors compare widened the intervals of simulated pairs of runs by."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(max(1, sims // CASES)):
        out += [row.dependence for row in judged([draw(rng, n)[0] for _ in range(CASES)],
                                                 [draw(rng, n)[0] for _ in range(CASES)])]
    return np.array(out)


def simulated_means(draw, n: int, experiments: int, seed: int) -> float:
    """The share of simulated experiments of CASES cases whose geometric-mean row held its truth."""
    rng = np.random.default_rng(seed)
    return sum(mean_held(*simulated_pair(draw, rng, n)) for _ in range(experiments)) / experiments


def every_pair(experiments: list[list[np.ndarray]], n: int):
    """Every pair of whole stretches of n rounds (cut from round 0) of each recorded experiment's
    cases that ran at least 2n: (A's rounds, B's rounds, how many rounds apart they start), A
    the earlier. Each distinct pair once, so a share over them is not a share of a few pairs
    drawn many times."""
    for ratios in long_enough(experiments, n):
        stretches = _stretches(ratios, n)
        for i, j in itertools.combinations(range(len(stretches)), 2):
            yield stretches[i], stretches[j], (j - i) * n


def resampled_means(experiments: list[list[np.ndarray]], n: int) -> tuple[int, int]:
    """Over every pair of whole stretches of the recorded experiments of two cases or more long
    enough for n rounds a run: how many pairs' geometric-mean row held 1, and how many pairs."""
    hits = total = 0
    for a, b, _ in every_pair(experiments, n):
        if len(a) >= 2:                   # of its cases, those long enough for n rounds a run
            hits += mean_held(a, b, [1.0] * len(a))
            total += 1
    return hits, total


# How many rounds apart two recorded stretches start (from, to): --by-gap's columns.
GAPS = ((1, 20), (21, 40), (41, 80), (81, 120), (121, 10 ** 6))


def held_by_gap(experiments: list[list[np.ndarray]], n: int) -> list[tuple[int, int]]:
    """Over every pair of whole stretches of n rounds of the recorded experiments: how many cases'
    B/A interval held 1, and how many cases, for each of GAPS."""
    out = [[0, 0] for _ in GAPS]
    for a, b, apart in every_pair(experiments, n):
        cell = next(out[k] for k, (low, high) in enumerate(GAPS) if low <= apart <= high)
        cell[0] += held(a, b, [1.0] * len(a))
        cell[1] += len(a)
    return [(hits, total) for hits, total in out]


def share_interval(hits: int, total: int) -> tuple[float, float]:
    """The Wilson 95% interval of a share of hits out of total (nan where total is 0). Recorded pairs
    share stretches, so it is if anything narrower than the share's real uncertainty."""
    if not total:
        return float("nan"), float("nan")
    ci = scipy_stats.binomtest(hits, total).proportion_ci(confidence_level=0.95, method="wilson")
    return float(ci.low), float(ci.high)


def _sizes(text: str) -> tuple[int, ...]:
    """--sizes: round counts of at least 2, comma-separated; anything else one line from argparse."""
    try:
        sizes = tuple(int(n) for n in text.split(","))
    except ValueError:
        sizes = ()
    if not sizes or min(sizes) < 2:
        raise argparse.ArgumentTypeError(f"not round counts of at least 2, comma-separated: {text!r}")
    return sizes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*", help="saved results with their samples (recorded rounds)")
    parser.add_argument("--sims", type=int, default=1000, help="simulated cases a cell")
    parser.add_argument("--sizes", type=_sizes, help="the rounds of each run (comma-separated)")
    parser.add_argument("--factors", action="store_true",
                        help="also the drift factor compare widens by under each model: its mean and spread")
    parser.add_argument("--mover", action="store_true",
                        help="also B/A's interval put together from each run's own median interval (MOVER)")
    parser.add_argument("--shortfall", type=float,
                        help="the factor's small-sample correction to use instead of compare's "
                        "(rank_dependence.SHORTFALL; 0: none)")
    parser.add_argument("--short-factor", type=float,
                        help="the factor for runs too short to estimate one, instead of compare's "
                        "(rank_dependence.SHORT_FACTOR)")
    parser.add_argument("--every-cpu-tau", type=float,
                        help=f"compare's prior spread between runs of a case on every CPU (default {compare.EVERY_CPU_TAU:g})")
    parser.add_argument("--apart", choices=("any", "adjacent", "ends"), default="any",
                        help="where the two recorded stretches lie: anywhere apart, one right after "
                        "the other, or at the run's two ends")
    parser.add_argument("--by-gap", action="store_true",
                        help="also the recorded cases over every pair of whole stretches, by how many "
                        "rounds apart the two start")
    parser.add_argument("--history", action="store_true",
                        help="also recorded runs set beside earlier runs (stretches before them), as "
                        "compare widens by the spread between runs it finds there")
    parser.add_argument("--experiments", type=int, default=0,
                        help="also the geometric-mean row: simulated experiments a cell (recorded: "
                        "every pair of whole stretches once)")
    args = parser.parse_args()
    sizes = args.sizes or SIZES
    global APART
    APART = args.apart
    if args.shortfall is not None:
        rank_dependence.SHORTFALL = args.shortfall
    if args.short_factor is not None:
        rank_dependence.SHORT_FACTOR = args.short_factor
    if args.every_cpu_tau is not None:
        compare.EVERY_CPU_TAU = args.every_cpu_tau
    # read first, so that a file it cannot read stops it before minutes of simulation
    experiments = [[ratios for _, ratios in cases]
                   for _, cases in recorded_ratios(args.runs, at_least=2 * min(sizes), every_cpu_as=EveryCpu)]
    print(f"coverage of compare's B/A [95% CI]; {args.sims} cases a cell; rounds of each run "
          f"(shortfall {rank_dependence.SHORTFALL:g}, short runs' factor {rank_dependence.SHORT_FACTOR:g}):")
    print(f"{'model':18} " + " ".join(f"{n:>6}" for n in sizes))
    for i, (name, draw) in enumerate(MODELS.items()):
        cells = [simulated(draw, n, args.sims, seed=300 + 10 * i + n) for n in sizes]
        print(f"{name:18} " + " ".join(f"{100 * c:6.1f}" for c in cells), flush=True)
    if experiments:
        cells = [resampled(experiments, n, args.sims, seed=500 + n) for n in sizes]
        _recorded_rows(cells, [sum(map(len, long_enough(experiments, n))) for n in sizes], "cases")
    if args.by_gap and experiments:
        _by_gap(experiments, sizes)
    if args.history and experiments:
        _history(experiments, sizes, args.sims)
    if args.mover:
        _judged_table("coverage of B/A's interval by MOVER from each run's own 95% interval (not compare's)",
                      mover_held, experiments, sizes, args.sims)
    if args.factors:
        _factors(sizes, args.sims)
    if args.experiments:
        _means([e for e in experiments if len(e) >= 2], sizes, args.experiments)
    return 0


def _judged_table(title: str, judge, experiments: list[list[np.ndarray]], sizes: tuple[int, ...], sims: int) -> None:
    """A coverage table of another interval than compare's, on the same simulated and recorded pairs."""
    print(f"\n{title}; {sims} cases a cell:")
    print(f"{'model':18} " + " ".join(f"{n:>6}" for n in sizes))
    for i, (name, draw) in enumerate(MODELS.items()):
        cells = [simulated(draw, n, sims, seed=300 + 10 * i + n, judge=judge) for n in sizes]
        print(f"{name:18} " + " ".join(f"{100 * c:6.1f}" for c in cells), flush=True)
    if experiments:
        cells = [resampled(experiments, n, sims, seed=500 + n, judge=judge) for n in sizes]
        _recorded_rows(cells, [sum(map(len, long_enough(experiments, n))) for n in sizes], "cases")


def _recorded_rows(cells: list[float], counts: list[int], what: str) -> None:
    """The recorded row, and under it how many recorded cases (or experiments) each cell rests on."""
    print(f"{'recorded':18} " + " ".join("     -" if math.isnan(c) else f"{100 * c:6.1f}" for c in cells))
    print(f"{'  (' + what + ')':18} " + " ".join(f"{k:6d}" for k in counts), flush=True)


def _history(experiments: list[list[np.ndarray]], sizes: tuple[int, ...], sims: int) -> None:
    print(f"\nrecorded runs, each with the 2 to 5 stretches before it as its earlier runs; {sims} cases a cell:")
    print(f"{'':24} " + " ".join(f"{n:>6}" for n in sizes))
    cells = [with_history(experiments, n, sims, seed=600 + n) for n in sizes]
    for label, (_, of) in HISTORY_SHARES.items():
        print(f"{label:24} " + " ".join("     -" if math.isnan(c[0][label]) else f"{100 * c[0][label]:6.1f}"
                                         for c in cells))
        if label.endswith("with history"):
            print(f"{'  (' + of + ' a draw)':24} " + " ".join(f"{c[1][of]:6d}" for c in cells), flush=True)
    spreads = [every_cpu_spread(experiments, n) for n in sizes]
    print(f"{'every-CPU spread (tau)':24} " + " ".join("     -" if math.isnan(t) else f"{t:6.3f}" for t in spreads)
          + f"   (compare's prior: {compare.EVERY_CPU_TAU:g})", flush=True)


def _factors(sizes: tuple[int, ...], sims: int) -> None:
    print(f"\nthe drift factor compare widened by (mean, and the middle 80%); {sims} pairs of runs a cell:")
    print(f"{'model':18} " + " ".join(f"{n:>16}" for n in sizes))
    for i, (name, draw) in enumerate(MODELS.items()):
        cells = [factors(draw, n, sims, seed=1100 + 10 * i + n) for n in sizes]
        print(f"{name:18} " + " ".join(
            f"{c.mean():5.2f} {np.quantile(c, 0.1):4.2f}-{np.quantile(c, 0.9):4.2f}".rjust(16) for c in cells), flush=True)


def _means(recorded_experiments: list[list[np.ndarray]], sizes: tuple[int, ...], experiments: int) -> None:
    print(f"\ncoverage of compare's geometric-mean row [95% CI] ({CASES} cases an experiment); "
          f"{experiments} experiments a cell:")
    print(f"{'model':18} " + " ".join(f"{n:>6}" for n in sizes))
    for i, (name, draw) in enumerate(MODELS.items()):
        cells = [simulated_means(draw, n, experiments, seed=700 + 10 * i + n) for n in sizes]
        print(f"{name:18} " + " ".join(f"{100 * c:6.1f}" for c in cells), flush=True)
    if recorded_experiments:
        counts = [resampled_means(recorded_experiments, n) for n in sizes]
        _recorded_rows([hits / total if total else float("nan") for hits, total in counts],
                       [sum(len(e) >= 2 for e in long_enough(recorded_experiments, n)) for n in sizes],
                       "experiments")
        _counted_rows(counts, "pairs")


def _counted_rows(counts: list[tuple[int, int]], what: str) -> None:
    """Under a recorded row: how many distinct pairs (or cases) each cell counts, and the Wilson 95%
    interval of its share."""
    print(f"{'  (' + what + ')':18} " + " ".join(f"{total:6d}" for _, total in counts))
    bounds = [share_interval(hits, total) for hits, total in counts]
    for side, label in enumerate(("  (Wilson low)", "  (Wilson high)")):
        print(f"{label:18} " + " ".join("     -" if math.isnan(b[side]) else f"{100 * b[side]:6.1f}"
                                        for b in bounds), flush=True)


def _by_gap(experiments: list[list[np.ndarray]], sizes: tuple[int, ...]) -> None:
    print("\nrecorded cases over every pair of whole stretches, by how many rounds apart they start:")
    print(f"{'rounds a run':18} " + " ".join(f"{f'{low}-{high}' if high < 10 ** 6 else f'{low}+':>12}"
                                             for low, high in GAPS))
    for n in sizes:
        cells = held_by_gap(experiments, n)
        print(f"{n:<18} " + " ".join(f"{100 * hits / total:5.1f} {f'({total})':>6}" if total else f"{'-':>12}"
                                     for hits, total in cells), flush=True)


if __name__ == "__main__":
    finish(main)
