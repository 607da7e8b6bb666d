"""Do this machine's saved default runs agree? Two targets of issue 59, read from the history
instead of from new runs, so that they rest on every default run saved here, not on one pair:

- consecutive runs: do the 95% intervals of each ratio of the named experiments overlap (the
  target: at least 95% of the ratios in each pair), and where they do not, was the ratio
  marked `!` (moved between this machine's recent runs) or `^` (on every CPU at once) in both?
- classics: in each run, is every classic counterpart's ratio within ±5% of its median?

and, for the same pairs, what `layertax compare` calls between them: of the ratios judged on
their baseline, how many it calls slower or faster where the code did not change (and whether
that case's baseline itself moved, or the case was marked `!` in either run).

Default runs only: the default budget and precision, not --quick, --runs, --thorough or --case,
complete, not measured beside another layertax. Consecutive runs are paired only where the same
layertax and code measured the named experiments in both (its version, and the digest each
experiment is saved with) unless --any-version is given; a pair's overlap is counted
over the ratios both runs have. Not a test: it reads what was measured.

    .venv/bin/python bench/saved_runs_agree.py [--any-version] [--last N] [EXPERIMENT ...]

EXPERIMENT: those whose ratios are compared (default: callchain tls, the back-to-back pair of
issue 59); the classics are counted over every experiment of each run. --last N: the N newest
default runs (default 200).
"""
from __future__ import annotations

import argparse
from collections import Counter

from layertax.engine.analysis import between_runs, compare
from layertax.engine.measure.stopping import relative_half_width

from _common import finish, intervals_apart, saved_default_runs   # this folder's

CLASSIC_TARGET = 0.05
ENOUGH_OVERLAP = 0.95


def ratios(doc: dict, names: list[str]) -> dict[tuple[str, str], tuple[dict, bool | None]]:
    """(experiment, case) -> (its ratio, whether it is marked as moving between runs: `!`, or
    `^` for a case on every CPU at once; None where it is not `^` and the run had no earlier runs
    to set it beside), for the named experiments' cases with a ratio that is not a baseline's 1."""
    out = {}
    for exp in doc["experiments"]:
        if exp["name"] not in names:
            continue
        for case in exp["cases"]:
            ratio = (case.get("stats") or {}).get("ratio")
            if ratio and ratio["ci95"][0] != ratio["ci95"][1]:
                moved = between_runs.found(exp, case["name"]).get("moved")
                out[(exp["name"], case["name"])] = (ratio, True if case.get("every_cpu") else moved)
    return out


def measured_by(doc: dict, names: list[str]) -> tuple:
    """What must be the same in two runs for a pair of them to count: the layertax and the code
    that measured the named experiments (stricter than the `!` mark's match, engine/store/recent.py,
    which takes runs of another version measured by the same code)."""
    return (doc.get("layertax_version"),
            tuple(sorted((e["name"], e.get("code")) for e in doc["experiments"] if e["name"] in names)))


def classics_missed(doc: dict) -> list[str]:
    """The classic counterparts whose ratio's interval is wider than ±CLASSIC_TARGET."""
    missed = []
    for exp in doc["experiments"]:
        for row in exp.get("classic_now") or []:
            now = row.get("now_ratio")
            if not now or now["ci95"][0] == now["ci95"][1]:
                continue
            half = relative_half_width(now)
            if half > CLASSIC_TARGET:
                missed.append(f"{exp['name']}/{row['counterpart']} ±{half:.1%}")
    return missed


