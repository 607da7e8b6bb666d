"""Turns an experiment's raw samples into the statistics a report prints.

Works on a case as saved (a dict) or as typed (result/model.Case) alike, so it can be re-run
on any saved result. Nothing here changes what it is given: summaries() returns the statistics
of typed cases, analyzed() a saved result's experiment with its statistics.
"""
from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Collection

from layertax.engine.analysis import level_shift, stats, two_levels
from layertax.result.model import Case


def samples_of(case: dict | Case) -> list:
    return case.samples if isinstance(case, Case) else case["samples"]


def ns_per_op(sample: dict) -> float:
    return sample["ns"] / sample["ops"]


def value(sample: dict, metric: str | None = None) -> float | None:
    """The figure a sample contributes: ns/op for kernels, or the named field (e.g. a launch's main_ns)."""
    return ns_per_op(sample) if metric is None else sample.get(metric)


def sample_metric(exp: dict) -> str | None:
    """The sample field an experiment's figures are read from: None for ns/op (a timed run),
    else the field (a launch's main_ns)."""
    metric = exp.get("metric")
    return None if metric in (None, "time") else metric


def field_median(case: dict, key: str) -> float | None:
    """The median of one field over a case's samples (e.g. a launch's minflt), None if it has none."""
    values = [s[key] for s in samples_of(case) if s.get(key) is not None]
    return float(statistics.median(values)) if values else None


def round_samples(case: dict, metric: str | None = None) -> dict[int, list[float]]:
    by_round: dict[int, list[float]] = defaultdict(list)
    for s in samples_of(case):
        v = value(s, metric)
        if v is not None:
            by_round[s["round"]].append(v)
    return dict(by_round)


def round_values(case: dict, metric: str | None = None) -> dict[int, float]:
    """The median of each round's burst: one paired observation per round."""
    return _medians(round_samples(case, metric))


def beside_values(case: dict | Case, base: dict | Case, metric: str | None = None) -> dict[int, float]:
    """The baseline's value the case's ratio divides by in each round: the median of the baseline
    burst that ran beside the case's (engine/measure/layout.py: the case's samples name its
    slot, "beside"), where the round was laid out so; else the baseline's round median."""
    return _beside(case, round_values(base, metric), _bursts(base, metric))


def _bursts(base: dict | Case, metric: str | None) -> dict[tuple[int, int], list[float]]:
    """A baseline's values by (round, slot): one list a burst."""
    bursts: dict[tuple[int, int], list[float]] = defaultdict(list)
    for s in samples_of(base):
        if "slot" in s and (v := value(s, metric)) is not None:
            bursts[(s["round"], s["slot"])].append(v)
    return bursts


def _beside(case: dict | Case, medians: dict[int, float], bursts: dict[tuple[int, int], list[float]]) -> dict[int, float]:
    beside = {s["round"]: s["beside"] for s in samples_of(case) if "beside" in s}
    if not beside:
        return medians
    return {r: float(statistics.median(bursts[(r, beside[r])])) if (r, beside.get(r)) in bursts else m
            for r, m in medians.items()}


def paired_bases(cases: dict[str, dict | Case], baselines: dict[str, str | None],
                 metric: str | None = None, values: dict[str, dict[int, float]] | None = None
                 ) -> dict[str, dict[int, float] | None]:
    """Each case's baseline values, round by round, as its ratio pairs with them (beside_values);
    None for a baseline, or where its baseline is not among the cases. Each baseline's medians
    and bursts are read once, however many cases it serves; values: every case's round medians
    (round_values), where the caller has them already."""
    used = {base for name, base in baselines.items() if base and base != name and base in cases and name in cases}
    read = {base: ((values or {}).get(base) or round_values(cases[base], metric), _bursts(cases[base], metric))
            for base in used}
    return {name: _beside(case, *read[base]) if (base := baselines.get(name)) in read and base != name else None
            for name, case in cases.items()}


def _medians(rounds: dict[int, list[float]]) -> dict[int, float]:
    # The standard library's median, numpy's value exactly (tests/test_round_medians.py): np.median
    # spends about 50 µs a call on a burst of three, and a large experiment has tens of thousands.
    return {r: float(statistics.median(v)) for r, v in rounds.items()}


def preempted(sample: dict) -> bool | None:
    """Whether another task took the sample's CPU while it ran: the sample's own "preempted"
    when it has that field (a launch's, from its run-queue wait; None: unknown), else whether
    it had an involuntary context switch (a kernel's samples); None where neither is known."""
    if "preempted" in sample:
        return sample["preempted"]
    return sample["csw_invol"] > 0 if "csw_invol" in sample else None


