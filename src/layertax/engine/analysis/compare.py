"""Two saved runs side by side: is each case faster, slower, or no different?

Cases are matched by experiment and name. A timed case is compared on one value per round
(each round is one kernel process, the independent replicate; see stats.summarize_rounds):
its ratio to its baseline in that round when the experiment has one, else its median. The
ratio comes first because the machine's own speed moves between runs: two runs of one
unchanged build a minute apart moved a baseline by up to 6% and its case by up to 8%, and
judged on their own times, `compare` called the case changed in 15 of 28 such A/A pairs.
A case and its baseline run moments apart in every round, so the machine's speed cancels in
their ratio; the baseline itself is judged on its own times, and a warning says when it
moved (docs/guide/compare.md).

Each case gets B/A (the Hodges-Lehmann shift of its log values), Moses' interval for it and
the Mann-Whitney U test (the test that interval inverts), both widened for rounds that drift
together (stats.series_ratio_test, the drift factor estimated over the experiment's cases in
both runs); the p-values are Holm-corrected over every case compared, so that among many cases
one lucky draw does not read as a change. Where A's or B's run found a ratio moving between this
machine's runs (between_runs.py keeps how far, tau), both are widened by that too
(widen_between_runs). A verdict needs the corrected test, the interval excluding 1, and the ratio
outside the noise band. Instruction counts (--metric instructions) are deterministic: their
ratio is exact and only the noise band applies.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from layertax.engine.analysis import analyze, between_runs, dependence, rank_dependence, stats, two_levels
from layertax.engine import machine
from layertax import units


@dataclass
class Row:
    experiment: str
    case: str
    a: float                          # median ns/op (or instructions/op, or ratio to the baseline) of A
    b: float
    ratio: float                      # b / a: above 1 means B is slower
    ci95: tuple[float, float]
    method: str                       # "time" or "instructions"
    p_value: float | None = None      # Mann-Whitney, before correction
    p_holm: float | None = None
    verdict: str = "no difference"
    to_baseline: str = ""             # the baseline a and b are ratios to ("": a and b are the case's own figures)
    dependence: float = 1.0           # the variance factor the interval and p were widened by
    between_runs: float = 0.0         # tau: how far the ratio moves between runs here (logs), added to them
    a_rounds: dict[int, float] = field(default_factory=dict, repr=False)   # round id -> median, for the geometric mean
    b_rounds: dict[int, float] = field(default_factory=dict, repr=False)
    coverage: float = stats.CONFIDENCE   # what the interval covers: less where too few rounds reach 95%
    every_cpu: bool = False           # it runs on every CPU at once (experiment.Case.every_cpu: the ^ mark)
    prior_spread: bool = False        # between_runs is EVERY_CPU_TAU, no run here having found more


@dataclass
class ExperimentComparison:
    name: str
    unit: str
    method: str
    rows: list[Row]
    geomean: Row | None
    not_compared: list[str]           # "case: why"
    geomean_method: str = ""          # how the geometric mean's interval was drawn
    # How far the geometric mean moves between runs here (tau, logs; _mean_tau); None where neither
    # run kept it (saved before it was kept): the cases' tau stand in.
    mean_tau: float | None = None
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class Comparison:
    a_label: str
    b_label: str
    threshold: float
    machine_differences: list[str]
    experiments: list[ExperimentComparison]
    only_in_a: list[str]
    only_in_b: list[str]
    load_warnings: list[str] = field(default_factory=list)
    # Experiments judged on ratios where neither run was set beside enough earlier runs here to
    # find how far its ratios move between runs (_without_history): their intervals are within-run.
    without_history: list[str] = field(default_factory=list)


def _method(exp: dict) -> str:
    return "instructions" if exp.get("metric") == "instructions" else "time"


def _rounds(exp: dict, case: dict) -> dict[int, float]:
    """The per-round medians a timed case is compared on, by round id."""
    rounds = analyze.round_values(case, analyze.sample_metric(exp))
    return {r: rounds[r] for r in sorted(rounds)}


def _timed_rounds(exp: dict) -> dict[str, dict[int, float]]:
    """Every case's round values by name ({} for a case that did not run to the end)."""
    return {c["name"]: _rounds(exp, c) if c["status"] == "ok" else {} for c in exp["cases"]}


