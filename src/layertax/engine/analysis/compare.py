"""Two saved runs side by side: is each case faster, slower, or no different?

Cases are matched by experiment and name. A timed case is compared on its
per-round medians (each round is one kernel process, the independent replicate;
see stats.summarize_rounds): the ratio of medians B/A with a bootstrap interval,
and the Mann-Whitney U test, whose p-values are Holm-corrected over every case
compared, so that among many cases one lucky draw does not read as a change.
A verdict needs the corrected test, the interval excluding 1, and the ratio
outside the noise band. Instruction counts (--metric instructions) are
deterministic: their ratio is exact and only the noise band applies.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from layertax.engine.analysis import analyze, stats
from layertax.engine import machine


@dataclass
class Row:
    experiment: str
    case: str
    a: float                          # median ns/op (or instructions/op) of A
    b: float
    ratio: float                      # b / a: above 1 means B is slower
    ci95: tuple[float, float]
    method: str                       # "time" or "instructions"
    p_value: float | None = None      # Mann-Whitney, before correction
    p_holm: float | None = None
    verdict: str = "no difference"
    a_rounds: dict[int, float] = field(default_factory=dict, repr=False)   # round id -> median, for the geometric mean
    b_rounds: dict[int, float] = field(default_factory=dict, repr=False)


@dataclass
class ExperimentComparison:
    name: str
    unit: str
    method: str
    rows: list[Row]
    geomean: Row | None
    not_compared: list[str]           # "case: why"
    geomean_method: str = ""          # how the geometric mean's interval was drawn
    warnings: list[str] = field(default_factory=list)


@dataclass
class Comparison:
    a_label: str
    b_label: str
    threshold: float
    machine_differences: list[str]
    experiments: list[ExperimentComparison]
    only_in_a: list[str]
    only_in_b: list[str]


def _method(exp: dict) -> str:
    return "instructions" if exp.get("metric") == "instructions" else "time"


def _rounds(exp: dict, case: dict) -> dict[int, float]:
    """The per-round medians a timed case is compared on, by round id."""
    rounds = analyze.round_values(case, analyze.sample_metric(exp))
    return {r: rounds[r] for r in sorted(rounds)}


def _per_op_instructions(case: dict) -> float | None:
    return (case.get("instructions") or {}).get("per_op")


def _why_not(case_a: dict, case_b: dict) -> str | None:
    for side, case in (("A", case_a), ("B", case_b)):
        if case["status"] != "ok":
            return f"{case['status']} in {side}" + (f" ({case['reason']})" if case.get("reason") else "")
    return None


def _compare_experiment(a: dict, b: dict, threshold: float) -> ExperimentComparison:
    method = _method(a)
    by_name_b = {c["name"]: c for c in b["cases"]}
    rows, skipped = [], []
    if method != _method(b):
        return ExperimentComparison(a["name"], a.get("unit", ""), method, [], None,
                                    [f"all cases: A counted {method}, B counted {_method(b)}"])
    if method == "time" and not any(c["samples"] for c in a["cases"] + b["cases"]):
        return ExperimentComparison(a["name"], a.get("unit", ""), "untimed", [], None, [_untimed(a, b)])
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
        ra, rb = _rounds(a, case_a), _rounds(b, case_b)
        va, vb = list(ra.values()), list(rb.values())
        if len(va) < 2 or len(vb) < 2:
            skipped.append(f"{case_a['name']}: not timed" if not va and not vb
                           else f"{case_a['name']}: fewer than 2 rounds")
            continue
        # The verdict waits for every case's p-value: Holm corrects them together (compare_runs).
        a_median, b_median = float(np.median(va)), float(np.median(vb))
        rows.append(Row(a["name"], case_a["name"], a_median, b_median, b_median / a_median,
                        stats.bootstrap_ratio_ci(va, vb), method, p_value=stats.mann_whitney_p(va, vb),
                        a_rounds=ra, b_rounds=rb))
    names_a = {c["name"] for c in a["cases"]}
    skipped += [f"{c['name']}: not in A" for c in b["cases"] if c["name"] not in names_a]
    return ExperimentComparison(a["name"], a.get("unit", ""), method, rows, None, skipped)


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


def _geomean(comparison: ExperimentComparison, threshold: float) -> tuple[Row | None, str]:
    """The geometric mean row over an experiment's compared cases, and how its interval was drawn."""
    rows = comparison.rows
    if len(rows) < 2:
        return None, ""
    if comparison.method == "instructions":
        point = float(np.exp(np.mean([np.log(r.ratio) for r in rows])))
        return (Row(comparison.name, "geometric mean", float("nan"), float("nan"), point, (point, point),
                    comparison.method, verdict=stats.verdict(point, (point, point), True, threshold)), "exact")
    point, ci, how = stats.geomean_ratio([(r.a_rounds, r.b_rounds) for r in rows])
    # No single test covers a mean of ratios: the bootstrap interval decides alone.
    return (Row(comparison.name, "geometric mean", float("nan"), float("nan"), point, ci, comparison.method,
                verdict=stats.verdict(point, ci, True, threshold)), how)


def _baseline_moved(comparison: ExperimentComparison, exp: dict) -> list[str]:
    """A warning for each baseline that itself came out slower or faster. A baseline is the
    reference kernel its cases are measured against, and the same code in both runs (else it
    was not a baseline to compare): when it moved, the machine ran at another speed, and every
    absolute verdict of the experiment carries that. Between two runs of one unchanged build a
    minute apart, on this project's shared VMs, the baseline moved by up to 6% and a case by up
    to 8% (docs/inprocess.md, "Comparing two runs")."""
    baselines = {exp.get("baseline"), *(g.get("baseline") for g in exp.get("groups") or [])}
    return [f"the baseline {row.case} itself came out {row.verdict} ({row.ratio:.3f}x): the machine ran at "
            f"another speed in B, which every verdict here carries; set each run's ratios to the baseline "
            f"side by side instead" for row in comparison.rows
            if row.case in baselines and row.method == "time" and row.verdict != "no difference"]


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
        e.geomean, e.geomean_method = _geomean(e, threshold)
        e.warnings = _baseline_moved(e, by_name_a[e.name])
    names_a = set(by_name_a)
    return Comparison(a_label, b_label, threshold, machine.differences(a["machine"], b["machine"]), experiments,
                      sorted(names_a - set(names_b)), sorted(set(names_b) - names_a))
