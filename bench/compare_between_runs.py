"""Does widening compare's intervals by how far a ratio moves between runs stop its false calls,
and what does it cost in changes found? Read from this machine's saved default runs.

A run saves, with each ratio, how far it moved between this machine's recent runs beyond their
intervals (tau: between_runs.spread_between over the run and up to five before it), and the same
for each experiment's geometric mean (between_runs.mean_compared); compare widens B/A by the one
and the mean's row by the other (compare.widen_between_runs, geomean_row). During development few runs share their
measuring code, so few saved runs carry a tau; this bench gives each saved run the tau it would
have had with its five predecessors of any version (what the runs measured did not change: the
experiments' kernels and the launch timer), then compares each pair of consecutive runs:

- as saved (no tau) and widened: how many ratios, and experiments' geometric means, compare
  calls slower or faster. Nothing changed between the runs, so each call is a false one;
- with every case judged on its ratio in B made CHANGE slower (its rounds' times scaled, its
  baseline's not): how many ratios and means compare calls slower, without and with the
  widening (what the widening costs a change of that size).

Not a test: it reads what was measured.

    .venv/bin/python bench/compare_between_runs.py [--last N] [--change 0.05,0.10] [--window 6]
        [--skip N] [--cases-mean] [EXPERIMENT ...]

EXPERIMENT: those compared (default: loadtime callchain tls scan encoding).
"""
from __future__ import annotations

import argparse
import copy
import sys
from collections import Counter

from layertax.engine.analysis import analyze, between_runs, compare

from _common import finish, saved_default_runs   # this folder's

NAMES = ("loadtime", "callchain", "tls", "scan", "encoding")


def with_tau(docs: list[dict], names: list[str], window: int = between_runs.WINDOW,
             own_mean: bool = True) -> list[dict]:
    """Each run (oldest first) with each named experiment's cases given the tau and p between_runs
    would have saved beside its window - 1 predecessors of any version, and its geometric mean's
    (between_runs.mean_compared; not with own_mean False: compare then widens the mean by the
    cases' mean tau): only the named experiments, every other field of the records as saved."""
    out = []
    for i, doc in enumerate(docs):
        experiments = []
        for exp in doc["experiments"]:
            if exp["name"] not in names:
                continue
            earlier = [e for d in reversed(docs[:i]) for e in d["experiments"] if e["name"] == exp["name"]]
            earlier = earlier[:window - 1]
            cases = dict((exp.get("between_runs") or {}).get("cases") or {})
            for case in exp["cases"]:
                ratio = (case.get("stats") or {}).get("ratio")
                found = between_runs.compared(ratio, [_ratio_of(e, case["name"]) for e in earlier], window)
                if found:
                    cases[case["name"]] = {**cases.get(case["name"], {}), "tau": found["tau"], "p": found["p"]}
            record = {"runs": len(earlier), "cases": cases}
            mean = between_runs.mean_compared(exp, earlier, window) if own_mean else None
            if mean is not None:
                record["mean"] = mean
            experiments.append({**exp, "between_runs": record})
        out.append({**doc, "experiments": experiments})
    return out


def _ratio_of(exp: dict, name: str) -> dict | None:
    case = next((c for c in exp["cases"] if c["name"] == name), None)
    return ((case or {}).get("stats") or {}).get("ratio")


def without_tau(doc: dict) -> dict:
    """The run with no tau in its records: compare as it was before it read them."""
    experiments = []
    for exp in doc["experiments"]:
        record = {k: v for k, v in (exp.get("between_runs") or {"runs": 0}).items() if k != "mean"}
        cases = {k: {f: v for f, v in rec.items() if f != "tau"} for k, rec in (record.get("cases") or {}).items()}
        experiments.append({**exp, "between_runs": {**record, "cases": cases}})
    return {**doc, "experiments": experiments}


def slowed(doc: dict, change: float) -> dict:
    """The run with every case that is not its own baseline made `change` slower: its samples'
    timed field scaled (the baselines' left as they were, so every ratio moves by the change)."""
    doc = copy.deepcopy(doc)
    for exp in doc["experiments"]:
        field = analyze.sample_metric(exp) or "ns"
        for case in exp["cases"]:
            if analyze.baseline_of(exp, case) == case["name"]:
                continue
            for sample in case.get("samples") or []:
                if sample.get(field) is not None:
                    sample[field] = sample[field] * (1 + change)
    return doc