def _paired_bases(exp: dict) -> dict[str, dict[int, float] | None]:
    """The baseline's values each case's ratio divides by in each round of a run (analyze.paired_bases)."""
    return analyze.paired_bases({c["name"]: c for c in exp["cases"]},
                                {c["name"]: analyze.baseline_of(exp, c) for c in exp["cases"]}, analyze.sample_metric(exp))


def _per_op_instructions(case: dict) -> float | None:
    return (case.get("instructions") or {}).get("per_op")


def _why_not(case_a: dict, case_b: dict) -> str | None:
    for side, case in (("A", case_a), ("B", case_b)):
        if case["status"] != "ok":
            return f"{case['status']} in {side}" + (f" ({case['reason']})" if case.get("reason") else "")
    return None


def _to_baseline(a: dict, b: dict, case: dict, values: tuple[dict, dict],
                 bases: tuple[dict, dict]) -> tuple[str, dict[int, float], dict[int, float]] | None:
    """(baseline, A's ratios, B's ratios) for case (as in A): its ratio to its baseline round by round in
    each run, from every case's round values in each (values: A's and B's) and the baseline values
    each case pairs with (bases: A's and B's, _paired_bases). None when that cannot be taken in both:
    the case is its own baseline, the baseline was not timed in both, or the experiment's rounds
    are not paired (round r of every case ran in one kernel pass, moments apart; an import of
    separate runs of each command, like hyperfine's, says they are not)."""
    if not (a.get("rounds_paired", True) and b.get("rounds_paired", True)):
        return None
    (values_a, values_b), (bases_a, bases_b) = values, bases
    name = analyze.baseline_of(a, case)
    if name == case["name"] or not values_a.get(name) or not values_b.get(name):
        return None
    ratios_a = stats.paired_ratio_rounds(values_a[case["name"]], bases_a.get(case["name"]) or {})
    ratios_b = stats.paired_ratio_rounds(values_b[case["name"]], bases_b.get(case["name"]) or {})
    return (name, ratios_a, ratios_b) if len(ratios_a) >= 2 and len(ratios_b) >= 2 else None