def compare_calls(first: dict, second: dict, names: list[str]) -> tuple[int, list[str]]:
    """How many of the named experiments' ratios (cases judged on their baseline) compare judged
    between two runs, and each it called slower or faster: its B/A, and whether its baseline
    itself moved or it was marked `!` in either run."""
    def only(doc: dict) -> dict:
        return {**doc, "experiments": [e for e in doc["experiments"] if e["name"] in names]}

    def marked(doc: dict, exp: str, case: str) -> bool:
        e = next((e for e in doc["experiments"] if e["name"] == exp), {})
        return bool(between_runs.found(e, case).get("moved"))

    judged, called = 0, []
    for e in compare.compare_runs(only(first), only(second)).experiments:
        by_case = {r.case: r for r in e.rows}
        for r in e.rows:
            if not r.to_baseline or r.method != "time":
                continue
            judged += 1
            if r.verdict in ("slower", "faster"):
                base = by_case.get(r.to_baseline)
                moved = base is not None and base.verdict in ("slower", "faster")
                why = [w for w, yes in ((f"baseline {r.to_baseline} {base.ratio:.3g}x" if moved else "", moved),
                                        ("! in a run", marked(first, e.name, r.case) or marked(second, e.name, r.case)))
                       if yes]
                called.append(f"{e.name}/{r.case} {r.verdict} {r.ratio:.3g}x" + (f" ({', '.join(why)})" if why else ""))
    return judged, called


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("experiments", nargs="*", metavar="EXPERIMENT", default=["callchain", "tls"],
                        help="those whose ratios are compared (default: callchain tls)")
    parser.add_argument("--any-version", action="store_true",
                        help="pair consecutive runs whatever layertax and code measured them")
    parser.add_argument("--last", type=int, default=200, metavar="N", help="the N newest default runs")
    args = parser.parse_args()
    any_version, last, names = args.any_version, args.last, args.experiments
    docs = saved_default_runs(last)
    if docs is None:
        print("no saved runs in the history")
        return 1
    print(f"{len(docs)} default runs of this machine in the history")

    runs_with = [d for d in docs if {e["name"] for e in d["experiments"]} & set(names)]
    pairs, cases, apart_cases, markable, marked = [], 0, Counter(), 0, 0
    judged, called = 0, []
    for first, second in zip(runs_with, runs_with[1:]):
        if not any_version and measured_by(first, names) != measured_by(second, names):
            continue
        a, b = ratios(first, names), ratios(second, names)
        common = sorted(set(a) & set(b))
        if not common:
            continue
        moved = [k for k in common if intervals_apart(a[k][0], b[k][0])]
        n, calls = compare_calls(first, second, names)
        judged, called = judged + n, called + calls
        pairs.append((len(common) - len(moved), len(common)))
        cases += len(common)
        for k in moved:
            apart_cases[k] += 1
            if a[k][1] is not None and b[k][1] is not None:    # both set beside earlier runs
                markable += 1
                marked += a[k][1] and b[k][1]
    if pairs:
        enough = sum(o / n >= ENOUGH_OVERLAP for o, n in pairs)
        overlapping = sum(o for o, _ in pairs)
        print(f"{' '.join(names)}: {len(pairs)} pairs of consecutive runs"
              f"{'' if any_version else ' of the same layertax and code'}; {enough} with at least "
              f"{ENOUGH_OVERLAP:.0%} of ratios overlapping; {overlapping} of {cases} ratios overlap "
              f"({overlapping / cases:.1%}); of the {cases - overlapping} apart, {markable} could be marked "
              f"(^, or both runs set beside earlier ones), marked ! or ^ in both runs: {marked}")
        print("  per pair (overlapping of compared): " + ", ".join(f"{o}/{n}" for o, n in pairs))
        print("  most often apart: " + ", ".join(f"{e}/{c} {n}" for (e, c), n in apart_cases.most_common(8)))
        print(f"  compare between the same pairs: {len(called)} of {judged} ratios called slower or faster"
              + (": " + "; ".join(called) if called else ""))
    else:
        print(f"{' '.join(names)}: no two consecutive default runs to compare")

    with_classics = [d for d in docs if any(e.get("classic_now") for e in d["experiments"])]
    missed = [(d, classics_missed(d)) for d in with_classics]
    print(f"classics: every counterpart within ±{CLASSIC_TARGET:.0%} in "
          f"{sum(not m for _, m in missed)} of {len(missed)} runs")
    for doc, m in missed:
        if m:
            print(f"  {doc.get('created', '?')} ({doc.get('layertax_version')}): {', '.join(m)}")
    return 0


if __name__ == "__main__":
    finish(main)
