"""What did a run reach? The figures issue 59 holds a bare `layertax run` to, read from its JSON.

For each result (`layertax run --export-json RUN.json`, or a saved run): the noise probe's
reading, the seconds measured of the budget, the main tables' ratios within the precision
target per experiment (each table's baseline counted, its ratio exactly 1; the extended groups a
bare run leaves out are not counted), and the classic counterparts within ±5% (but the classic
table's own baseline, a ratio of exactly 1). A ratio is within the target when half its printed
95% interval over its median is, as the `~` mark reads it. With --misses: every ratio short of
the target, with its rounds and why it stopped. Not a test: it reads what was measured.

    .venv/bin/python bench/run_reach.py [--misses] RUN.json [...]

One line a run, as the table in docs/method/measurement.md has them.
"""
from __future__ import annotations

import argparse

from layertax.engine.analysis.stats import wider_than
from layertax.engine.measure.stopping import CLASSIC_PRECISION as CLASSIC_TARGET, relative_half_width
from layertax.units import half_width

from _common import finish, read_run   # this folder's


def main_table(exp: dict) -> list[tuple[dict, dict]]:
    """The cases of the experiment's main tables that have a ratio, with their stopping record."""
    extended = {g["name"] for g in exp.get("groups") or [] if g.get("extended")}
    stops = (exp.get("stopping") or {}).get("cases") or {}
    return [(case, stops.get(case["name"], {})) for case in exp["cases"]
            if case["status"] == "ok" and case.get("group") not in extended
            and ((case.get("stats") or {}).get("ratio"))]


def reach(doc: dict, target: float) -> tuple[list[tuple[str, int, int]], tuple[int, int], list[str]]:
    """Per experiment (name, ratios within the target, ratios); the classics (within, of); misses."""
    per_experiment, misses = [], []
    classics_within = classics = 0
    for exp in doc["experiments"]:
        rows = main_table(exp)
        if not rows:
            continue
        within = 0
        for case, stop in rows:
            ratio = case["stats"]["ratio"]
            if not wider_than(ratio, target):
                within += 1
            else:
                misses.append(f"{exp['name']}/{case['name']}: {half_width(relative_half_width(ratio))} after "
                              f"{stop.get('rounds', '?')} rounds ({stop.get('stopped', '?')})")
        per_experiment.append((exp["name"], within, len(rows)))
        for classic in exp.get("classic_now") or []:
            ratio = classic.get("now_ratio")
            if not ratio or ratio["ci95"] == [1.0, 1.0]:     # the classic table's own baseline
                continue
            classics += 1
            classics_within += not wider_than(ratio, CLASSIC_TARGET)
    return per_experiment, (classics_within, classics), misses


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", metavar="RUN.json", help="results of `layertax run --export-json`")
    parser.add_argument("--misses", action="store_true", help="list every ratio short of the target")
    args = parser.parse_args()
    for path in args.runs:
        doc = read_run(path, "run_reach")
        settings = doc.get("settings") or {}
        target = settings.get("precision") or 0.02
        per_experiment, (classics_within, classics), misses = reach(doc, target)
        probe = (settings.get("noise_probe") or {}).get("spread")
        budget, measured = settings.get("budget_s"), settings.get("measured_s")
        within = sum(w for _, w, _ in per_experiment)
        total = sum(n for _, _, n in per_experiment)
        parts = ", ".join(f"{name} {w} of {n}" for name, w, n in per_experiment)
        print(f"{path}: probe {'-' if probe is None else f'{probe:.1%}'}, measured "
              f"{'-' if measured is None else f'{measured:.0f} s'} of {'-' if budget is None else f'{budget:.0f} s'}; "
              f"{within} of {total} ratios within ±{target:.0%} ({parts}); "
              f"classics within ±{CLASSIC_TARGET:.0%}: {classics_within} of {classics}")
        if args.misses:
            for line in misses:
                print(f"  {line}")
    return 0


if __name__ == "__main__":
    finish(main)