def _compare_experiment(a: dict, b: dict, threshold: float) -> ExperimentComparison:
    method = _method(a)
    by_name_b = {c["name"]: c for c in b["cases"]}
    rows, skipped = [], []
    if method != _method(b):
        return ExperimentComparison(a["name"], a.get("unit", ""), method, [], None,
                                    [f"all cases: A counted {method}, B counted {_method(b)}"])
    if method == "time" and not any(c["samples"] for c in a["cases"] + b["cases"]):
        return ExperimentComparison(a["name"], a.get("unit", ""), "untimed", [], None, [_untimed(a, b)])
    values_a, values_b = (_timed_rounds(a), _timed_rounds(b)) if method == "time" else ({}, {})
    bases = (_paired_bases(a), _paired_bases(b)) if method == "time" else ({}, {})
    for case_a in a["cases"]:
        case_b = by_name_b.get(case_a["name"])
        if case_b is None:
            skipped.append(f"{case_a['name']}: not in B")
            continue
        why = _why_not(case_a, case_b)
        if why:
            skipped.append(f"{case_a['name']}: {why}")
            continue
        if method == "instructions":
            ia, ib = _per_op_instructions(case_a), _per_op_instructions(case_b)
            if not ia or ib is None:
                skipped.append(f"{case_a['name']}: no instruction count")
                continue
            r = ib / ia
            rows.append(Row(a["name"], case_a["name"], ia, ib, r, (r, r), method,
                            verdict=stats.verdict(r, (r, r), True, threshold)))
            continue
        ra, rb = values_a[case_a["name"]], values_b[case_b["name"]]
        if len(ra) < 2 or len(rb) < 2:
            skipped.append(f"{case_a['name']}: not timed" if not ra and not rb
                           else f"{case_a['name']}: fewer than 2 rounds")
            continue
        if min(*ra.values(), *rb.values()) <= 0:
            # A time of 0 is one below its tool's resolution (hyperfine's 0.0): no ratio to take.
            skipped.append(f"{case_a['name']}: a round timed at 0 (below the timer's resolution): no ratio")
            continue
        to_baseline = _to_baseline(a, b, case_a, (values_a, values_b), bases)
        if to_baseline:
            _, ra, rb = to_baseline
        # B/A, its interval and p are taken over the experiment's rows together (judge_rows).
        rows.append(Row(a["name"], case_a["name"], float(np.median(list(ra.values()))),
                        float(np.median(list(rb.values()))), math.nan, (math.nan, math.nan), method,
                        a_rounds=ra, b_rounds=rb, to_baseline=to_baseline[0] if to_baseline else "",
                        every_cpu=bool(case_a.get("every_cpu") or case_b.get("every_cpu"))))
    judge_rows(rows)
    for row in rows:
        widen_for_runs_here(row, (between_runs.found(a, row.case), between_runs.found(b, row.case)))
    names_a = {c["name"] for c in a["cases"]}
    skipped += [f"{c['name']}: not in A" for c in b["cases"] if c["name"] not in names_a]
    return ExperimentComparison(a["name"], a.get("unit", ""), method, rows, None, skipped, mean_tau=_mean_tau(a, b))


def _mean_tau(a: dict, b: dict) -> float | None:
    """How far the experiment's geometric mean moved between this machine's runs, as A's and B's
    runs found it beside their earlier runs (between_runs.mean_compared), the larger where the
    runs disagreed at TAU_P (else 0); None where neither run kept it."""
    kept = [(e.get("between_runs") or {}).get("mean") for e in (a, b)]
    kept = [m for m in kept if m]
    return max(_tau(m) for m in kept) if kept else None


def judge_rows(rows: list[Row]) -> None:
    """Each timed row's B/A, interval, p and drift factor (stats.series_ratio_test). A case's
    factor is estimated over the experiment's series of the same kind (its cases' ratios to their
    baselines, or the figures of cases judged on their own) in both runs together
    (rank_dependence.factors): one series of 8 to 40 rounds says little about its own drift. The
    verdict waits for every case's p-value: Holm corrects them together (compare_runs).
    bench/compare_coverage.py runs its simulated experiments through here."""
    timed = [r for r in rows if r.method == "time"]
    for kind in (True, False):
        group = [r for r in timed if bool(r.to_baseline) == kind]
        if not group:
            continue
        factors = rank_dependence.factors([list(r.a_rounds.values()) for r in group],
                                          [list(r.b_rounds.values()) for r in group])
        for row, factor in zip(group, factors):
            row.ratio, row.ci95, row.p_value, row.dependence, row.coverage = stats.series_ratio_test(
                list(row.a_rounds.values()), list(row.b_rounds.values()), factor)


# A run's tau is taken where its runs disagree at this level: from a window of up to six runs the
# estimate is positive about half the time when they agree (bench/compare_between_runs.py).
TAU_P = 0.05


def _tau(found: dict) -> float:
    """The spread between runs a run found for a ratio (between_runs.found), where its test of the
    runs' agreement rejected it at TAU_P; else 0."""
    return float(found.get("tau") or 0.0) if found.get("p", 1.0) < TAU_P else 0.0