def case_stats(case: dict, base_values: dict[int, float] | None, metric: str | None = None,
               ratio_level: float = stats.CONFIDENCE, ratio_factor: float | None = None,
               target: float = stats.DEFAULT_THRESHOLD) -> dict | None:
    """base_values: the baseline's round medians (None if the baseline has no samples).
    ratio_level: the level the ratio's interval is computed at (labelled 95% whatever it is): the
    stopping rule's stricter confidence where the case stopped adding rounds because its ratio
    met the precision target (precise_level), else 95%.
    ratio_factor: the ratio's drift factor, estimated with the experiment's other cases
    (stats.ratio_factors); None: from the case's own rounds. target: the precision target, the
    least gap between two levels of the ratio that counts (two_levels)."""
    rounds = round_samples(case, metric)
    if not rounds:
        return None
    order = sorted(rounds)                     # the rounds in the order they ran
    medians = _medians(rounds)
    summary = stats.summarize_rounds([rounds[r] for r in order])
    known = [(value(s, metric), flag) for s in samples_of(case)
             if (flag := preempted(s)) is not None and value(s, metric) is not None]
    share, slowdown = stats.disturbance([v for v, _ in known], [flag for _, flag in known])
    summary["disturbed_share"] = share
    summary["disturbed_slowdown"] = slowdown
    summary["ratio"] = None
    if base_values:
        ratios = stats.paired_ratios(medians, base_values)
        summary["ratio"] = stats.ratio_summary(ratios, ratio_level, ratio_factor)
        if summary["ratio"]:
            summary["ratio"]["two_levels"] = two_levels.two_levels(ratios, target)
    summary["warnings"] = stats.noise_warnings(summary, share, slowdown)
    if summary["ratio"] and summary["ratio"]["two_levels"]:
        summary["warnings"].append(two_levels.warning(summary["ratio"]["two_levels"]))
    # In the order they ran: one value per round (a round's burst is one process, one moment).
    shift = level_shift.level_shift([medians[r] for r in order])
    summary["level_shift"] = shift
    if shift:
        summary["warnings"].append(level_shift.warning(shift))
    return summary


def classic_now(exp: dict, values: dict[str, dict[int, float]], factors: dict[str, float] | None = None,
                precise: Collection[str] = (), bases: dict[str, dict[int, float] | None] | None = None,
                precise_at: float = stats.SEQUENTIAL_CONFIDENCE) -> list[dict]:
    """Each classic figure beside today's ratio of its counterpart, paired per round.

    values: each case's round medians, by case name (empty for a case without samples);
    factors: the ratios' drift factors (stats.ratio_factors), used where the classic's baseline
    is the counterpart's own; precise: the cases that stopped because their ratio met the
    precision target, whose interval is taken at the stricter level that decided it (precise_at),
    as in their own row (case_stats), so that one figure has one interval in every table; bases: the
    baseline values each case pairs with (paired_bases), used where the classic's baseline is
    the counterpart's own.
    """
    classic = exp.get("classic")
    if not classic:
        return []
    base_name = classic_baseline(classic)
    base_values = values.get(base_name)
    rows = []
    for fig in classic["figures"]:
        case_values = values.get(fig["counterpart"])
        now = None
        if case_values and base_values:
            case = next((c for c in exp["cases"] if c["name"] == fig["counterpart"]), {})
            own_base = baseline_of(exp, case) == base_name
            factor = (factors or {}).get(fig["counterpart"]) if own_base else None
            pairs_with = (bases or {}).get(fig["counterpart"]) if own_base else None
            level = precise_at if fig["counterpart"] in precise else stats.CONFIDENCE
            now = stats.ratio_summary(stats.paired_ratios(case_values, pairs_with or base_values), level, factor)
        rows.append({"label": fig["label"], "then_value": fig["value"], "then_ratio": classic["ratios"][fig["label"]],
                     "counterpart": fig["counterpart"], "why": fig["why"], "now_ratio": now})
    return rows


def rate_figure(size: float, summary: dict, target: float, of_ceiling: float | None = None) -> dict:
    """A throughput (bytes per ns = GB/s) as a table's figure: the bytes over the median time, its
    interval over the ends of the time's, the precision target its "~" is judged by, and its share
    of a ceiling where it has one (report/format.py writes it)."""
    median = summary["median"]
    lo, hi = summary.get("ci95") or (median, median)
    rate = size / median
    return {"median": rate, "ci95": [size / hi, size / lo] if lo > 0 else [rate, rate], "target": target,
            "of_ceiling": of_ceiling}


def classic_baseline(classic: dict) -> str | None:
    """Today's counterpart of the classic's own baseline: the case its ratios are taken to."""
    return next((f["counterpart"] for f in classic.get("figures", []) if f["label"] == classic.get("baseline")), None)