def calls(a: dict, b: dict) -> tuple[Counter, Counter, Counter]:
    """By experiment: the ratios judged on their baseline, the calls (by verdict too), the ratios
    whose interval was widened by a tau."""
    judged, called, widened = Counter(), Counter(), Counter()
    for e in compare.compare_runs(a, b).experiments:
        for r in e.rows:
            if not r.to_baseline or r.method != "time":
                continue
            judged[e.name] += 1
            if r.verdict in ("slower", "faster"):
                called[(e.name, r.verdict)] += 1
            widened[e.name] += r.between_runs > 0
        if e.geomean is not None and e.geomean.verdict in ("slower", "faster"):
            called[(e.name, "mean " + e.geomean.verdict)] += 1
    return judged, called, widened


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("experiments", nargs="*", default=list(NAMES))
    parser.add_argument("--last", type=int, default=200, help="the newest N default runs")
    parser.add_argument("--change", default="0.05,0.10", help="the slowdowns given to B, comma-separated")
    parser.add_argument("--window", type=int, default=between_runs.WINDOW,
                        help="runs a tau is taken over, this one included (a run saves it over %(default)s)")
    parser.add_argument("--cases-mean", action="store_true",
                        help="widen the geometric means by their cases' mean tau, not their own (older runs')")
    parser.add_argument("--skip", type=int, default=0,
                        help="compare only the pairs after the oldest N runs (the same pairs at every --window)")
    args = parser.parse_args()
    changes = [float(c) for c in args.change.split(",") if c]
    docs = saved_default_runs(args.last)
    if not docs:
        print("no saved default runs in the history")
        return 1
    docs = [d for d in with_tau(docs, args.experiments, args.window, not args.cases_mean) if d["experiments"]]
    pairs = list(zip(docs, docs[1:]))[args.skip:]
    print(f"{len(docs)} default runs with {', '.join(args.experiments)}; {len(pairs)} consecutive pairs")
    totals = {"as saved": Counter(), "widened": Counter()}
    widened_ratios, judged_all = Counter(), Counter()
    found = {(change, way): Counter() for change in changes for way in totals}
    means_found = Counter()
    for i, (a, b) in enumerate(pairs):
        for way, pick in (("as saved", without_tau), ("widened", lambda d: d)):
            judged, called, widened = calls(pick(a), pick(b))
            totals[way].update(called)
            if way == "widened":
                widened_ratios.update(widened)
                judged_all.update(judged)
        for change in changes:
            moved = slowed(b, change)
            for way, pick in (("as saved", without_tau), ("widened", lambda d: d)):
                _, called, _ = calls(pick(a), pick(moved))
                found[(change, way)].update({e: n for (e, v), n in called.items() if v == "slower"})
                means_found[(change, way)] += sum(n for (e, v), n in called.items() if v == "mean slower")
        print(f"  {i + 1}/{len(pairs)} pairs", file=sys.stderr)
    print(f"{'experiment':>10} {'judged':>7} {'widened':>8} {'false, as saved':>16} {'false, widened':>15}"
          + "".join(f" {f'+{c:.0%} found, saved':>19} {'widened':>8}" for c in changes))
    for name in args.experiments:
        judged = judged_all[name]
        false = [sum(n for (e, v), n in totals[way].items() if e == name and not v.startswith("mean"))
                 for way in totals]
        row = f"{name:>10} {judged:>7} {widened_ratios[name]:>8} {false[0]:>16} {false[1]:>15}"
        for change in changes:
            row += f" {found[(change, 'as saved')][name]:>19} {found[(change, 'widened')][name]:>8}"
        print(row)
    means = {way: Counter() for way in totals}
    for way in totals:
        for (e, v), n in totals[way].items():
            means[way][e] += n if v.startswith("mean") else 0
    print(f"geometric means called slower or faster (of {len(pairs)} an experiment): as saved "
          f"{sum(means['as saved'].values())}, widened {sum(means['widened'].values())}; "
          + ", ".join(f"{name} {means['as saved'][name]} -> {means['widened'][name]}" for name in args.experiments))
    print("geometric means found slower, as saved -> widened: "
          + ", ".join(f"+{c:.0%} {means_found[(c, 'as saved')]} -> {means_found[(c, 'widened')]}" for c in changes)
          + f" (of {len(pairs) * len(args.experiments)})")
    return 0


if __name__ == "__main__":
    finish(main)