# How far a case that runs on every CPU at once moves a run (tau, logs) at least: such a ratio
# follows the load on the machine's other CPUs, so it moves between runs while each run holds
# steady (the ^ mark), and two runs' rounds cannot show it. On three recordings on the 2-vCPU
# Intel Xeon VM, tls's two such cases' spread between stretches of 8 to 24 rounds had a root mean
# square of 0.07-0.11, in bursts (one recording's, not the others'); 0.14 is the smallest of
# 0.10, 0.12 and 0.14 under which their B/A intervals held 93-97% of recorded pairs at 16 and 24
# rounds, where their rounds alone held 72-76% (bench/compare_coverage.py --history
# --every-cpu-tau; docs/method/statistics.md).
EVERY_CPU_TAU = 0.14


def widen_for_runs_here(row: Row, found: tuple[dict, dict]) -> None:
    """A ratio widened for how far it moves between runs here (widen_between_runs): by the larger
    spread A's and B's runs found beside their earlier runs (between_runs.found, {} where a run was
    set beside none); a case on every CPU by at least EVERY_CPU_TAU, as its moves come in bursts
    that a window of a few calm runs does not show (bench/compare_coverage.py --history: found
    alone, its recorded intervals held 86-91%)."""
    tau = max(map(_tau, found))
    if row.every_cpu and tau < EVERY_CPU_TAU:
        widen_between_runs(row, EVERY_CPU_TAU)
        row.prior_spread = row.between_runs > 0
    else:
        widen_between_runs(row, tau)


def widen_between_runs(row: Row, tau: float) -> None:
    """A ratio's interval and p widened for how far it moves between runs on this machine beyond
    what each run's interval allows (tau, in logs: between_runs.spread_between, as A's or B's run
    found it beside this machine's earlier runs, the larger). A run's interval describes its own
    rounds; B/A sets two runs beside each other, and each carries its own offset from the ratio
    the machine gives over many runs, so their difference has 2 tau^2 more variance than the
    rounds show: loadtime's static programs moved 3% (tau) from run to run where their intervals
    allowed 1.4% (bench/compare_between_runs.py, docs/method/statistics.md). The factor is
    applied as drift's is."""
    if not row.to_baseline or row.method != "time":
        return
    factor = _between_runs_factor(row.ratio, row.ci95, tau, row.coverage)
    if factor is None:
        return
    row.ci95 = dependence.widen_ratio_interval(row.ratio, row.ci95, factor)
    row.p_value = dependence.widen_p(row.p_value, factor)
    row.between_runs = tau


def _between_runs_factor(ratio: float, ci: tuple[float, float], tau: float, coverage: float) -> float | None:
    """The variance factor that adds 2 tau^2 (A's offset and B's) to the variance a ratio's
    interval implies, its standard error read from its width as between_runs.point reads a run's;
    None where there is no tau or no interval to read."""
    if tau <= 0 or not all(map(math.isfinite, ci)):
        return None
    read = between_runs.point({"median": ratio, "ci95": list(ci), "ci_coverage": coverage})
    return None if read is None else 1 + 2 * tau ** 2 / read[1] ** 2


def _between_runs_note(comparison: ExperimentComparison) -> list[str]:
    """What the intervals widened for the spread between runs stand on: the runs here, or the prior
    for cases on every CPU."""
    found = [r for r in comparison.rows if r.between_runs > 0 and not r.prior_spread]
    prior = [r for r in comparison.rows if r.prior_spread]
    notes = []
    if found:
        most = max(found, key=lambda r: r.between_runs)
        notes.append(f"{_listed([r.case for r in found])}: B/A's interval includes how far the ratio moved between "
                     f"this machine's earlier runs beyond their intervals (up to {math.expm1(most.between_runs):.1%} "
                     f"a run, {most.case}), as A's or B's run found it beside them: a change must exceed that to "
                     f"be called")
    if prior:
        notes.append(f"{_listed([r.case for r in prior])}: run{'s' if len(prior) == 1 else ''} on every CPU at "
                     f"once (^), so the ratio moves between runs with the load on the machine's other CPUs, in "
                     f"bursts few runs show; B/A's interval includes at least {math.expm1(EVERY_CPU_TAU):.1%} a run "
                     f"(such cases' spread on a 2-vCPU VM): a change must exceed that to be called")
    return notes