def baseline_of(exp: dict, case: dict) -> str:
    """The case a case's ratio is taken to: its group's baseline, or the experiment's."""
    group = case.get("group") or ""
    return next((g["baseline"] for g in exp.get("groups") or [] if g["name"] == group), exp["baseline"])


def summaries(cases: list[Case], baseline: str, metric: str | None) -> dict[str, dict | None]:
    """Each case's statistics, its ratio paired per round to the baseline's (None: no samples)."""
    values = {c.name: round_values(c, metric) for c in cases}
    baselines = {c.name: baseline for c in cases}
    bases = paired_bases({c.name: c for c in cases}, baselines, metric, values)
    factors = stats.ratio_factors(values, baselines, bases)
    return {c.name: case_stats(c, _base_values(c.name, baselines, values, bases), metric,
                               ratio_factor=factors.get(c.name)) for c in cases}


def analyzed(exp: dict) -> dict:
    """The experiment with its statistics: every case's stats, the classic comparison and the
    experiment's warnings, as a new result (the one given is left as it was)."""
    metric = exp.get("metric")
    values = {c["name"]: round_values(c, metric) for c in exp["cases"]}
    stopped = ((exp.get("stopping") or {}).get("cases") or {})
    precise = {name for name, stop in stopped.items() if (stop or {}).get("stopped") == "precise"}
    level = precise_level(exp)
    baselines = {c["name"]: baseline_of(exp, c) for c in exp["cases"]}
    bases = paired_bases({c["name"]: c for c in exp["cases"]}, baselines, metric, values)
    factors = stats.ratio_factors(values, baselines, bases)
    cases = [{**case, "stats": case_stats(case, _base_values(case["name"], baselines, values, bases), metric,
                                          level if case["name"] in precise else stats.CONFIDENCE,
                                          factors.get(case["name"]),
                                          stats.precision_target(exp))}
             for case in exp["cases"]]
    return {**exp, "cases": cases, "classic_now": classic_now(exp, values, factors, precise, bases, level),
            "warnings": stats.experiment_warnings(exp.get("cpu_activity"))}


def precise_level(exp: dict) -> float:
    """The level of the interval a case stopped by its precision reports: its stopping rule's
    (stopping.StoppingRule.confidence); a result saved before rules kept one, the level all
    rules had then."""
    rule = (exp.get("stopping") or {}).get("rule") or {}
    return float(rule.get("confidence") or stats.SEQUENTIAL_CONFIDENCE)


def _base_values(name: str, baselines: dict[str, str | None], values: dict[str, dict[int, float]],
                 bases: dict[str, dict[int, float] | None]) -> dict[int, float] | None:
    """What case_stats divides a case by: the baseline values it pairs with; a baseline's own
    round medians (its ratio to itself)."""
    return values.get(name) if baselines.get(name) == name else bases.get(name)


def complete(doc: dict) -> dict:
    """A result whose producer wrote raw samples only (the Windows runner's results.json), with
    its statistics as `layertax run` would have given them; others as they are. A new document."""
    return {**doc, "experiments": [analyzed(exp) if exp.get("metric") != "instructions"
                                   and any("stats" not in c for c in exp["cases"]) else exp
                                   for exp in doc["experiments"]]}


def instructions_analyzed(exp: dict) -> dict:
    """For a callgrind-counted experiment: each case's ratio to the baseline. Counts are
    deterministic: one value per case, so each interval is [x, x]. No classic comparison:
    the classics timed their layers, and an instruction ratio beside a time ratio (os.rename's
    191x beside MoveFileA's 1.45x) compares two different quantities. A new result."""
    per_op = {c["name"]: c["instructions"]["per_op"] for c in exp["cases"] if c.get("instructions")}

    def ratio(case: dict) -> float | None:
        n, base = per_op.get(case["name"]), per_op.get(baseline_of(exp, case))   # its group's baseline
        return n / base if n is not None and base else None
    cases = [{**case, "stats": None, "ratio": ratio(case)} for case in exp["cases"]]
    return {**exp, "cases": cases, "classic_now": [],
            "warnings": [w for w in map(unsettled_floor_warning, cases) if w]}


# A repeated count whose two fewest runs of a size differ by more than this share of the
# result may be off by about as much: said, not hidden.
FLOOR_GAP_WARNING = 0.001


def unsettled_floor_warning(case: dict) -> str | None:
    counted = case.get("instructions") or {}
    gap, totals = counted.get("floor_gap"), counted.get("all_totals")
    if gap is None or gap <= FLOOR_GAP_WARNING:
        return None
    return (f"{case['name']}: the fewest instructions of {len(totals[0])} runs did not settle (the two fewest "
            f"of each size differ by {100 * gap:.2f}% of the result); it may be off by as much")
