"""Turns an experiment's raw samples into the statistics a report prints.

Works on the plain result data, so it can be re-run on any saved result.
"""
from __future__ import annotations

from collections import defaultdict

import numpy as np

from layertax.engine import stats


def ns_per_op(sample: dict) -> float:
    return sample["ns"] / sample["ops"]


def round_samples(case: dict) -> dict[int, list[float]]:
    by_round: dict[int, list[float]] = defaultdict(list)
    for s in case["samples"]:
        by_round[s["round"]].append(ns_per_op(s))
    return dict(by_round)


def round_values(case: dict) -> dict[int, float]:
    """The median ns/op of each round's burst: one paired observation per round."""
    return {r: float(np.median(v)) for r, v in round_samples(case).items()}


def case_stats(case: dict, baseline: dict | None) -> dict | None:
    if not case["samples"]:
        return None
    summary = stats.summarize_rounds(list(round_samples(case).values()))
    with_csw = [s for s in case["samples"] if "csw_invol" in s]
    share, slowdown = stats.disturbance([ns_per_op(s) for s in with_csw], [s["csw_invol"] > 0 for s in with_csw])
    summary["disturbed_share"] = share
    summary["disturbed_slowdown"] = slowdown
    summary["ratio"] = None
    if baseline is not None and baseline["samples"]:
        summary["ratio"] = stats.ratio_summary(stats.paired_ratios(round_values(case), round_values(baseline)))
    summary["warnings"] = stats.noise_warnings(summary, share, slowdown)
    return summary


def classic_now(exp: dict) -> list[dict]:
    """Each classic figure beside today's ratio of its counterpart, paired per round."""
    classic = exp.get("classic")
    if not classic:
        return []
    cases = {c["name"]: c for c in exp["cases"]}
    base_label = classic["baseline"]
    base_name = next((f["counterpart"] for f in classic["figures"] if f["label"] == base_label), None)
    base_case = cases.get(base_name)
    rows = []
    for fig in classic["figures"]:
        case = cases.get(fig["counterpart"])
        now = None
        if case and base_case and case["samples"] and base_case["samples"]:
            now = stats.ratio_summary(stats.paired_ratios(round_values(case), round_values(base_case)))
        rows.append({"label": fig["label"], "then_value": fig["value"], "then_ratio": classic["ratios"][fig["label"]],
                     "counterpart": fig["counterpart"], "why": fig["why"], "now_ratio": now})
    return rows


def analyze(exp: dict) -> None:
    """Fills in stats for every case and the classic comparison, in place."""
    cases = {c["name"]: c for c in exp["cases"]}
    baseline = cases.get(exp["baseline"])
    for case in exp["cases"]:
        case["stats"] = case_stats(case, baseline)
    exp["classic_now"] = classic_now(exp)