def _few_rounds(comparison: ExperimentComparison) -> list[str]:
    """One warning for the cases with too few rounds in A and B for any 95% interval: the widest
    (from the lowest ratio of a round of B to a round of A to the highest) covers less."""
    short = [r for r in comparison.rows if r.coverage < stats.CONFIDENCE]
    if not short:
        return []
    worst = min(short, key=lambda r: r.coverage)
    return [f"{len(short)} case{'s' if len(short) != 1 else ''} ran too few rounds for a 95% interval "
            f"({worst.case}: {len(worst.a_rounds)} in A, {len(worst.b_rounds)} in B); their intervals "
            f"are the widest there are and cover as little as {worst.coverage:.0%}"]


def _untimed(a: dict, b: dict) -> str:
    """An experiment without timings (a correctness matrix): how many of its cells changed class."""
    def cells(exp):
        return {(c["name"], cell.get("column"), cell.get("channel")): cell.get("class")
                for c in exp["cases"] for cell in c.get("cells") or []}
    ca, cb = cells(a), cells(b)
    common = set(ca) & set(cb)
    if not common:
        return "not timed: nothing to compare"
    changed = sorted(k for k in common if ca[k] != cb[k])
    listed = "; ".join(f"{k[0]} {k[1]} {k[2]}: {ca[k]} -> {cb[k]}" for k in changed[:10])
    return (f"not timed; {len(changed)} of {len(common)} cells changed class" + (f": {listed}" if listed else "")
            + (" ..." if len(changed) > 10 else ""))


def geomean_row(comparison: ExperimentComparison, threshold: float) -> tuple[Row | None, str]:
    """The geometric mean row over an experiment's compared cases, and how its interval was drawn.
    When cases were judged on their ratio to a baseline, it is over those cases (the change in
    the layers' cost), not the baselines' own times. bench/compare_coverage.py measures how often
    its interval holds the true mean."""
    relative = [r for r in comparison.rows if r.to_baseline]
    rows = relative or comparison.rows
    if len(rows) < 2:
        return None, ""
    if comparison.method == "instructions":
        point = float(np.exp(np.mean([np.log(r.ratio) for r in rows])))
        return (Row(comparison.name, "geometric mean", float("nan"), float("nan"), point, (point, point),
                    comparison.method, verdict=stats.verdict(point, (point, point), True, threshold)), "exact")
    pairs = [(r.a_rounds, r.b_rounds) for r in rows]
    point, ci, how = stats.geomean_ratio(pairs)
    # The rounds drift together for the mean over cases too: widen by its own per-round series.
    factor = max(dependence.variance_factor(_geomean_series([a for a, _ in pairs])),
                 dependence.variance_factor(_geomean_series([b for _, b in pairs])))
    ci = dependence.widen_ratio_interval(point, ci, factor)
    how += f", widened {math.sqrt(factor):.2f}x for drift" if factor > 1 else ""
    # The mean moves between runs by its own offset: as the runs found it where they kept it
    # (between_runs.mean_compared: cases can move together by less than each one's interval), else
    # by the mean of the cases' tau, taken as moving together (loadtime's static programs do).
    own = comparison.mean_tau is not None
    tau = comparison.mean_tau if own else float(np.mean([r.between_runs for r in rows]))
    between = _between_runs_factor(point, ci, tau, stats.CONFIDENCE)
    if between:
        ci = dependence.widen_ratio_interval(point, ci, between)
        source = "the mean's own, beside earlier runs" if own else "the cases' mean"
        how += f", widened for the spread between runs (tau {tau:.3f}, {source})"
    if relative:
        how = f"over the {len(rows)} cases judged on their ratio to a baseline; {how}"
    # No single test covers a mean of ratios: the bootstrap interval decides alone.
    return (Row(comparison.name, "geometric mean", float("nan"), float("nan"), point, ci, comparison.method,
                verdict=stats.verdict(point, ci, True, threshold), dependence=factor), how)


def _geomean_series(cases: list[dict[int, float]]) -> list[float]:
    """The geometric mean over cases of each round they all ran in, in round order."""
    return [float(np.exp(np.mean([np.log(c[r]) for c in cases]))) for r in stats.common_rounds(cases)]


def _baseline_moved(comparison: ExperimentComparison, exp: dict) -> list[str]:
    """A warning for each baseline that itself came out slower or faster. A baseline is the
    reference kernel its cases are measured against: when it moved, either its own code
    changed or the machine ran at another speed (on a shared VM, two runs of one unchanged
    build a minute apart can differ by several percent: bench/back_to_back.py measures it). Its
    cases' verdicts, taken on their ratio to it, do not carry that where the machine moved a case
    as it moved the baseline; where it moved the baseline more, the case's ratio moves and may be
    called (bench/saved_runs_agree.py: loadtime's static programs, whose start the machine moves
    less than the dynamic baseline's), and the warning names those cases."""
    baselines = {exp.get("baseline"), *(g.get("baseline") for g in exp.get("groups") or [])}
    warnings = []
    for row in comparison.rows:
        if row.case not in baselines or row.method != "time" or row.verdict in ("no difference", "inconclusive"):
            continue
        judged = [r for r in comparison.rows if r.to_baseline == row.case]
        called = [r.case for r in judged if r.verdict in ("slower", "faster")]
        digits = units.ratio_decimals(row.ratio, *row.ci95)        # as its row prints it
        warnings.append(f"the baseline {row.case} itself came out {row.verdict} ({row.ratio:.{digits}f}x): its own "
                        f"code changed, or the machine ran at another speed in B"
                        + (f"; {_cases_judged(len(judged))}, which cancels the machine's speed where it moved "
                           "case and baseline alike" if judged else "")
                        + (f"; {_listed(called)}, called slower or faster beside it, may have moved with the "
                           f"machine rather than {'its' if len(called) == 1 else 'their'} code: run A and B again "
                           "to tell" if called else ""))
    return warnings


def _listed(names: list[str]) -> str:
    """"static" / "2 cases (static, empty)" / "4 cases (static, empty, ld-mold, ...)": the cases a
    warning names."""
    if len(names) == 1:
        return names[0]
    shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
    return f"{len(names)} cases ({shown})"


def _drifted(comparison: ExperimentComparison) -> list[str]:
    """One warning for the cases whose rounds drifted together in A or B past stats.DRIFT_FACTOR:
    their intervals were widened so much that only a large change can be called (in a run
    whose case moved 11% inside it, a 10% change came out "no difference")."""
    drifted = [r for r in comparison.rows if r.dependence > stats.DRIFT_FACTOR]
    if not drifted:
        return []
    worst = max(drifted, key=lambda r: r.dependence)
    return [f"{len(drifted)} case{'s' if len(drifted) != 1 else ''} drifted while A or B ran (successive rounds moved together; "
            f"the most, {worst.case}, by a variance factor of {worst.dependence:.1f}): their intervals are up to "
            f"{math.sqrt(worst.dependence):.1f}x as wide as for independent rounds, so only a large change shows; "
            "more rounds (--runs) or a quieter machine would tell more"]


def _two_levels(comparison: ExperimentComparison, threshold: float) -> list[str]:
    """A warning for each case called slower or faster whose ratio sat at two levels in A or B
    (engine/analysis/two_levels.py): a change in the shares of its rounds at each level moves its
    median by up to the gap with no change in its code."""
    warnings = []
    for row in comparison.rows:
        if row.verdict not in ("slower", "faster") or not row.to_baseline:
            continue
        for side, rounds in (("A", row.a_rounds), ("B", row.b_rounds)):
            levels = two_levels.two_levels(list(rounds.values()), threshold)
            if levels:
                warnings.append(f"{row.case} sat at two levels in {side} ({two_levels.pair(levels)} to "
                                f"{row.to_baseline}, {100 * levels['gap']:.1f}% apart): "
                                "a move up to that gap can be its rounds' shares of the two levels, not its code")
                break
    return warnings


def _moved_before(comparison: ExperimentComparison, exp_a: dict, exp_b: dict) -> list[str]:
    """A warning for each case called slower or faster whose ratio either run found moving between
    this machine's earlier runs (its `!`: engine/analysis/between_runs.py): a move of that size
    has come without a change of code here before."""
    warnings = []
    for row in comparison.rows:
        if row.verdict not in ("slower", "faster") or not row.to_baseline:
            continue
        for side, exp in (("A", exp_a), ("B", exp_b)):
            found = between_runs.found(exp, row.case)
            if found.get("moved"):
                warnings.append(f"{row.case} was marked ! in {side}: its ratio had moved between this machine's "
                                f"runs before ({found['low']:.3g}x to {found['high']:.3g}x over {found['runs']} runs), "
                                "so a move like this one has come without a change of code here")
                break
    return warnings


def _cases_judged(n: int) -> str:
    return ("the case measured against it is judged on its ratio to it" if n == 1
            else f"the {n} cases measured against it are judged on their ratio to it")


def compare_runs(a: dict, b: dict, threshold: float = stats.DEFAULT_THRESHOLD,
                 a_label: str = "A", b_label: str = "B") -> Comparison:
    """Compares run B with run A (both result documents)."""
    names_b = {e["name"]: e for e in b["experiments"]}
    experiments = [_compare_experiment(exp, names_b[exp["name"]], threshold)
                   for exp in a["experiments"] if exp["name"] in names_b]
    timed = [row for e in experiments for row in e.rows if row.p_value is not None]
    alpha = 1 - stats.CONFIDENCE
    for row, p in zip(timed, stats.holm([row.p_value for row in timed])):
        row.p_holm = p
        row.verdict = stats.verdict(row.ratio, row.ci95, p < alpha, threshold)
    by_name_a = {e["name"]: e for e in a["experiments"]}
    for e in experiments:
        e.geomean, e.geomean_method = geomean_row(e, threshold)
        e.warnings = (_baseline_moved(e, by_name_a[e.name]) + _few_rounds(e) + _drifted(e)
                      + _two_levels(e, threshold) + _moved_before(e, by_name_a[e.name], names_b[e.name]))
        e.notes = _between_runs_note(e)
    names_a = set(by_name_a)
    within = [e.name for e in experiments
              if any(r.to_baseline for r in e.rows) and _without_history(by_name_a[e.name], names_b[e.name])]
    return Comparison(a_label, b_label, threshold, machine.differences(a["machine"], b["machine"]), experiments,
                      sorted(names_a - set(names_b)), sorted(set(names_b) - names_a),
                      _load(a, "A") + _load(b, "B"), within)


def _without_history(exp_a: dict, exp_b: dict) -> bool:
    """Whether neither run of an experiment was set beside the earlier runs here that tell how far
    its ratios move between runs (between_runs.MIN_RUNS with it). Then B/A's interval holds the
    two runs' rounds and no spread between runs, but for cases on every CPU (EVERY_CPU_TAU)
    (bench/compare_coverage.py --history; docs/method/statistics.md)."""
    return all((e.get("between_runs") or {}).get("runs", 0) < between_runs.MIN_RUNS - 1 for e in (exp_a, exp_b))


def _load(doc: dict, side: str) -> list[str]:
    """What else ran while a run measured, as its result records it: another layertax
    (--allow-concurrent), tasks outside the run, the hypervisor's steal."""
    out = []
    others = (doc.get("concurrent") or {}).get("others") or []
    if others:
        out.append(f"{side} was measured while {len(others)} other layertax run(s) measured on its machine")
    for exp in doc["experiments"]:
        out += [f"{side}'s {exp['name']}: {w}" for w in exp.get("warnings") or []]
    return out
